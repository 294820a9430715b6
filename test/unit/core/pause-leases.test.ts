/** The pause file's rules: leases, claims, which pauses a check keeps. Pure; times are given. */
import { describe, expect, test } from "bun:test"
import {
  MAX_LEASES,
  MIN_LEASE_TTL_MS,
  UNCLAIMED_PAUSE_MAX_MS,
  leaseLapsed,
  leaseTtl,
  mayPrune,
  tidyPauses,
  viewHold,
  type Lease,
  type PauseState,
} from "../../../src/core/pause-leases.ts"

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0)
const lease = (id: string, at: number, ttlMs = 4000): Lease => ({ id, pid: 1, since: at - 60_000, at, ttlMs })
const self = lease("iMe", NOW)
const heldBy = (by: string | undefined, at = NOW - 60_000): PauseState => ({
  all: false,
  sessions: ["ses_a"],
  holds: [by === undefined ? { session: "ses_a", at } : { session: "ses_a", by, at }],
})

describe("leases", () => {
  test("validity is a few check intervals, within bounds", () => {
    expect(leaseTtl(5000)).toBe(20_000)
    expect(leaseTtl(100)).toBe(MIN_LEASE_TTL_MS)
    expect(leaseTtl(Number.NaN)).toBe(MIN_LEASE_TTL_MS)
    expect(leaseTtl(10 * 3_600_000)).toBe(3_600_000)
  })

  test("a lease lapses only once it has gone unrefreshed longer than its validity", () => {
    expect(leaseLapsed(lease("i", NOW - 4000), NOW)).toBe(false)
    expect(leaseLapsed(lease("i", NOW - 4001), NOW)).toBe(true)
    // A validity beyond the bound does not keep it forever.
    expect(leaseLapsed(lease("i", NOW - 3_600_001, Number.MAX_SAFE_INTEGER), NOW)).toBe(true)
  })

  test("a process that was frozen itself does not judge the others on its first check back", () => {
    expect(mayPrune(undefined, NOW, 4000)).toBe(true) // a start
    expect(mayPrune(NOW - 4000, NOW, 4000)).toBe(true)
    expect(mayPrune(NOW - 4001, NOW, 4000)).toBe(false)
  })
})

