/** abortThenPrompt: when its promise settles, which callers time what follows from. */
import { describe, expect, test } from "bun:test"
import { abortThenPrompt, type OpenCallException } from "../../../src/core/actions.ts"
import { cancelRecovery } from "../../../src/core/intervention.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/index.ts"
import { bareContext } from "../../support/bare-context.ts"
import { settle } from "../../support/harness.ts"
import { ownOpenTools } from "../../../src/core/session-state.ts"

/** `childrenSettled`: what the paths say of the children an orphan parent's calls wait on (mayAct's fact). */
function setup(childrenSettled = false) {
  const { time, port, pauses, ctx, state } = bareContext({ waitedOnSettled: () => childrenSettled })
  let done = false
  const start = (exception?: OpenCallException) => {
    void abortThenPrompt(ctx, state, { kind: "continue", label: "send continue", text: "go on" }, undefined, exception).then(() => {
      done = true
    })
  }
  const advance = async (ms: number) => {
    time.advance(ms)
    await settle()
  }
  return { time, port, pauses, state, start, advance, isDone: () => done }
}

describe("abortThenPrompt settles when the whole action is over", () => {
  test("after the continue's host call settled, not when the abort returned", async () => {
    const s = setup()
    let answer: () => void = () => undefined
    s.port.send = (request) => {
      s.port.calls.push({ kind: "send", at: s.time.now(), request })
      return new Promise<void>((resolve) => (answer = resolve))
    }
    s.start()
    await s.advance(0)
    expect(s.port.actions).toEqual(["abort"])
    expect(s.isDone()).toBe(false) // the pause before the continue
    await s.advance(ABORT_CONTINUE_DELAY_MS)
    console.log(JSON.stringify(s.port.logs ?? s.port.calls))
    expect(s.port.actions).toEqual(["abort", "send"])
    expect(s.isDone()).toBe(false) // the continue's call is still out
    await s.advance(10_000)
    expect(s.isDone()).toBe(false)
    answer()
    await settle()
    expect(s.isDone()).toBe(true)
  })

  test("when the pause is cancelled (a user turn, ESC, another recovery): no continue, and it settles", async () => {
    const s = setup()
    s.start()
    await s.advance(1_000)
    expect(s.isDone()).toBe(false)
    cancelRecovery(s.state.intervention)
    await settle()
    expect(s.isDone()).toBe(true)
    await s.advance(ABORT_CONTINUE_DELAY_MS)
    expect(s.port.actions).toEqual(["abort"])
  })

  test("cancelled while the history is read for the veto (a user turn, ESC, a newer recovery): no abort goes out", async () => {
    const read = (s: ReturnType<typeof setup>) => {
      let answer: (messages: []) => void = () => undefined
      s.port.readMessages = () => new Promise((resolve) => (answer = resolve))
      s.start()
      return (messages: []) => answer(messages)
    }
    const cancelled = setup()
    const answerCancelled = read(cancelled)
    await cancelled.advance(0)
    cancelRecovery(cancelled.state.intervention)
    answerCancelled([])
    await cancelled.advance(0)
    expect(cancelled.isDone()).toBe(true)
    expect(cancelled.port.actions).toEqual([])
    // Negative control: the same read answered with nothing cancelled meanwhile lets the abort out.
    const kept = setup()
    const answerKept = read(kept)
    await kept.advance(0)
    answerKept([])
    await kept.advance(0)
    expect(kept.port.actions).toEqual(["abort"])
  })

  test("at once when nothing will be sent: held, or the abort failed", async () => {
    const held = setup()
    held.pauses.pause("s1")
    held.start()
    await settle()
    expect(held.isDone()).toBe(true)
    expect(held.port.calls).toHaveLength(0)

    // A live run whose abort was refused is left alone: no continue into it.
    const failed = setup()
    failed.state.busy = true
    failed.port.abortBehaviour = "reject"
    failed.start()
    await settle()
    expect(failed.isDone()).toBe(true)
    await failed.advance(ABORT_CONTINUE_DELAY_MS)
    expect(failed.port.actions).toEqual(["abort"])
  })

  test("an abort refused on an idle session (nothing to stop: 2.x says interrupted: false) still resumes it", async () => {
    const s = setup()
    s.port.abortBehaviour = "reject"
    s.start()
    await s.advance(0)
    await s.advance(ABORT_CONTINUE_DELAY_MS)
    expect(s.port.actions).toEqual(["abort", "send"])
  })
})

describe("the open-tool guard and its two exceptions", () => {
  const ORPHAN: OpenCallException = { kind: "orphan-parent" }
  // As apply-signal records them: the host's subagent tool is a wait on the child unless it runs in the background.
  const open = (s: ReturnType<typeof setup>, callID: string, tool: string, subagent?: "wait" | "background") =>
    ownOpenTools(s.state).set(callID, { tool, startedAt: s.time.now(), subagent: subagent ?? (tool === "task" ? "wait" : undefined) })

  test("an orphan parent's open subagent call, every child settled: the abort goes out", async () => {
    const s = setup(true)
    open(s, "call_sub", "task")
    s.start(ORPHAN)
    await settle()
    expect(s.port.actions).toEqual(["abort"])
  })

  test("control: a background subagent call is not waited on, so the exception does not cover it: refused", async () => {
    const s = setup(true)
    open(s, "call_sub", "task", "background")
    s.start(ORPHAN)
    await settle()
    expect(s.port.calls).toHaveLength(0)
  })

  test("control: the same call without the exception: refused", async () => {
    const s = setup(true)
    open(s, "call_sub", "task")
    s.start()
    await settle()
    expect(s.port.calls).toHaveLength(0)
    expect(s.isDone()).toBe(true)
  })

  test("control: a child no longer settled when the abort would go out: refused", async () => {
    const s = setup(false)
    open(s, "call_sub", "task")
    s.start(ORPHAN)
    await settle()
    expect(s.port.calls).toHaveLength(0)
  })

  test("control: another tool open beside the subagent call, or instead of it: refused", async () => {
    const beside = setup(true)
    open(beside, "call_sub", "task")
    open(beside, "call_bash", "bash")
    beside.start(ORPHAN)
    const instead = setup(true)
    open(instead, "call_bash", "bash")
    instead.start(ORPHAN)
    await settle()
    expect(beside.port.calls).toHaveLength(0)
    expect(instead.port.calls).toHaveLength(0)
  })

  test("a proven live tool loop passes any open call", async () => {
    const s = setup()
    open(s, "call_bash", "bash")
    s.start({ kind: "live-tool-loop" })
    await settle()
    expect(s.port.actions).toEqual(["abort"])
  })
})
