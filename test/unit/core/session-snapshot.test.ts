/** Carrying a session's state to the next plugin instance: latches and budgets, never work in flight or junk. */
import { describe, expect, test } from "bun:test"
import { restoreState, snapshotOf } from "../../../src/core/session-snapshot.ts"
import { newSessionState } from "../../../src/core/session-state.ts"

describe("session snapshots", () => {
  test("latches, budgets and the optional facts of the right type survive the trip", () => {
    const state = newSessionState("s1", 1000)
    state.cancelledByUser = true
    state.lifetimeContinues = 3
    state.parentID = "p"
    state.lastSendAt = 900
    state.todos = [{ content: "a", status: "pending" }]
    const back = restoreState(snapshotOf(state), 2000)!
    expect(back.cancelledByUser).toBe(true)
    expect(back.lifetimeContinues).toBe(3)
    expect(back.parentID).toBe("p")
    expect(back.lastSendAt).toBe(900)
    expect(back.todos).toEqual([{ content: "a", status: "pending" }])
  })

  test("an abort of ours in flight and a dropped mark stay with the instance that made them", () => {
    const state = newSessionState("s1", 1000)
    state.ownAbort = { phase: "calling", until: 5000 }
    state.dropped = true
    const back = restoreState(snapshotOf(state), 2000)!
    expect(back.ownAbort).toBeUndefined()
    expect(back.dropped).toBeUndefined()
  })

  test("optional fields of the wrong type, and fields a state does not have, are left out", () => {
    const back = restoreState({ id: "s1", ownAbort: "junk", dropped: true, lastSendAt: "x", parentID: 42, todos: "none", discoveryMisses: Number.NaN, bogus: 1 }, 2000)!
    expect(back.ownAbort).toBeUndefined()
    expect(back.dropped).toBeUndefined()
    expect(back.lastSendAt).toBeUndefined()
    expect(back.parentID).toBeUndefined()
    expect(back.todos).toBeUndefined()
    expect(back.discoveryMisses).toBeUndefined()
    expect("bogus" in back).toBe(false)
  })
})
