/** A model repeating itself while it streams, through the whole engine (src/paths/repetition/). */
import { describe, expect, test } from "bun:test"
import type { Signal } from "../../../src/core/port.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { makeHarness, userTurn, type Harness } from "../../support/harness.ts"

const SENTENCE = "I need to verify the session table before I change it. "
type Emitted = Partial<Signal> & { type: Signal["type"] }

/** The text streamed as deltas of one part, 11 characters at a time. */
function deltas(text: string, part = "prt_1"): Emitted[] {
  const out: Emitted[] = []
  for (let i = 0; i < text.length; i += 11) out.push({ type: "modelOutput", part, delta: text.slice(i, i + 11) })
  return out
}

const LOOP = SENTENCE.repeat(30)

describe("repetition while streaming", () => {
  test("a sentence streamed again and again aborts the run, then the repetition prompt goes out", async () => {
    const h = makeHarness()
    h.emit(...userTurn, ...deltas(LOOP))
    await h.advance(100)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.port.logged(/streamed output repeats itself/)).toBe(true)
    h.emit({ type: "interrupted" }, { type: "idle" })
    await h.advance(ABORT_CONTINUE_DELAY_MS + 500)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.port.sends[0]!.kind).toBe("correction")
    expect(h.port.sends[0]!.text).toMatch(/repeated the same passage/)
    expect(h.port.sends[0]!.text).toContain(SENTENCE.trim())
    // Our abort is not the user's ESC.
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("whole-text part updates (1.x) are read as well as deltas", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    let text = ""
    for (let i = 0; i < 30; i++) h.emit({ type: "modelOutput", part: "prt_1", text: (text += SENTENCE) })
    await h.advance(100)
    expect(h.port.actions).toEqual(["abort"])
  })

  test("control: as much regular but varied text does nothing", async () => {
    const h = makeHarness()
    const rows = Array.from({ length: 60 }, (_, i) => `| ${i} | option-${i} | default | enabled |\n`).join("")
    h.emit(...userTurn, ...deltas(rows), ...deltas(LOOP.slice(0, 300), "prt_2"))
    await h.advance(3000)
    expect(h.port.calls).toHaveLength(0)
  })

  const held: Array<[string, (h: Harness) => void]> = [
    ["after ESC", (h) => h.emit({ type: "interrupted" }, { type: "busy" })],
    ["while paused", (h) => h.pauses.pause("s1")],
    ["with a tool running", (h) => h.emit({ type: "toolStart", callID: "c1", tool: "bash", args: { command: "sleep 60" } })],
  ]
  for (const [name, hold] of held) {
    test(`negative control: nothing ${name}`, async () => {
      const h = makeHarness()
      h.emit(...userTurn)
      hold(h)
      h.emit(...deltas(LOOP))
      await h.advance(3000)
      expect(h.port.actions.filter((a) => a === "abort" || a === "send")).toEqual([])
    })
  }

  test("budget: the lifetime cap refuses it", async () => {
    const h = makeHarness({ lifetimeMaxContinues: 0 })
    h.emit(...userTurn, ...deltas(LOOP))
    await h.advance(3000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/repetition recovery not sent: lifetime cap reached/)).toBe(true)
  })

  test("budget: at most loopMaxContinues repetition aborts inside loopWindowMs; the next window allows one again", async () => {
    const h = makeHarness({ loopMaxContinues: 1, loopWindowMs: 600_000 })
    const aborts = () => h.port.actions.filter((a) => a === "abort").length
    const loopOnce = async () => {
      const before = aborts()
      h.emit({ type: "busy" }, ...deltas(LOOP))
      await h.advance(100)
      // The host reports our abort; a run we left alone ends by itself.
      h.emit(...(aborts() > before ? [{ type: "interrupted" } as const] : []), { type: "idle" })
      await h.advance(ABORT_CONTINUE_DELAY_MS + 500)
      h.emit({ type: "userMessage", genuine: false })
    }
    h.emit(...userTurn)
    await loopOnce()
    expect(aborts()).toBe(1)
    await loopOnce()
    expect(aborts()).toBe(1)
    expect(h.port.logged(/repetition recoveries in the loop window/)).toBe(true)
    await h.advance(600_000)
    await loopOnce()
    expect(aborts()).toBe(2)
  })

  test("a genuine user message starts the part over: the loop must form again from new text", async () => {
    const h = makeHarness()
    h.emit(...userTurn, ...deltas(SENTENCE.repeat(15)), { type: "userMessage", genuine: true }, { type: "busy" }, ...deltas(SENTENCE.repeat(6)))
    await h.advance(3000)
    expect(h.port.calls).toHaveLength(0)
  })
})
