/**
 * Nudges held by `activeUserWindowMs` are held, not dropped: a turn that ends by choice with a
 * todo still open, inside the window after the user's message, gets its reminder once the
 * window is over, unless something happened in the session meanwhile. Played through each
 * adapter on the simulated clock.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { HOSTS, type NeutralHost, type Todo } from "../../support/neutral-hosts.ts"

const S = "ses_window"
/** The default window, stated here so the timeline reads in its terms. */
const WINDOW_MS = 300_000
const OPEN: Todo[] = [
  { content: "write the parser tests", status: "in_progress" },
  { content: "ship the release", status: "pending" },
]
const DONE: Todo[] = OPEN.map((t) => ({ ...t, status: "completed" }))

let running: NeutralHost | undefined
afterEach(() => running?.stop())

/**
 * The user asks, the model writes its todos and ends the turn with `closing` 30 s later; the
 * turn has been judged (and held) by the time this returns, 60 s after the user's message.
 */
async function heldTurn(make: () => NeutralHost, closing = "All set, the parser works 🎉"): Promise<NeutralHost> {
  const h = (running = make())
  h.userTurn(S)
  await h.advance(10_000)
  h.todowrite(S, OPEN)
  h.delta(S)
  await h.advance(20_000)
  h.finishRun(S, closing)
  await h.advance(30_000)
  return h
}

/** To just before the window after the user's message (at 0) ends, then just past it. */
async function acrossWindowEnd(h: NeutralHost, elapsed = 60_000): Promise<{ before: number; after: number }> {
  await h.advance(WINDOW_MS - elapsed - 2_000)
  const before = h.promptsTo(S)
  await h.advance(2_000 + 2_000)
  return { before, after: h.promptsTo(S) }
}

for (const [name, make] of HOSTS) {
  describe(`held by the active-user window, on ${name}`, () => {
    test("🎉 with an open todo inside the window: the reminder goes out right after the window, once", async () => {
      const h = await heldTurn(make)
      expect(h.promptsTo(S)).toBe(0)
      const { before, after } = await acrossWindowEnd(h)
      expect(before).toBe(0)
      expect(after).toBe(1)
      expect(h.promptTexts(S)[0]).toContain("write the parser tests")
      // One judgement: nothing more from the held turn (the reminder's own run keeps streaming).
      for (let i = 0; i < 6; i++) {
        h.delta(S)
        await h.advance(20_000)
      }
      expect(h.promptsTo(S)).toBe(1)
    })

    test("a done claim with an open todo is held the same way", async () => {
      const h = await heldTurn(make, "I have completed the task.")
      const { before, after } = await acrossWindowEnd(h)
      expect([before, after]).toEqual([0, 1])
    })

    test("control: a new user message before the window ends: no delayed reminder from the old turn", async () => {
      const h = await heldTurn(make)
      await h.advance(120_000)
      h.userTurn(S, "actually, also rename the module")
      h.delta(S)
      await h.advance(5_000)
      h.finishRun(S, "Renamed the module to parser.ts.")
      const { before, after } = await acrossWindowEnd(h, 60_000 + 125_000)
      expect([before, after]).toEqual([0, 0])
      // The newer turn also stops with the todo open: it gets the open-todo reminder at the end
      // of its own window (one, not two: the old turn's hold was voided).
      await h.advance(WINDOW_MS)
      expect(h.promptsTo(S)).toBe(1)
    })

    test("control: the newer turn held in its own window is judged when that window ends, not the old one", async () => {
      const h = await heldTurn(make)
      await h.advance(120_000)
      h.userTurn(S, "and the docs too, please") // at 180 s: its window ends at 480 s
      h.delta(S)
      await h.advance(5_000)
      h.finishRun(S, "Docs updated 🎉")
      const old = await acrossWindowEnd(h, 60_000 + 125_000)
      expect([old.before, old.after]).toEqual([0, 0])
      await h.advance(180_000 - 4_000 - 2_000)
      expect(h.promptsTo(S)).toBe(0)
      await h.advance(4_000)
      expect(h.promptsTo(S)).toBe(1)
    })

    test("control: every todo completed in between: nothing", async () => {
      const h = await heldTurn(make)
      h.todosChangeWhileIdle(S, DONE)
      const { after } = await acrossWindowEnd(h)
      expect(after).toBe(0)
    })

    test("control: the session became busy: nothing", async () => {
      const h = await heldTurn(make)
      await h.advance(WINDOW_MS - 60_000 - 60_000)
      h.hostRunStarts(S)
      for (let i = 0; i < 6; i++) {
        h.delta(S)
        await h.advance(20_000)
      }
      expect(h.promptsTo(S)).toBe(0)
    })

    test("control: ESC in between: nothing", async () => {
      const h = await heldTurn(make)
      await h.advance(60_000)
      h.hostRunStarts(S)
      await h.advance(1_000)
      h.userEsc(S)
      const { after } = await acrossWindowEnd(h, 60_000 + 61_000)
      expect(after).toBe(0)
      await h.advance(WINDOW_MS)
      expect(h.promptsTo(S)).toBe(0)
    })

    test("control: paused in between: nothing", async () => {
      const h = await heldTurn(make)
      h.pause(S)
      const { after } = await acrossWindowEnd(h)
      expect(after).toBe(0)
    })

    test("a subagent's held turn is not judged again (its answer already went to the parent); control: a top-level one is", async () => {
      const h = (running = make())
      h.userTurn("ses_parent")
      h.toolStart("ses_parent", "call_sub", h.subagentTool)
      h.childStarts(S, "ses_parent")
      await h.advance(10_000)
      h.finishRun(S, "I have completed the task.")
      await h.advance(WINDOW_MS + 10_000)
      expect(h.promptsTo(S)).toBe(0)
      h.stop()

      const top = await heldTurn(make, "I have completed the task.")
      top.todosChangeWhileIdle(S, DONE)
      const { after } = await acrossWindowEnd(top)
      expect(after).toBe(1) // the request for a report the done claim gets once the window is over
    })

    test("unchanged: a malfunction inside the window is recovered at once, and only once", async () => {
      const h = await heldTurn(make, 'Now running it.\n<tool_call>{"name": "bash", "arguments": {"command": "bun test"}}</tool_call>')
      expect(h.promptsTo(S)).toBe(1)
      // The model makes the call for real and answers; nothing is held for the window's end.
      h.delta(S)
      await h.advance(5_000)
      h.finishRun(S, "Ran the tests: all green.")
      const { after } = await acrossWindowEnd(h, 65_000)
      // The corrected turn itself is no malfunction: it stops with the todo still open, so its
      // open-todo reminder waits for the window and follows it; the tool-text one is not repeated.
      expect(after).toBe(2)
      expect(h.promptTexts(S)[1]).toMatch(/todo list still has/i)
    })
  })
}
