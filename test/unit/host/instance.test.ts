/**
 * The instance lifecycle both adapters share (src/host/instance.ts): one live instance per
 * slot, the watch state handed over on the way out and in, and a stop that always finishes.
 */
import { describe, expect, test } from "bun:test"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import { startInstance, type InstanceSlot } from "../../../src/host/instance.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"

function rig(options: Record<string, unknown> = {}) {
  const time = new SimulatedTime()
  const slot: InstanceSlot = { key: `test-${Math.random()}` }
  const start = () => {
    const port = new RecordingPort(() => time.now())
    const instance = startInstance({ host: "v1", slot, resolved: resolveOptions(options, {}), time, port, env: {}, pauses: new MemoryPauses() })
    const logged = (pattern: RegExp) => port.logs.some((l) => pattern.test(l.message))
    return { instance, port, logged }
  }
  return { time, slot, start }
}

describe("startInstance", () => {
  test("a second instance in the slot stops the first, which runs its own stoppers once", () => {
    const { slot, start } = rig()
    const first = start()
    const stopped: string[] = []
    first.instance.onStop(() => stopped.push("intake"))
    expect(slot.holder?.serial).toBe(first.instance.serial)

    const second = start()
    expect(first.instance.stopped).toBe(true)
    expect(second.instance.stopped).toBe(false)
    expect(slot.holder?.serial).toBe(second.instance.serial)
    expect(first.logged(new RegExp(`instance #${first.instance.serial} stopped \\(superseded by instance #${second.instance.serial}\\)`))).toBe(true)
    expect(second.logged(/host=v1/)).toBe(true)
    first.instance.stop("again")
    expect(stopped).toEqual(["intake"])
    // The stopped instance no longer owns the slot: its late stop leaves the successor alone.
    expect(slot.holder?.serial).toBe(second.instance.serial)
  })

  test("with shareWatchState the successor takes the sessions the first one watched; without, it starts fresh", () => {
    for (const share of [true, false]) {
      const { time, start } = rig({ shareWatchState: share })
      const first = start()
      first.instance.engine.handle({ type: "busy", sessionID: "s1" }, time.now())
      const second = start()
      expect(second.logged(/took over 1 session/)).toBe(share)
    }
  })

  test("a stopper that throws is logged; the later stoppers still run and the slot is freed", () => {
    const { slot, start } = rig()
    const { instance, logged } = start()
    let later = false
    instance.onStop(() => {
      throw new Error("boom")
    })
    instance.onStop(() => {
      later = true
    })
    instance.stop("test")
    expect(later).toBe(true)
    expect(logged(/stopping part of instance #\d+ failed: Error: boom/)).toBe(true)
    expect(slot.holder).toBeUndefined()
    expect(logged(/stopped \(test\)/)).toBe(true)
  })

  test("keep: a registration is disposed when the instance stops, or at once when it settles after the stop", async () => {
    const { start } = rig()
    const { instance } = start()
    const disposed: string[] = []
    const early = instance.keep(Promise.resolve({ dispose: () => disposed.push("early") }))
    let settle: (r: { dispose(): void }) => void = () => {}
    const late = instance.keep(new Promise<{ dispose(): void }>((resolve) => (settle = resolve)))
    await early
    expect(disposed).toEqual([])
    instance.stop("test")
    expect(disposed).toEqual(["early"])
    settle({ dispose: () => disposed.push("late") })
    await late
    expect(disposed).toEqual(["early", "late"])
    expect(await instance.keep(Promise.resolve(undefined))).toBeUndefined()
  })

  test("a start that throws before it is built leaves the running instance alone", () => {
    const { time, slot, start } = rig()
    const first = start()
    const broken = new RecordingPort(() => time.now())
    broken.log = () => {
      throw new Error("no log")
    }
    expect(() => startInstance({ host: "v2", slot, resolved: resolveOptions({}, {}), time, port: broken, env: {}, pauses: new MemoryPauses() })).toThrow("no log")
    expect(first.instance.stopped).toBe(false)
    expect(slot.holder?.serial).toBe(first.instance.serial)
  })
})
