/** The pure rules of the rate-limit wait file: parsing, bounds, who takes a wait over after a restart. */
import { describe, expect, test } from "bun:test"
import {
  CARRIED_WAIT_STALE_MS,
  MAX_CARRIED_WAITS,
  boundedWaits,
  claimWaits,
  mayTakeOver,
  parseWaits,
  restoredWait,
  withWait,
  withoutOwnerWaits,
  withoutWait,
  type CarriedWait,
  type WaitOwner,
} from "../../../src/core/carried-waits.ts"

const NOW = Date.UTC(2026, 0, 1, 12)
const dead: WaitOwner = { pid: 100, startedAt: 1, host: "h" }
const me: WaitOwner = { pid: 200, startedAt: 2, host: "h" }
const other: WaitOwner = { pid: 300, startedAt: 3, host: "h" }
const alive = (o: WaitOwner) => o.pid !== dead.pid
const wait = (sessionID: string, owner: WaitOwner, until = NOW + 60_000, directory = "/p"): CarriedWait => ({ sessionID, rung: 1, until, owner, directory })
const check = { self: me, directory: "/p", alive, wallNow: NOW }

describe("parsing the wait file", () => {
  test("valid entries are kept with their fields; a malformed one is skipped with a reason", () => {
    const parsed = parseWaits({
      waits: [
        { sessionID: "s1", rung: 2, until: NOW, since: NOW - 5, agent: "build", model: { providerID: "p", modelID: "m" }, owner: dead, directory: "/p" },
        { sessionID: "s2", rung: 0, until: NOW, owner: dead },
        { sessionID: "s3", rung: 1, until: "soon", owner: dead },
        { sessionID: "s4", rung: 1, until: NOW },
        "junk",
      ],
    })
    expect(parsed.waits).toEqual([{ sessionID: "s1", rung: 2, until: NOW, since: NOW - 5, agent: "build", model: { providerID: "p", modelID: "m" }, owner: dead, directory: "/p" }])
    expect(parsed.skipped).toEqual(["session s2: no rung", "session s3: no end time", "session s4: no owner", "not an object"])
  })

  test("a file that is not a wait list throws (the store reads it as empty and warns)", () => {
    expect(() => parseWaits([])).toThrow()
    expect(() => parseWaits({ waits: "x" })).toThrow()
    expect(() => parseWaits(null)).toThrow()
    // Negative control: an empty list is a list.
    expect(parseWaits({ waits: [] })).toEqual({ waits: [], skipped: [] })
  })
})

describe("bounds", () => {
  test("at most MAX_CARRIED_WAITS entries: the ones that end first are dropped", () => {
    const many = Array.from({ length: MAX_CARRIED_WAITS + 5 }, (_, i) => wait(`s${i}`, me, NOW + i))
    const kept = boundedWaits(many, NOW)
    expect(kept).toHaveLength(MAX_CARRIED_WAITS)
    expect(kept.map((w) => w.sessionID)).not.toContain("s0")
    expect(kept.map((w) => w.sessionID)).toContain(`s${MAX_CARRIED_WAITS + 4}`)
  })

  test("a wait that ended more than a day ago is dropped; one that ended a minute ago is kept (its continue is still due)", () => {
    const kept = boundedWaits([wait("old", dead, NOW - CARRIED_WAIT_STALE_MS - 1), wait("recent", dead, NOW - 60_000)], NOW)
    expect(kept.map((w) => w.sessionID)).toEqual(["recent"])
  })

  test("one entry per session and folder: saving again replaces", () => {
    const list = withWait(withWait([], wait("s1", me, NOW + 1), NOW), { ...wait("s1", me, NOW + 2), rung: 2 }, NOW)
    expect(list).toEqual([{ ...wait("s1", me, NOW + 2), rung: 2 }])
    // Negative control: the same session id in another folder is another entry.
    expect(withWait(list, wait("s1", me, NOW + 3, "/q"), NOW)).toHaveLength(2)
  })
})

describe("ending waits", () => {
  test("a process ends only its own wait for a session", () => {
    const list = [wait("s1", me), wait("s2", me)]
    expect(withoutWait(list, "s1", "/p", me).map((w) => w.sessionID)).toEqual(["s2"])
    // Negative control: another owner's entry for the same session stays.
    expect(withoutWait([wait("s1", other)], "s1", "/p", me)).toHaveLength(1)
  })

  test("a clean exit ends every wait of the process for its folder, and nobody else's", () => {
    const list = [wait("s1", me), wait("s2", me), wait("s3", other), wait("s4", me, NOW, "/q")]
    expect(withoutOwnerWaits(list, "/p", me).map((w) => w.sessionID)).toEqual(["s3", "s4"])
  })
})

describe("taking waits over after a restart", () => {
  test("a dead owner's wait for this folder is taken over; a live owner's, another folder's or a stale one is not", () => {
    expect(mayTakeOver(wait("s1", dead), check)).toBe(true)
    expect(mayTakeOver(wait("s1", other), check)).toBe(false)
    expect(mayTakeOver(wait("s1", dead, NOW + 1, "/q"), check)).toBe(false)
    expect(mayTakeOver(wait("s1", dead, NOW - CARRIED_WAIT_STALE_MS - 1), check)).toBe(false)
    // This very process (an instance replaced without quitting) takes its own back.
    expect(mayTakeOver(wait("s1", me), check)).toBe(true)
  })

  test("a claim makes the wait this process's, marked carried over: a second starter finds a live owner and leaves it", () => {
    const file = [wait("s1", dead), wait("s2", other)]
    const first = claimWaits(file, check)
    expect(first.claimed).toEqual([{ ...wait("s1", me), carriedOver: true }])
    expect(first.waits.find((w) => w.sessionID === "s1")?.owner).toEqual(me)
    const second = claimWaits(first.waits, { ...check, self: { pid: 400, startedAt: 4, host: "h" } })
    expect(second.claimed).toEqual([])
  })

  test("the restored wait keeps its remaining time; one already over has none left; a running session says so", () => {
    const w = { ...wait("s1", dead, NOW + 90_000), since: NOW - 30_000, agent: "build" }
    expect(restoredWait(w, NOW, new Set())).toEqual({ sessionID: "s1", rung: 1, remainingMs: 90_000, until: NOW + 90_000, elapsedMs: 30_000, agent: "build", busy: false })
    expect(restoredWait(wait("s1", dead, NOW - 5000), NOW, new Set(["s1"]))).toMatchObject({ remainingMs: 0, busy: true })
  })
})
