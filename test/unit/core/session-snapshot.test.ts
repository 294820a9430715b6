/** Carrying a session's state to the next plugin instance: latches and budgets, never work in flight or junk. */
import { describe, expect, test } from "bun:test"
import { restoreState, snapshotOf } from "../../../src/core/session-snapshot.ts"
import { newSessionState } from "../../../src/core/session-state.ts"
import { markSent } from "../../../src/core/intervention.ts"

describe("session snapshots", () => {
  test("latches, budgets and the optional facts of the right type survive the trip", () => {
    const state = newSessionState("s1", 1000)
    state.cancelledByUser = true
    state.lifetimeContinues = 3
    state.parentID = "p"
    state.intervention.prompt.acceptedAt = 900
    markSent(state.intervention, "todo-nudge")
    state.todos = [{ content: "a", status: "pending" }]
    const back = restoreState(snapshotOf(state), 2000)!
    expect(back.cancelledByUser).toBe(true)
    expect(back.lifetimeContinues).toBe(3)
    expect(back.parentID).toBe("p")
    expect(back.intervention.prompt.acceptedAt).toBe(900)
    expect([...back.intervention.sentThisTurn]).toEqual(["todo-nudge"])
    expect(back.todos).toEqual([{ content: "a", status: "pending" }])
  })

  test("an abort of ours in flight and a dropped mark stay with the instance that made them", () => {
    const state = newSessionState("s1", 1000)
    state.intervention.abort = { phase: "calling", until: 5000 }
    state.intervention.call.busy = true
    state.intervention.underWay = { cancelled: false }
    state.intervention.prompt.calledAt = 950
    state.dropped = true
    const back = restoreState(snapshotOf(state), 2000)!
    expect(back.intervention.abort).toBeUndefined()
    expect(back.intervention.call.busy).toBe(false)
    expect(back.intervention.underWay).toBeUndefined()
    expect(back.intervention.prompt).toEqual({})
    expect(back.dropped).toBeUndefined()
  })

  test("a snapshot of the older shape: lastSendAt and the \"sent:\" turn counts become the record's", () => {
    const older = { id: "s1", lastSendAt: 900, turnFeatureCounts: new Map([["todo-nudge", 1], ["sent:todo-nudge", 1]]), pendingAction: 1, callSlot: { busy: true }, ownAbort: { phase: "accepted", until: 9 } }
    const back = restoreState(older, 2000)!
    expect(back.intervention.prompt).toEqual({ acceptedAt: 900 })
    expect([...back.intervention.sentThisTurn]).toEqual(["todo-nudge"])
    expect(back.intervention.abort).toBeUndefined()
    expect(back.intervention.call.busy).toBe(false)
    expect("turnFeatureCounts" in back || "pendingAction" in back || "callSlot" in back).toBe(false)
  })

  test("optional fields of the wrong type, and fields a state does not have, are left out", () => {
    const back = restoreState({ id: "s1", ownAbort: "junk", dropped: true, lastSendAt: "x", parentID: 42, todos: "none", discoveryMisses: Number.NaN, bogus: 1 }, 2000)!
    expect(back.intervention.abort).toBeUndefined()
    expect(back.dropped).toBeUndefined()
    expect(back.intervention.prompt.acceptedAt).toBeUndefined()
    expect(back.parentID).toBeUndefined()
    expect(back.todos).toBeUndefined()
    expect(back.discoveryMisses).toBeUndefined()
    expect("bogus" in back).toBe(false)
  })
})
