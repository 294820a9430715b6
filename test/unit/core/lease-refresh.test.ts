/** When a lease check must write the pause file, and when reading it is enough. Pure; times are given. */
import { describe, expect, test } from "bun:test"
import { leaseWriteDue, refreshAge, type RefreshInput } from "../../../src/core/lease-refresh.ts"
import { UNCLAIMED_PAUSE_MAX_MS, leaseTtl, type Lease, type PauseState } from "../../../src/core/pause-leases.ts"
import { serializePauseState } from "../../../src/stores/pause-marker.ts"

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0)
const INTERVAL = 5000
const TTL = leaseTtl(INTERVAL) // 20 s
const SINCE = NOW - 3_600_000
const mine = (at: number, over: Partial<Lease> = {}): Lease => ({ id: "iMe", since: SINCE, at, ttlMs: TTL, pid: 7, host: "box", ...over })
const other = (id: string, at: number): Lease => ({ id, since: at - 60_000, at, ttlMs: TTL, pid: 8 })
/** What the keeper passes: our lease stamped now, as a write would put it. */
const input = (over: Partial<RefreshInput> = {}): RefreshInput => ({ now: NOW, self: mine(NOW), prune: true, intervalMs: INTERVAL, ...over })
const due = (state: PauseState, over: Partial<RefreshInput> = {}) => leaseWriteDue(state, input(over), serializePauseState)

/** A settled file: our lease refreshed `age` ago, a pause of ours, one held by another live process. */
function settled(age: number): PauseState {
  return {
    all: false,
    sessions: ["ses_a", "ses_b"],
    holds: [
      { session: "ses_a", by: "iMe", at: NOW - 60_000 },
      { session: "ses_b", by: "iOther", at: NOW - 30_000 },
    ],
    leases: [mine(NOW - age), other("iOther", NOW - 1000)],
  }
}

describe("leaseWriteDue", () => {
  test("a fresh lease and nothing to tidy: no write", () => {
    expect(due(settled(0))).toBe(false)
    expect(due(settled(TTL / 2 - 1))).toBe(false)
    expect(due({ all: false, sessions: [], leases: [mine(NOW - 4000)] })).toBe(false)
  })

  test("our lease half way to lapsing is rewritten (negative control: one ms younger is not)", () => {
    expect(due(settled(TTL / 2))).toBe(true)
    expect(due(settled(TTL / 2 - 1))).toBe(false)
    expect(due(settled(TTL + 1))).toBe(true)
  })

  test("our lease missing, or not as we would write it apart from its stamp: a write", () => {
    expect(due({ all: false, sessions: [] })).toBe(true)
    expect(due({ all: false, sessions: [], leases: [other("iOther", NOW)] })).toBe(true)
    for (const over of [{ ttlMs: TTL * 2 }, { since: SINCE + 1 }, { pid: 9 }, { host: "elsewhere" }, { host: undefined }]) {
      expect(due({ all: false, sessions: [], leases: [mine(NOW - 1000, over)] })).toBe(true)
    }
  })

  test("a stamp ahead of the clock (the clock stepped back) is rewritten", () => {
    expect(due({ all: false, sessions: [], leases: [mine(NOW + 1)] })).toBe(true)
    expect(due({ all: false, sessions: [], leases: [mine(NOW)] })).toBe(false)
  })

  test("an unclaimed pause of a session we run is a claim to write; one we do not run is not", () => {
    const cli: PauseState = { ...settled(1000), sessions: ["ses_a", "ses_b", "ses_c"], holds: [...settled(1000).holds!, { session: "ses_c", at: NOW - 500 }] }
    expect(due(cli, { runs: (id) => id === "ses_c" })).toBe(true)
    expect(due(cli, { runs: (id) => id === "ses_x" })).toBe(false)
    expect(due(cli)).toBe(false)
  })

  test("a lapsed holder whose pauses the tidy drops is a write; with pruning held back it is not", () => {
    const lapsed: PauseState = { ...settled(1000), leases: [mine(NOW - 1000), other("iOther", NOW - TTL - 1)] }
    expect(due(lapsed)).toBe(true)
    expect(due(lapsed, { prune: false })).toBe(false)
    // A lapsed lease that holds nothing is pruned from the file too.
    expect(due({ all: false, sessions: [], leases: [mine(NOW - 1000), other("iGone", NOW - TTL - 1)] })).toBe(true)
  })

  test("an unclaimed pause past 24 hours is dropped: a write", () => {
    const old: PauseState = { all: true, sessions: [], allHold: { at: NOW - UNCLAIMED_PAUSE_MAX_MS }, leases: [mine(NOW - 1000)] }
    expect(due(old)).toBe(true)
    expect(due({ ...old, allHold: { at: NOW - UNCLAIMED_PAUSE_MAX_MS + 1 } })).toBe(false)
  })

  test("pauses with no holder recorded (an older writer) get their stamp written", () => {
    expect(due({ all: false, sessions: ["ses_a"], leases: [mine(NOW - 1000)] })).toBe(true)
    expect(due({ all: true, sessions: [], leases: [mine(NOW - 1000)] })).toBe(true)
  })

  test("orders that mean nothing do not count as a change (else two processes would rewrite each other's file in turn)", () => {
    const s = settled(1000)
    expect(due({ ...s, leases: [...s.leases!].reverse(), holds: [...s.holds!].reverse() })).toBe(false)
    const reordered = s.leases!.map((l) => Object.fromEntries(Object.entries(l).reverse()) as Lease)
    expect(due({ ...s, leases: reordered })).toBe(false)
    // Negative control: reordered, with a claim due, it is still a write.
    const unclaimed = [{ session: "ses_b", at: NOW - 30_000 }, { session: "ses_a", by: "iMe", at: NOW - 60_000 }]
    expect(due({ ...s, leases: [...reordered].reverse(), holds: unclaimed }, { runs: (id) => id === "ses_b" })).toBe(true)
    expect(due({ ...s, leases: reordered, holds: unclaimed })).toBe(false)
  })

  test("another lease's stamp in the future is clamped: a write", () => {
    expect(due({ all: false, sessions: [], leases: [mine(NOW - 1000), other("iOther", NOW + 5000)] })).toBe(true)
  })
})

describe("refreshAge", () => {
  test("half the validity, or less when the validity leaves under one interval of slack past it", () => {
    expect(refreshAge(leaseTtl(5000), 5000)).toBe(10_000)
    expect(refreshAge(leaseTtl(500), 500)).toBe(1500) // clamped up to 3 s: half of it
    // Clamped down to an hour: 20-minute checks rewrite it at 20 minutes, so the next check may still be a whole interval late.
    expect(refreshAge(leaseTtl(20 * 60_000), 20 * 60_000)).toBe(20 * 60_000)
    expect(refreshAge(leaseTtl(45 * 60_000), 45 * 60_000)).toBe(0)
    expect(refreshAge(leaseTtl(5000), Number.NaN)).toBe(0)
  })
})
