/**
 * mayAct (runtime/may-act.ts): the one answer to "may we act on this session now?". Each act
 * weighs its facts in a fixed order, and the first that holds is the answer; every fact has a
 * positive case and a control without it.
 */
import { describe, expect, test } from "bun:test"
import { actGate, isGuard, type Act, type HoldFacts } from "../../../src/runtime/may-act.ts"
import { newSessionState, ownAwaiting, ownOpenTools, type SessionState } from "../../../src/core/session-state.ts"
import { holdRecovery, note } from "../../../src/core/intervention.ts"
import { TOOL_WEDGED_CEILING_MS } from "../../../src/options/index.ts"

const NOW = 1_000_000

function world(facts: Partial<HoldFacts> = {}) {
  const state: SessionState = newSessionState("s1", 0)
  const mayAct = actGate({ paused: () => false, pathHold: () => undefined, waitedOnSettled: () => false, ...facts })
  return { state, ask: (act: Act, now = NOW) => mayAct(state, act, now) }
}

const openTool = (state: SessionState, startedAt = NOW - 1_000, callID = "c1") =>
  ownOpenTools(state).set(callID, { tool: "bash", startedAt })

describe("mayAct", () => {
  test("nothing holds: every act may go", () => {
    const { ask } = world()
    for (const act of ["touch", "recovery", "ladder", "prompt", "send", "abort"] as const) expect(ask(act)).toBeUndefined()
  })

  test("the user's guards hold every act, in order: pause, ESC, completion, an open question", () => {
    const paused = world({ paused: (id) => id === "s1" })
    paused.state.cancelledByUser = true
    for (const act of ["touch", "recovery", "ladder", "prompt", "send", "abort"] as const) expect(paused.ask(act)).toEqual({ reason: "paused", by: "user" })
    const esc = world()
    esc.state.cancelledByUser = true
    esc.state.completed = true
    expect(esc.ask("touch")?.reason).toBe("cancelled by the user (ESC)")
    const done = world()
    done.state.completed = true
    expect(done.ask("touch")?.reason).toBe("task marked complete")
    const asked = world()
    ownAwaiting(asked.state).add("q1")
    expect(asked.ask("send")).toMatchObject({ by: "user", reason: expect.stringMatching(/waiting for the user/) })
  })

  test("a path's hold is a fact after the user's guards, and a guard; ours in flight is not", () => {
    const rate = world({ pathHold: () => "rate limited" })
    expect(rate.ask("touch")).toEqual({ reason: "rate limited", by: "path" })
    expect(isGuard(rate.ask("touch"))).toBe(true)
    rate.state.cancelledByUser = true
    expect(rate.ask("touch")?.by).toBe("user")
    const ours = world()
    holdRecovery(ours.state.intervention)
    expect(ours.ask("recovery")).toEqual({ reason: "a recovery is already under way", by: "ours" })
    expect(isGuard(ours.ask("recovery"))).toBe(false)
    // Control: `touch` never weighs what of ours is under way.
    expect(ours.ask("touch")).toBeUndefined()
  })

  test("the ladder also waits for a call of ours out; a recovery does not", () => {
    const { state, ask } = world()
    state.intervention.call.busy = true
    expect(ask("ladder")?.by).toBe("ours")
    expect(ask("recovery")).toBeUndefined()
  })

  test("a prompt waits while one of ours may still land, and says until when", () => {
    const { state, ask } = world()
    note(state.intervention, { type: "promptCalling" }, NOW - 100)
    note(state.intervention, { type: "promptSettled", outcome: "ok", holdUntil: 0 }, NOW - 100)
    const held = ask("prompt")
    expect(held).toMatchObject({ by: "ours", reason: "a prompt of ours may still land" })
    expect(held?.until).toBeGreaterThan(NOW)
    // Control: shown, it has landed.
    note(state.intervention, { type: "ownPromptShown" }, NOW - 50)
    expect(ask("prompt")).toBeUndefined()
  })

  test("a send waits for a session gone from the table, before anything else", () => {
    const { state, ask } = world({ paused: () => true })
    state.dropped = true
    expect(ask("send")).toEqual({ reason: "the session is no longer tracked", by: "gone" })
    expect(ask("abort")?.by).toBe("gone")
    // Control: `touch` does not ask it.
    expect(ask("touch")?.by).toBe("user")
  })

  test("a running tool holds a send and an abort, until the wedged ceiling; the loop's exception lets the abort end it", () => {
    const { state, ask } = world()
    openTool(state)
    expect(ask("send")).toEqual({ reason: 'tool "bash" is running', by: "tool" })
    expect(ask("abort")?.by).toBe("tool")
    expect(ask({ kind: "abort", exception: { kind: "live-tool-loop" } })).toBeUndefined()
    expect(ask("touch")).toBeUndefined()
    const wedged = world()
    openTool(wedged.state, NOW - TOOL_WEDGED_CEILING_MS)
    expect(wedged.ask("send")).toBeUndefined()
  })

  test("an abort waits while one of ours is not reported yet; a send does not", () => {
    const { state, ask } = world()
    state.intervention.abort = { phase: "accepted", until: NOW + 10, holdUntil: NOW + 60_000 }
    expect(ask("abort")).toEqual({ reason: "our abort is not reported by the host yet", by: "ours", until: NOW + 60_000 })
    expect(ask("send")).toBeUndefined()
    // Past its hold it is presumed lost.
    expect(ask("abort", NOW + 60_001)).toBeUndefined()
  })

  test("the host's last look before an abort (the veto) outranks the rest", () => {
    const { state, ask } = world({ paused: () => true })
    expect(ask({ kind: "abort", veto: 'tool "x" is still running' })).toEqual({ reason: 'tool "x" is still running', by: "tool" })
    // Control: without a veto the guard answers.
    expect(ask({ kind: "abort" })?.reason).toBe("paused")
    state.dropped = true
    expect(ask({ kind: "abort", veto: undefined })?.by).toBe("gone")
  })

  test("a send decided at a moment the session has moved on from is an answer to a moment that is over", () => {
    const { state, ask } = world()
    const decided = { lastGenuineUserAt: state.lastGenuineUserAt, lastModelOutputAt: state.lastModelOutputAt, idleEpoch: state.idleEpoch }
    const send: Act = { kind: "send", decided }
    expect(ask(send)).toBeUndefined()
    state.lastModelOutputAt = NOW
    expect(ask(send)).toEqual({ reason: "the model produced output", by: "turn" })
    state.lastGenuineUserAt = NOW
    expect(ask(send)?.reason).toBe("the user wrote")
    // Control: a send that names no moment is not asked about one.
    expect(ask("send")).toBeUndefined()
    state.idleEpoch++
    expect(ask({ kind: "send", decided: { ...decided, lastGenuineUserAt: NOW, lastModelOutputAt: NOW } })?.reason).toBe("the run ended or started")
  })
})
