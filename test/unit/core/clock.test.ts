import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"

describe("SimulatedTime", () => {
  test("fires due timers in order, including ones armed while firing", () => {
    const t = new SimulatedTime(0)
    const seen: string[] = []
    t.schedule(20, () => seen.push("b"))
    t.schedule(10, () => {
      seen.push("a")
      t.schedule(5, () => seen.push("a+5"))
    })
    t.advance(30)
    expect(seen).toEqual(["a", "a+5", "b"])
    expect(t.now()).toBe(30)
  })

  test("a cancelled timer never fires; NaN delays fire at once instead of never", () => {
    const t = new SimulatedTime(0)
    let fired = 0
    const cancel = t.schedule(10, () => fired++)
    cancel()
    t.schedule(Number.NaN, () => fired += 10)
    t.advance(100)
    expect(fired).toBe(10)
    expect(t.pending).toBe(0)
  })

  test("jump moves the clock without firing timers", () => {
    const t = new SimulatedTime(0)
    let fired = false
    t.schedule(10, () => (fired = true))
    t.jump(1000)
    expect(fired).toBe(false)
    t.advance(0)
    expect(fired).toBe(true)
  })
})