describe("tidyPauses", () => {
  test("a start keeps a pause whose holder's lease is fresh", () => {
    const state = { ...heldBy("iOther"), leases: [lease("iOther", NOW - 1000)] }
    const r = tidyPauses(state, { now: NOW, self, prune: true })
    expect(r.state.sessions).toEqual(["ses_a"])
    expect(r.dropped).toEqual([])
    expect(r.state.leases?.map((l) => l.id)).toEqual(["iMe", "iOther"])
  })

  test("a start drops a pause whose holder's lease lapsed, or whose holder has no lease at all", () => {
    const lapsed = tidyPauses({ ...heldBy("iOld"), leases: [lease("iOld", NOW - 4001)] }, { now: NOW, self, prune: true })
    expect(lapsed.state.sessions).toEqual([])
    expect(lapsed.dropped).toEqual([{ session: "ses_a", hold: { by: "iOld", at: NOW - 60_000 }, why: "holder-gone" }])
    expect(lapsed.state.leases?.map((l) => l.id)).toEqual(["iMe"])
    expect(tidyPauses(heldBy("iLeft"), { now: NOW, self, prune: true }).state.sessions).toEqual([])
  })

  test("nothing is dropped while pruning is held back, and our own pauses are ours whatever the file says", () => {
    const state = { ...heldBy("iOld"), leases: [lease("iOld", NOW - 60_000)] }
    expect(tidyPauses(state, { now: NOW, self, prune: false }).state.sessions).toEqual(["ses_a"])
    expect(tidyPauses(heldBy("iMe"), { now: NOW, self, prune: true }).state.sessions).toEqual(["ses_a"])
  })

  test("an unclaimed pause of a session this process runs is claimed; one it does not run is not", () => {
    const runs = (id: string) => id === "ses_a"
    const claimed = tidyPauses(heldBy(undefined), { now: NOW, self, runs, prune: true })
    expect(claimed.claimed).toEqual(["ses_a"])
    expect(claimed.state.holds).toEqual([{ session: "ses_a", by: "iMe", at: NOW - 60_000 }])
    const other = tidyPauses(heldBy(undefined), { now: NOW, self, runs: () => false, prune: true })
    expect(other.claimed).toEqual([])
    expect(other.state.holds).toEqual([{ session: "ses_a", at: NOW - 60_000 }])
    // A pause held by a live process is not taken from it.
    const taken = tidyPauses({ ...heldBy("iOther"), leases: [lease("iOther", NOW)] }, { now: NOW, self, runs, prune: true })
    expect(taken.state.holds?.[0]?.by).toBe("iOther")
  })

  test("an unclaimed pause is kept for 24 hours, then dropped", () => {
    const at = NOW - UNCLAIMED_PAUSE_MAX_MS
    expect(tidyPauses(heldBy(undefined, at + 1), { now: NOW, self, prune: true }).state.sessions).toEqual(["ses_a"])
    const expired = tidyPauses(heldBy(undefined, at), { now: NOW, self, prune: true })
    expect(expired.state.sessions).toEqual([])
    expect(expired.dropped).toEqual([{ session: "ses_a", hold: { at }, why: "unclaimed-expired" }])
    // The CLI (no lease of its own) applies the same rule.
    expect(tidyPauses(heldBy(undefined, at), { now: NOW, prune: true }).state.sessions).toEqual([])
  })

  test("a pause from an older file (no holder recorded) counts as unclaimed since now", () => {
    const r = tidyPauses({ all: true, sessions: ["ses_a"] }, { now: NOW, self, prune: true })
    expect(r.state.sessions).toEqual(["ses_a"])
    expect(r.state.holds).toEqual([{ session: "ses_a", at: NOW }])
    expect(r.state.all).toBe(true)
    expect(r.state.allHold).toEqual({ at: NOW })
  })

  test("the pause of all sessions follows the same rules and is never claimed", () => {
    const base: PauseState = { all: true, sessions: [], allHold: { at: NOW - 1000 } }
    expect(tidyPauses(base, { now: NOW, self, runs: () => true, prune: true }).state.allHold).toEqual({ at: NOW - 1000 })
    const expired = tidyPauses({ ...base, allHold: { at: NOW - UNCLAIMED_PAUSE_MAX_MS } }, { now: NOW, self, prune: true })
    expect([expired.state.all, expired.dropped[0]?.session, expired.dropped[0]?.why]).toEqual([false, undefined, "unclaimed-expired"])
    const held = { ...base, allHold: { by: "iOld", at: NOW - 1000 }, leases: [lease("iOld", NOW - 1000)] }
    expect(tidyPauses(held, { now: NOW, self, prune: true }).state.all).toBe(true)
    expect(tidyPauses(held, { now: NOW + 3001, self: lease("iMe", NOW + 3001), prune: true }).state.all).toBe(false)
  })

  test("dates in the future are read as now: nothing is held forever by a date far ahead", () => {
    const far = NOW + 10 * UNCLAIMED_PAUSE_MAX_MS
    const state: PauseState = { ...heldBy("iOther", far), leases: [lease("iOther", far)] }
    const first = tidyPauses(state, { now: NOW, self, prune: true })
    expect(first.state.holds?.[0]?.at).toBe(NOW)
    expect(first.state.leases?.find((l) => l.id === "iOther")?.at).toBe(NOW)
    const later = NOW + 4001
    expect(tidyPauses(first.state, { now: later, self: lease("iMe", later), prune: true }).state.sessions).toEqual([])
  })

  test("at most MAX_LEASES leases are kept, the freshest, ours always", () => {
    const many = Array.from({ length: MAX_LEASES + 10 }, (_, i) => lease(`i${i}`, NOW - i))
    const r = tidyPauses({ all: false, sessions: [], leases: many }, { now: NOW, self, prune: true })
    expect(r.state.leases).toHaveLength(MAX_LEASES)
    expect(r.state.leases?.[0]?.id).toBe("iMe")
    expect(r.state.leases?.at(-1)?.id).toBe(`i${MAX_LEASES - 2}`)
  })
})

describe("viewHold", () => {
  const leases = [lease("iOther", NOW - 1000), lease("iOld", NOW - 10_000)]
  test("names the holder as seen from one instance", () => {
    expect(viewHold({ by: "iMe", at: NOW - 5 }, leases, NOW, "iMe").kind).toBe("self")
    expect(viewHold({ by: "iOther", at: NOW - 5 }, leases, NOW, "iMe").kind).toBe("other")
    expect(viewHold({ by: "iOld", at: NOW - 5 }, leases, NOW, "iMe").kind).toBe("gone")
    expect(viewHold({ by: "iNobody", at: NOW - 5 }, leases, NOW).kind).toBe("gone")
    expect(viewHold({ at: NOW - 5 }, leases, NOW)).toEqual({ kind: "unclaimed", at: NOW - 5, expiresAt: NOW - 5 + UNCLAIMED_PAUSE_MAX_MS })
  })
})
