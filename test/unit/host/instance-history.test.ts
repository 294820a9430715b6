/**
 * The instance's history wiring (src/host/instance.ts, with-history.ts): the engine's journal
 * entries reach the store through the port, and a stop settles what is pending and has the store
 * write it before the stop returns (the process may exit next).
 */
import { describe, expect, test } from "bun:test"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import type { HistoryStore } from "../../../src/stores/journal-file.ts"
import { startInstance, type InstanceSlot } from "../../../src/host/instance.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"

const BUDGET = 183_000

function fakeStore(events: string[]): HistoryStore {
  return {
    file: "/nowhere",
    append: (e: JournalEntry) => void events.push(`append ${e.trigger} ${e.outcome}`),
    recent: async () => ({ entries: [], total: 0 }),
    flushed: async () => undefined,
    close: () => void events.push("close"),
  }
}

async function run(time: SimulatedTime, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 1000) {
    time.advance(1000)
    await new Promise<void>((r) => setImmediate(r))
  }
}

describe("the instance's history", () => {
  test("a stop writes the recovery still pending, after the engine settled it", async () => {
    const time = new SimulatedTime()
    const events: string[] = []
    const slot: InstanceSlot = { key: `history-${Math.random()}` }
    const port = new RecordingPort(() => time.now())
    const instance = startInstance({ host: "v1", slot, resolved: resolveOptions({}, {}), time, port, env: {}, pauses: new MemoryPauses(), history: fakeStore(events) })
    for (const s of [{ type: "userMessage", genuine: true }, { type: "busy" }, { type: "modelOutput" }] as const) instance.engine.handle({ sessionID: "s1", ...s } as never, time.now())
    await run(time, BUDGET + 3000)
    expect(port.actions).toEqual(["send"])
    expect(events).toEqual([])
    instance.stop()
    expect(events).toEqual(["append stall no effect", "close"])
    // The adapter's own port is left as it was.
    expect(port.journal).toBeUndefined()
  })

  test("negative control: a stop with nothing pending writes no entry", () => {
    const time = new SimulatedTime()
    const events: string[] = []
    const instance = startInstance({ host: "v1", slot: { key: `history-${Math.random()}` }, resolved: resolveOptions({}, {}), time, port: new RecordingPort(() => time.now()), env: {}, pauses: new MemoryPauses(), history: fakeStore(events) })
    instance.engine.handle({ sessionID: "s1", type: "busy" }, time.now())
    instance.stop()
    expect(events).toEqual(["close"])
  })
})
