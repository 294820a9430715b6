/**
 * Held-out figures as the user sees them: every sample of a held-out batch is played as the
 * final answer of a long unattended turn through the plugin's default export, on the 1.x and
 * the 2.x fake host of the capability matrix (test/matrix: the event shapes OpenCode 1.18.33
 * sends, and the 2.x host document), in its default options, once with no todo list and once
 * with a todo still open. What is scored is what the session receives, not what the judge
 * decided (heldout-score.ts scores that):
 *
 *   bun test ./test/corpus/heldout-plugin.run.ts            (HELDOUT=<file|folder>, HOSTS=v1,v2)
 *
 * Not part of the suite (its name is not a test file's): 867 samples take about 4 minutes a host.
 *
 * Per family, with no todo list (quiet) and with one open (todos):
 *  - hand-off: nothing may be sent in either setting (a send is a nudge past a hand-off);
 *  - none: nothing sent when quiet (a send is a false alarm; with a todo open the reminder is due);
 *  - tool-call: the printed-call correction; action-intent and ready: a continue (quiet);
 *  - stop: nothing sent when quiet (latched, the plugin's "task complete" line, when the rules
 *    read it), and with a todo open the reminder naming it: through the plugin a stop and a
 *    none ending receive the same, so the family's recall is the judge's (heldout-score.ts);
 *  - done: with a todo open, the correction of the claim ("You said the work is finished ...");
 *    quiet, no continue and no correction of another kind.
 */
import { expect, test } from "bun:test"
import { play, type Played } from "../matrix/play.ts"
import type { HostName } from "../matrix/host-common.ts"
import type { Step, Todo } from "../matrix/steps.ts"
import { HELDOUT_LANGS, readHeldOut, type HeldOutSample } from "./heldout-score.ts"

const OPEN: Todo[] = [
  { content: "Write the migration", status: "completed" },
  { content: "Add tests for the migration", status: "pending" },
]

/** A turn long enough to be past the warm-up and the active-user window, then the answer. */
function turn(text: string, withTodos: boolean): Step[] {
  return [{ do: "user" }, ...(withTodos ? [{ do: "todos", todos: OPEN } as Step] : []), { do: "stream", ms: 330_000, every: 110_000 }, { do: "text", text }, { do: "end" }, { do: "wait", ms: 10_000 }]
}

type Seen = "nothing" | "reminder" | "done-correction" | "continue" | "tool-text" | "report" | "latch" | "other-send"

function seen(played: Played): Seen {
  const sends = played.acts.filter((a) => a.act === "send")
  if (sends.length === 0) return played.logs.some((l) => l.includes("task complete (")) ? "latch" : "nothing"
  const send = sends[0] as { kind?: string; text?: string }
  const text = send.text ?? ""
  if (/^You said the work is finished/.test(text)) return "done-correction"
  if (/todo list still has/.test(text)) return "reminder"
  if (/concrete report|short report/i.test(text)) return "report"
  if (send.kind === "continue") return "continue"
  if (/tool call|as text|plain text/i.test(text)) return "tool-text"
  return "other-send"
}

/** Whether what the session received is right for the family, in each setting. */
function right(family: HeldOutSample["family"], quiet: Seen, todos: Seen): boolean {
  switch (family) {
    case "hand-off":
      return (quiet === "nothing" || quiet === "latch") && (todos === "nothing" || todos === "latch")
    case "none":
      return quiet === "nothing"
    case "tool-call":
      return quiet === "tool-text"
    case "action-intent":
    case "ready":
      return quiet === "continue"
    case "stop":
      // Latched when the rules read it, left as it is when only the classifier did; either way
      // nothing is sent unless a todo is open.
      return (quiet === "latch" || quiet === "nothing") && todos === "reminder"
    case "done":
      // With nothing open a done claim is believed (latched, or nothing at all when only the
      // classifier read it) or asked for a report; with a todo open it is the claim's correction.
      return quiet !== "continue" && quiet !== "tool-text" && quiet !== "reminder" && todos === "done-correction"
    default:
      return false
  }
}

const paths = (process.env.HELDOUT ?? "").split(",").filter((p) => p !== "")
const hosts = (process.env.HOSTS ?? "v1,v2").split(",") as HostName[]

test(
  "held-out batch through the default export",
  async () => {
    expect(paths.length).toBeGreaterThan(0)
    const samples = readHeldOut(paths)
    for (const host of hosts) {
      const rows: { sample: HeldOutSample; quiet: Seen; todos: Seen }[] = []
      for (const sample of samples) {
        const quiet = seen(await play(host, { steps: turn(sample.text, false) }, false))
        const todos = seen(await play(host, { steps: turn(sample.text, true) }, false))
        rows.push({ sample, quiet, todos })
      }
      expect(rows.length).toBe(samples.length)
      const families = ["hand-off", "stop", "done", "ready", "tool-call", "action-intent", "none"] as const
      const lines = [`${host}: ${rows.length} samples through the default export`, "", `family          right  of    ${HELDOUT_LANGS.map((l) => l.padStart(5)).join("")}`]
      for (const family of families) {
        const mine = rows.filter((r) => r.sample.family === family)
        const ok = mine.filter((r) => right(family, r.quiet, r.todos))
        const cells = HELDOUT_LANGS.map((lang) => {
          const inLang = mine.filter((r) => r.sample.lang === lang)
          if (inLang.length === 0) return "-".padStart(5)
          return (inLang.filter((r) => right(family, r.quiet, r.todos)).length / inLang.length).toFixed(2).replace(/^0/, "").padStart(5)
        })
        lines.push(`${family.padEnd(15)} ${String(ok.length).padStart(5)} ${String(mine.length).padStart(5)} ${cells.join("")}`)
      }
      const past = rows.filter((r) => r.sample.family === "hand-off" && !right("hand-off", r.quiet, r.todos))
      const alarms = rows.filter((r) => r.sample.family === "none" && r.quiet !== "nothing")
      lines.push("", `nudges past a hand-off: ${past.length}; sends on a none ending with nothing open: ${alarms.length}`)
      if (process.env.HELDOUT_SHOW === "1") for (const r of rows) if (!right(r.sample.family, r.quiet, r.todos)) lines.push(`  ${r.sample.id} ${r.sample.family}: quiet ${r.quiet}, todos ${r.todos}`)
      console.log(lines.join("\n"))
    }
  },
  3_600_000,
)
