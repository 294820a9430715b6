/**
 * Goal mode, proven inside a real OpenCode 1.18.33 server with the plugin loaded from this
 * checkout and a scripted fake provider on 127.0.0.1: `/auto-resume goal <text>` through
 * `POST /session/{id}/command`, a model that takes three turns to reach the goal and calls
 * task_complete with evidence, and the controls: no goal (nothing sent), a hand-off in the
 * middle (nothing sent until the user writes), a model that makes no progress (stood down after
 * two idle turns). One server for the file, a new session per scenario.
 *
 * The plugin is loaded through a thin wrapper (fixtures/counting-plugin.ts) that counts every
 * call it makes on the host's SDK client, which is how the cost of a continue is measured.
 *
 * Budgets are shortened (SHORT_BUDGETS; the judge's text delay 300 ms, the active-user window
 * 1.5 s, the send spacing 1 s) so a scenario takes seconds; everything else is the default.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { readJournal } from "../../src/stores/journal-file.ts"
import { startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, messages, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { SHORT_BUDGETS, eventually, lastAssistantText, quiet, sessionLog, toolParts, warmUp } from "./support.ts"

const COUNTING_PLUGIN = pathToFileURL(path.join(import.meta.dir, "fixtures", "counting-plugin.ts")).href
const WINDOW_MS = 1_500
const OPTIONS = { ...SHORT_BUDGETS, toolTextCheckDelayMs: 300, activeUserWindowMs: WINDOW_MS, injectIntervalMs: 1_000 }
/** Longer than a finished turn's judgement (1 s quiet + 0.3 s + a check) and the window: "nothing is sent" is decided by then. */
const NOTHING_MS = 4_000
const GOAL = "make the parser tests pass"
const EVIDENCE = "bun test test/parser: 14 pass, 0 fail"

let provider: FakeProvider
let host: OpencodeHost
let workDir: string
let callsFile: string

registerOpencodeCleanup(afterAll, () => {
  provider?.stop()
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true })
})

beforeAll(async () => {
  provider = await startFakeProvider()
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "oc-goal-"))
  callsFile = path.join(workDir, "calls.jsonl")
  host = await startOpencode({ providerUrl: provider.url, plugins: [[COUNTING_PLUGIN, { ...OPTIONS, callsFile }]], logLevel: "DEBUG" })
  await warmUp(host, provider)
}, 90_000)

const stateFile = (name: string) => path.join(host.root, "config", "opencode", name)

/** `/auto-resume <args>` as the TUI runs it on an idle session: the plugin's local reply turn, then idle. */
async function command(sessionID: string, args: string): Promise<string> {
  const mark = host.events.mark()
  const r = await host.client.session.command({ path: { id: sessionID }, body: { command: "auto-resume", arguments: args } as any })
  await waitForIdle(host, sessionID, 15_000, mark)
  return ((r.data as any)?.parts ?? []).filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
}

/** The goal's continues that reached the session, oldest first. */
async function goalContinues(sessionID: string): Promise<string[]> {
  const history = await messages(host, sessionID)
  return history
    .filter((m) => m.info.role === "user" && m.parts.some((p: any) => p.metadata?.autoResume === true && p.metadata?.kind === "continue"))
    .map((m) => m.parts.map((p: any) => p.text ?? "").join(""))
    .filter((t) => t.startsWith("auto-resume goal"))
}

function historyOf(sessionID: string) {
  return readJournal(stateFile("auto-resume.history.jsonl")).entries.filter((e) => e.sessionID === sessionID)
}

function goalRecord(sessionID: string) {
  return JSON.parse(fs.readFileSync(stateFile("auto-resume.goals.json"), "utf8")).goals.find((g: any) => g.sessionID === sessionID)
}

