/** The one timer per session: every owner's wake shares it, and the holds are read once per wake. */
import { describe, expect, test } from "bun:test"
import { WakeScheduler, type Wake } from "../../../src/core/scheduler.ts"
import { newSessionState } from "../../../src/core/session-state.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"

function setup(hold: () => string | undefined = () => undefined) {
  const time = new SimulatedTime()
  let holdReads = 0
  const faults: string[] = []
  const scheduler = new WakeScheduler(
    time,
    () => {
      holdReads++
      return hold()
    },
    (owner) => faults.push(owner),
  )
  const state = newSessionState("s1", time.now())
  const woke: Array<[string, number, string | undefined]> = []
  const run = (owner: string) => (wake: Wake) => woke.push([owner, wake.now - time0, wake.hold])
  const time0 = time.now()
  return { time, scheduler, state, woke, run, faults, holdReads: () => holdReads, at: (ms: number) => time0 + ms }
}

describe("WakeScheduler", () => {
  test("three owners of one session share one platform timer, armed for the earliest wake", () => {
    const { time, scheduler, state, woke, run, at } = setup()
    scheduler.set(state, "stall", at(3000), run("stall"))
    scheduler.set(state, "failures", at(1000), run("failures"))
    scheduler.set(state, "judge", at(2000), run("judge"))
    expect(time.pending).toBe(1)
    expect(scheduler.next(state)).toBe(at(1000))
    time.advance(5000)
    expect(woke.map(([o, t]) => [o, t])).toEqual([["failures", 1000], ["judge", 2000], ["stall", 3000]])
    expect(time.pending).toBe(0)
    expect(scheduler.next(state)).toBeUndefined()
  })

  test("a wake asked for again replaces the earlier one; undefined cancels it and re-arms for the rest", () => {
    const { time, scheduler, state, woke, run, at } = setup()
    scheduler.set(state, "a", at(1000), run("a"))
    scheduler.set(state, "b", at(4000), run("b"))
    scheduler.set(state, "a", at(2000), run("a"))
    scheduler.set(state, "b", undefined, run("b"))
    expect(scheduler.next(state)).toBe(at(2000))
    time.advance(1500)
    expect(woke).toEqual([])
    time.advance(10_000)
    expect(woke.map(([o, t]) => [o, t])).toEqual([["a", 2000]])
    // Control: without the cancel, b would have woken too.
    const other = setup()
    other.scheduler.set(other.state, "b", other.at(4000), other.run("b"))
    other.time.advance(10_000)
    expect(other.woke.map(([o]) => o)).toEqual(["b"])
  })

  test("wakes due together read the holds once, and every one of them gets that answer", () => {
    const { time, scheduler, state, woke, run, at, holdReads } = setup(() => "paused")
    scheduler.set(state, "a", at(1000), run("a"))
    scheduler.set(state, "b", at(1000), run("b"))
    time.advance(1000)
    expect(woke).toEqual([["a", 1000, "paused"], ["b", 1000, "paused"]])
    expect(holdReads()).toBe(1)
  })

  test("a session that left the table wakes no one: clear() drops its timer and every wake", () => {
    const { time, scheduler, state, woke, run, at } = setup()
    scheduler.set(state, "a", at(1000), run("a"))
    scheduler.set(state, "b", at(2000), run("b"))
    scheduler.clear(state)
    expect(time.pending).toBe(0)
    time.advance(5000)
    expect(woke).toEqual([])
  })

  test("an owner that throws is reported and does not keep the others from waking", () => {
    const { time, scheduler, state, woke, run, at, faults } = setup()
    scheduler.set(state, "broken", at(1000), () => {
      throw new Error("boom")
    })
    scheduler.set(state, "b", at(1000), run("b"))
    time.advance(1000)
    expect(faults).toEqual(["broken"])
    expect(woke.map(([o]) => o)).toEqual(["b"])
  })
})
