/** The production clock: reads as epoch ms, follows the wall clock forward only, never goes back. */
import { describe, expect, test } from "bun:test"
import { forwardOnlyClock, realTime } from "../../../src/host/real-time.ts"

/** A hand-driven wall clock. */
function sources(wallStart: number) {
  const s = { wall: wallStart }
  const clock = forwardOnlyClock(() => s.wall)
  /** Time passes (the process runs). */
  const pass = (ms: number) => {
    s.wall += ms
  }
  return { s, clock, pass }
}

const WALL = Date.UTC(2026, 0, 1, 12, 0, 0)

describe("forwardOnlyClock", () => {
  test("starts at the wall time and advances with it, in whole ms", () => {
    const { clock, pass } = sources(WALL)
    expect(clock()).toBe(WALL)
    pass(1_500.5)
    expect(clock()).toBe(WALL + 1_500)
  })

  test("a wall clock stepped back is not followed: the clock keeps going forward", () => {
    const { s, clock, pass } = sources(WALL)
    pass(10_000)
    const before = clock()
    s.wall -= 187_001 // NTP or a manual change steps the wall clock back
    expect(clock()).toBe(before)
    pass(1_000)
    expect(clock()).toBe(before + 1_000)
    // Control: without the step the clock reads the wall time.
    const steady = sources(WALL)
    steady.pass(11_000)
    expect(steady.clock()).toBe(steady.s.wall)
  })

  test("a wall clock that jumps ahead (resume from sleep) is followed", () => {
    const { s, clock, pass } = sources(WALL)
    pass(5_000)
    const before = clock()
    s.wall += 3_600_000 // an hour asleep
    expect(clock()).toBe(before + 3_600_000)
    // After the step back that undoes part of it, the clock still never goes back.
    s.wall -= 60_000
    expect(clock()).toBe(before + 3_600_000)
  })
})

describe("realTime", () => {
  test("offers the wall clock itself for dates from outside (a Retry-After date)", () => {
    const t = realTime()
    expect(typeof t.wall).toBe("function")
    // Not a timing assertion: the wall clock read here is Date.now() itself.
    const before = Date.now()
    const read = t.wall!()
    expect(read).toBeGreaterThanOrEqual(before)
    expect(read).toBeLessThanOrEqual(Date.now())
  })

  test("reads as epoch ms, never goes backwards, and every instance shares one clock", () => {
    // The process clock is shared by the whole test run: an instance an earlier file left
    // running may have read it while the capability matrix had Date faked (ahead of the wall),
    // and a forward-only clock keeps such a lead. Start this check from a fresh process clock.
    delete (globalThis as Record<symbol, unknown>)[Symbol.for("opencode-auto-resume.forward-only-clock")]
    const a = realTime()
    const b = realTime()
    expect(a.now).toBe(b.now)
    let last = a.now()
    // Not a timing assertion: a forward-only clock read as epoch ms is near the wall clock.
    expect(Math.abs(last - Date.now())).toBeLessThan(60_000)
    for (let i = 0; i < 1000; i++) {
      const next = b.now()
      expect(next).toBeGreaterThanOrEqual(last)
      last = next
    }
  })
})