type Call = { t: number; method: string; sessionID?: string; bytes: number; textBytes?: number }
const calls = (): Call[] => (fs.existsSync(callsFile) ? fs.readFileSync(callsFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [])

/** Host calls the plugin made for one session from `since` on, by method (log lines are not the session's). */
function callsOf(sessionID: string, since: number): Record<string, number> {
  const out: Record<string, number> = {}
  for (const c of calls()) if (c.sessionID === sessionID && c.t >= since) out[c.method] = (out[c.method] ?? 0) + 1
  return out
}

/** Measured once, reported in the closing note of the work: what one goal continue costs. */
const cost: Record<string, unknown> = {}

describe("goal mode on OpenCode 1.18.33", () => {
  test(
    "a goal set with /auto-resume goal keeps a scripted model going for three turns until it calls task_complete with evidence",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      const reply = await command(sessionID, `goal ${GOAL}`)
      expect(reply).toContain(`auto-resume: goal set for this session: "${GOAL}".`)
      // Answered by the plugin's local reply model: nothing reached the provider.
      expect(provider.requests.length).toBe(before)
      expect(goalRecord(sessionID)).toMatchObject({ text: GOAL, status: "active", continues: 0, by: "command" })

      provider.enqueue(
        // Turn 1 (the user's task): a look, and a finding.
        toolCall("bash", { command: "echo inspecting the tokenizer", description: "inspect" }),
        text("The tokenizer drops trailing commas; that breaks four parser cases."),
        // Turn 2 (the goal's first continue): a plan, a fix, one item still open.
        toolCall("todowrite", { todos: [{ content: "Fix the tokenizer", status: "completed", priority: "high" }, { content: "Run the parser tests", status: "pending", priority: "high" }] }),
        toolCall("bash", { command: "echo patched the tokenizer", description: "patch" }),
        text("Patched the tokenizer to keep trailing commas."),
        // Turn 3 (the second continue): the tests, the list closed, and the claim with its evidence.
        toolCall("bash", { command: "echo 14 pass 0 fail", description: "test" }),
        toolCall("todowrite", { todos: [{ content: "Fix the tokenizer", status: "completed", priority: "high" }, { content: "Run the parser tests", status: "completed", priority: "high" }] }),
        toolCall("task_complete", { evidence: EVIDENCE }),
        text("The parser tests pass."),
      )
      provider.setFallback(text("unexpected extra turn"))
      const start = Date.now()
      await promptAsync(host, sessionID, "Fix the parser so that its tests pass.")

      const reached = await eventually(async () => (await lastAssistantText(host, sessionID)) === "The parser tests pass.", 60_000, 250)
      expect(reached).toBe(true)
      expect(await quiet(provider, NOTHING_MS, 20_000)).toBe(true)
      const end = Date.now()

      // Nine model requests, the script and nothing more: no fallback turn after the goal was met.
      expect(provider.requests.length - before).toBe(9)
      expect(provider.pending()).toBe(0)

      // Two continues, each restating the goal, what the last turn said, the open todos, and what meets it.
      const continues = await goalContinues(sessionID)
      expect(continues).toHaveLength(2)
      expect(continues[0]).toStartWith(`auto-resume goal (continue 1 of at most 25): keep working until this goal is met: "${GOAL}"`)
      expect(continues[0]).toContain('Your last turn said: "The tokenizer drops trailing commas; that breaks four parser cases."')
      expect(continues[0]).toContain("task_complete tool with `evidence`")
      expect(continues[1]).toStartWith("auto-resume goal (continue 2 of at most 25)")
      expect(continues[1]).toContain('Your last turn said: "Patched the tokenizer to keep trailing commas."')
      expect(continues[1]).toContain("1. [pending] Run the parser tests")
      // The provider saw them as the user turns of turns 2 and 3.
      expect(provider.requests.slice(before).map((r) => r.lastUserText.startsWith("auto-resume goal (continue"))).toEqual([false, false, true, true, true, true, true, true, true])

      // task_complete with evidence met the goal.
      const done = (await toolParts(host, sessionID)).find((p) => p.tool === "task_complete")
      expect(done?.state?.status).toBe("completed")
      expect(String(done?.state?.output)).toStartWith(`Goal met: "${GOAL}"`)
      expect(goalRecord(sessionID)).toMatchObject({ status: "met", continues: 2, why: "task_complete with evidence" })

      // The history: set, two continues that revived the session, met with the evidence.
      // (Each line is written once its outcome is known: in the order they happened, by their time.)
      const goalLines = () => historyOf(sessionID).filter((e) => e.trigger === "goal").sort((a, b) => a.time - b.time)
      expect(await eventually(() => goalLines().length >= 4, 10_000)).toBe(true)
      const history = goalLines()
      expect(history.map((e) => `${e.action}: ${e.outcome}`)).toEqual([
        "set by /auto-resume goal: active",
        "continue: revived",
        "continue: revived",
        "task_complete with evidence: met",
      ])
      expect(history[1]!.evidence).toBe(`continue 1/25: "${GOAL}"`)
      expect(history[3]!.note).toBe(`evidence: ${EVIDENCE}`)

      // /auto-resume status shows how the goal ended.
      const status = await command(sessionID, "status")
      expect(status).toMatch(new RegExp(`\\nGoal: "${GOAL}": met at .* after 2 continues \\(task_complete with evidence\\)`))
      expect(sessionLog(host, sessionID).some((l) => /goal met \(task_complete with evidence after 2 goal continue/.test(l))).toBe(true)

      // The cost of a continue: the host calls the plugin made for this session while the goal ran, and what a continue sends.
      const byMethod = callsOf(sessionID, start)
      const sends = calls().filter((c) => c.sessionID === sessionID && c.t >= start && c.t <= end && c.method === "session.promptAsync")
      expect(sends).toHaveLength(2)
      Object.assign(cost, {
        turns: 3,
        continues: sends.length,
        callsWhileTheGoalRan: byMethod,
        // Log lines go to the host too (client.app.log; this file runs with debug on): every session's, not only this one's.
        logCallsWhileTheGoalRan: calls().filter((c) => c.t >= start && c.t <= end && c.method === "app.log").length,
        promptBytesPerContinue: sends.map((c) => c.textBytes),
        requestBytesPerContinue: sends.map((c) => c.bytes),
      })
    },
    120_000,
  )

  test(
    "control: without a goal the same turn gets nothing",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(
        toolCall("bash", { command: "echo inspecting the tokenizer", description: "inspect" }),
        text("The tokenizer drops trailing commas; that breaks four parser cases."),
      )
      provider.setFallback(text("unexpected extra turn"))
      const start = Date.now()
      await promptAsync(host, sessionID, "Fix the parser so that its tests pass.")
      await waitForIdle(host, sessionID, 30_000)
      expect(await quiet(provider, NOTHING_MS, 20_000)).toBe(true)
      expect(provider.requests.length - before).toBe(2)
      expect(await goalContinues(sessionID)).toEqual([])
      expect(calls().filter((c) => c.sessionID === sessionID && c.method === "session.promptAsync")).toEqual([])
      // The same turn's host calls with no goal: what the goal adds to them is its send.
      Object.assign(cost, { callsForOneTurnWithoutAGoal: callsOf(sessionID, start) })
    },
    60_000,
  )

  test(
    "control: a hand-off in the middle gets nothing until the user writes",
    async () => {
      const sessionID = await createSession(host)
      await command(sessionID, `goal ${GOAL}`)
      const before = provider.requests.length
      provider.enqueue(
        toolCall("bash", { command: "echo inspecting the tokenizer", description: "inspect" }),
        text("The tokenizer drops trailing commas. Should I also migrate the old snapshot tests?"),
      )
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "Fix the parser so that its tests pass.")
      await waitForIdle(host, sessionID, 30_000)
      expect(await quiet(provider, NOTHING_MS, 20_000)).toBe(true)
      expect(provider.requests.length - before).toBe(2)
      expect(await goalContinues(sessionID)).toEqual([])

      // The user answers: their turn first, then (after the active-user window) the goal's continue.
      provider.enqueue(
        toolCall("bash", { command: "echo migrated the snapshot tests", description: "migrate" }),
        text("Migrated the snapshot tests too."),
        toolCall("task_complete", { evidence: EVIDENCE }),
        text("The parser tests pass."),
      )
      await promptAsync(host, sessionID, "Yes, migrate them as well.")
      const reached = await eventually(async () => (await lastAssistantText(host, sessionID)) === "The parser tests pass.", 60_000, 250)
      expect(reached).toBe(true)
      expect(await quiet(provider, NOTHING_MS, 20_000)).toBe(true)
      const continues = await goalContinues(sessionID)
      expect(continues).toHaveLength(1)
      expect(continues[0]).toContain('Your last turn said: "Migrated the snapshot tests too."')
      // The continue came after the user's own message, never in its place.
      const asked = provider.requests.slice(before).map((r) => (r.lastUserText.startsWith("auto-resume goal") ? "goal" : r.lastUserText))
      expect(asked).toEqual([
        "Fix the parser so that its tests pass.",
        "Fix the parser so that its tests pass.",
        "Yes, migrate them as well.",
        "Yes, migrate them as well.",
        "goal",
        "goal",
      ])
      expect(goalRecord(sessionID)).toMatchObject({ status: "met", continues: 1 })
    },
    120_000,
  )

  test(
    "control: a model that makes no progress is stood down after two idle turns",
    async () => {
      const sessionID = await createSession(host)
      await command(sessionID, `goal ${GOAL}`)
      const before = provider.requests.length
      // The same sentence, no tool call, no todo: every turn after the first only restates.
      provider.setFallback(text("I am still looking into it."))
      await promptAsync(host, sessionID, "Fix the parser so that its tests pass.")
      const stoodDown = await eventually(() => goalRecord(sessionID)?.status === "stood down", 60_000, 250)
      expect(stoodDown).toBe(true)
      expect(await quiet(provider, NOTHING_MS, 20_000)).toBe(true)
      // The user's turn and the two it took to see no progress: two continues, not twenty-five.
      expect(provider.requests.length - before).toBe(3)
      expect(await goalContinues(sessionID)).toHaveLength(2)
      expect(goalRecord(sessionID)).toMatchObject({ status: "stood down", continues: 2 })
      expect(goalRecord(sessionID).why).toMatch(/^no progress in 2 turns in a row/)
      await eventually(() => historyOf(sessionID).some((e) => e.outcome === "stood down"), 10_000)
      const end = historyOf(sessionID).find((e) => e.outcome === "stood down")
      expect(end).toMatchObject({ trigger: "goal", action: "stand down" })
      expect(end?.note).toMatch(/^no progress in 2 turns in a row/)
    },
    120_000,
  )

  test("the cost of a continue, as measured above", () => {
    // Printed for the record (the closing note quotes it); the figures themselves are asserted above.
    console.log(`goal e2e cost: ${JSON.stringify(cost)}`)
    expect(cost.continues).toBe(2)
  })
})
