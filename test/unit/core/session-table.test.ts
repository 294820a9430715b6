/** The session table: a dropped session's in-flight call slot outlives it, boundedly. */
import { describe, expect, test } from "bun:test"
import { MAX_HANDED_SLOTS, SessionTable } from "../../../src/core/session-table.ts"

/** A session whose host call is in flight, dropped as the host deleted it. */
function dropMidCall(table: SessionTable, id: string) {
  const state = table.touch(id, 0)
  state.intervention.call.busy = true
  table.drop(state, true)
  return state.intervention.call
}

describe("call slot across a drop", () => {
  test("a session revived while its dropped predecessor's call is in flight takes over that slot", () => {
    const table = new SessionTable(() => {})
    const slot = dropMidCall(table, "s1")
    const revived = table.touch("s1", 1)
    expect(revived.intervention.call).toBe(slot)
    expect(revived.intervention.call.busy).toBe(true)
    // The first call settling frees the revived session too.
    slot.busy = false
    expect(revived.intervention.call.busy).toBe(false)
  })

  test("control: a call that settled before the revival leaves a fresh, free slot", () => {
    const table = new SessionTable(() => {})
    const slot = dropMidCall(table, "s1")
    slot.busy = false
    const revived = table.touch("s1", 1)
    expect(revived.intervention.call).not.toBe(slot)
    expect(revived.intervention.call.busy).toBe(false)
  })

  test("kept slots are bounded: settled ones go first, then the oldest busy one", () => {
    const table = new SessionTable(() => {})
    dropMidCall(table, "first")
    dropMidCall(table, "settled").busy = false
    for (let i = 1; i < MAX_HANDED_SLOTS; i++) dropMidCall(table, `s${i}`)
    // One entry over the cap, but the settled one made room: the oldest busy slot is still kept.
    expect(table.touch("first", 1).intervention.call.busy).toBe(true)
    for (let i = 0; i <= MAX_HANDED_SLOTS; i++) dropMidCall(table, `t${i}`)
    // One over the cap: the oldest busy slot was let go.
    expect(table.touch("t0", 1).intervention.call.busy).toBe(false)
    expect(table.touch(`t${MAX_HANDED_SLOTS}`, 1).intervention.call.busy).toBe(true)
  })
})
