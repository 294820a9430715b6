/** The session table: a dropped session's in-flight call slot outlives it, boundedly. */
import { describe, expect, test } from "bun:test"
import { MAX_HANDED_SLOTS, MAX_TRACKED_SESSIONS, SessionTable } from "../../../src/core/session-table.ts"

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

describe("a session the host deleted", () => {
  /** `child` (ESC'd by its user) of `parent`, both swept while idle: only tombstones are left. */
  function sweptPair(): SessionTable {
    const table = new SessionTable(() => {})
    const child = table.touch("child", 0)
    child.parentID = "parent"
    child.cancelledByUser = true
    const parent = table.touch("parent", 0)
    parent.cancelledByUser = true
    table.sweep(Number.MAX_SAFE_INTEGER)
    expect(table.size).toBe(0)
    return table
  }

  test("deleted after a sweep leaves nothing behind, and its swept child's link to it ends", () => {
    const table = sweptPair()
    table.deleted("parent")
    expect(table.touch("parent", 1).cancelledByUser).toBe(false)
    const child = table.touch("child", 1)
    expect(child.parentID).toBe("parent")
    expect(child.parentDeleted).toBe(true)
    expect(child.cancelledByUser).toBe(true)
  })

  test("control: swept and not deleted, both come back with their latches and the link", () => {
    const table = sweptPair()
    expect(table.touch("parent", 1).cancelledByUser).toBe(true)
    expect(table.touch("child", 1).parentDeleted).toBe(false)
  })

  test("a tracked child's link ends with its tracked parent; a session of another parent keeps its link", () => {
    const table = new SessionTable(() => {})
    table.touch("parent", 0)
    const child = table.touch("child", 0)
    child.parentID = "parent"
    const other = table.touch("other", 0)
    other.parentID = "elsewhere"
    table.deleted("parent")
    expect(table.get("parent")).toBeUndefined()
    expect(child.parentDeleted).toBe(true)
    expect(other.parentDeleted).toBe(false)
  })
})

describe("eviction at the ceiling takes the least recently seen", () => {
  /** The table full of idle sessions s0..s(MAX-1), seen in that order, then s0 seen again when `retouch`. */
  function full(retouch: boolean) {
    const dropped: string[] = []
    const table = new SessionTable((state) => dropped.push(state.id))
    for (let i = 0; i < MAX_TRACKED_SESSIONS; i++) table.touch(`s${i}`, i)
    if (retouch) table.touch("s0", MAX_TRACKED_SESSIONS)
    table.touch("new", MAX_TRACKED_SESSIONS + 1)
    return { table, dropped }
  }

  test("a session seen again after the others outlives them", () => {
    const { table, dropped } = full(true)
    expect(dropped).toEqual(["s1"])
    expect(table.get("s0")).toBeDefined()
    // The order read back is the recency order: s0 just before the newcomer.
    expect([...table.values()].slice(-2).map((s) => s.id)).toEqual(["s0", "new"])
  })

  test("control: not seen again, the first one seen goes first", () => {
    const { table, dropped } = full(false)
    expect(dropped).toEqual(["s0"])
    expect(table.get("s1")).toBeDefined()
  })
})
