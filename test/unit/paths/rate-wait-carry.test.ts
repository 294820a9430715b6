/**
 * Rate-limit waits through the whole engine with a recording wait store, on the simulated
 * clock: what is saved and ended, and how a wait a previous process left resumes.
 */
import { describe, expect, test } from "bun:test"
import type { RateWaitStore, RestoredWait } from "../../../src/core/carried-waits.ts"
import { RecoveryEngine } from "../../../src/core/engine.ts"
import { recoveryPaths } from "../../../src/paths/index.ts"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import type { Signal } from "../../../src/core/port.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { formatStatusReport } from "../../../src/pause/command.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { settle, userTurn } from "../../support/harness.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"

const rateLimit = { type: "error", name: "APIError", message: "Rate limit exceeded", status: 429 } as const

class RecordingStore implements RateWaitStore {
  readonly saved: Parameters<RateWaitStore["save"]>[0][] = []
  readonly ended: string[] = []
  save(wait: Parameters<RateWaitStore["save"]>[0]) {
    this.saved.push(wait)
  }
  end(sessionID: string) {
    this.ended.push(sessionID)
  }
}

function world(options: Record<string, unknown> = {}) {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const pauses = new MemoryPauses()
  const store = new RecordingStore()
  const engine = new RecoveryEngine({ paths: recoveryPaths, port, time, pauses, rateWaits: store, options: resolveOptions({ rateLimitCooldownsMs: [60_000, 120_000], ...options }, {}) })
  return {
    time,
    port,
    pauses,
    store,
    engine,
    emit: (...signals: Array<Partial<Signal> & { type: Signal["type"] }>) => {
      for (const s of signals) engine.handle({ sessionID: "s1", ...s } as Signal)
    },
    advance: async (ms: number, step = 1000) => {
      for (let left = ms; left > 0; left -= step) {
        time.advance(Math.min(step, left))
        await settle()
      }
    },
  }
}

const restored = (over: Partial<RestoredWait> = {}): RestoredWait => ({ sessionID: "s1", rung: 1, remainingMs: 30_000, until: 0, busy: false, agent: "build", model: { providerID: "openai", modelID: "gpt-x" }, ...over })

describe("a wait in the store", () => {
  test("a rate limit the host gave up on is saved with its rung, wall-clock end, agent and model; its continue ends it", async () => {
    const w = world()
    w.emit(...userTurn, rateLimit, { type: "idle" })
    expect(w.store.saved).toEqual([{ sessionID: "s1", rung: 1, until: w.time.now() + 60_000, since: w.time.now(), agent: "build", model: { providerID: "openai", modelID: "gpt-x" } }])
    await w.advance(59_000)
    expect(w.store.ended).toEqual([])
    await w.advance(2000)
    expect(w.port.sends).toHaveLength(1)
    expect(w.store.ended).toEqual(["s1"])
  })

  for (const [name, ender] of [
    ["a genuine user message", { type: "userMessage", genuine: true }],
    ["ESC", { type: "interrupted", byUser: true }],
    ["the model's output", { type: "modelOutput" }],
  ] as const) {
    test(`${name} ends the wait: out of the store, no continue`, async () => {
      const w = world()
      w.emit(...userTurn, rateLimit, { type: "idle" })
      await w.advance(5000)
      w.emit(ender)
      expect(w.store.ended).toEqual(["s1"])
      expect(w.engine.status("s1")?.rateLimitWait).toBeUndefined()
      await w.advance(120_000)
      expect(w.port.sends.filter((s) => /rate limit/.test(s.text))).toHaveLength(0)
    })
  }

  test("negative control: our own prompt showing up does not end the wait", async () => {
    const w = world()
    w.emit(...userTurn, rateLimit, { type: "idle" })
    w.emit({ type: "userMessage", genuine: false })
    expect(w.store.ended).toEqual([])
    expect(w.engine.status("s1")?.rateLimitWait).toMatchObject({ rung: 1, carriedOver: false })
  })

  test("the session deleted while it waits: out of the store, and nothing is sent", async () => {
    const w = world()
    w.emit(...userTurn, rateLimit, { type: "idle" })
    await w.advance(5000)
    w.emit({ type: "sessionDeleted" })
    expect(w.store.ended).toEqual(["s1"])
    await w.advance(120_000)
    expect(w.port.sends).toHaveLength(0)
  })

  test("negative control: the engine going away (a reload, an exit) leaves the wait in the store for whoever comes next", async () => {
    const w = world()
    w.emit(...userTurn, rateLimit, { type: "idle" })
    await w.advance(5000)
    w.engine.dispose()
    expect(w.store.ended).toEqual([])
  })

  test("a pause ends the wait within a check interval, and removes it from the store", async () => {
    const w = world()
    w.emit(...userTurn, rateLimit, { type: "idle" })
    await w.advance(2000)
    w.pauses.pause("s1")
    await w.advance(15_000)
    expect(w.store.ended).toEqual(["s1"])
    w.pauses.resume("s1")
    await w.advance(120_000)
    expect(w.port.sends).toHaveLength(0)
  })
})

describe("a wait carried over from a previous process", () => {
  test("resumes with its remaining time and sends one continue with the wait's agent and model", async () => {
    const w = world()
    expect(w.engine.restoreRateWaits([restored({ remainingMs: 30_000 })])).toBe(1)
    expect(w.engine.status("s1")?.rateLimitWait).toEqual({ until: w.time.now() + 30_000, rung: 1, carriedOver: true })
    await w.advance(29_000)
    expect(w.port.sends).toHaveLength(0)
    await w.advance(2000)
    expect(w.port.sends).toHaveLength(1)
    expect(w.port.sends[0]!.setup).toEqual({ agent: "build", model: { providerID: "openai", modelID: "gpt-x" } })
    expect(w.store.ended).toEqual(["s1"])
    await w.advance(300_000)
    expect(w.port.sends).toHaveLength(1)
  })

  test("one already over sends its continue once, one check interval after the start (the pause file read by then), when the session is idle", async () => {
    const w = world()
    w.engine.restoreRateWaits([restored({ remainingMs: 0 })])
    await w.advance(4000)
    expect(w.port.sends).toHaveLength(0)
    await w.advance(2000)
    expect(w.port.sends).toHaveLength(1)
    await w.advance(300_000)
    expect(w.port.sends).toHaveLength(1)
  })

  test("negative control: a pause found in the file at start ends a wait that is already over: no continue", async () => {
    const w = world()
    w.engine.restoreRateWaits([restored({ remainingMs: 0 })])
    // The pause store reads its file in the background, within the first check interval.
    await w.advance(1000)
    w.pauses.pause("s1")
    await w.advance(300_000)
    expect(w.port.sends).toHaveLength(0)
    expect(w.store.ended).toEqual(["s1"])
  })

  test("negative control: a session the host still runs gets no continue while it runs; its output ends the wait", async () => {
    const w = world()
    w.engine.restoreRateWaits([restored({ remainingMs: 0, busy: true })])
    await w.advance(5000)
    expect(w.port.sends).toHaveLength(0)
    w.emit({ type: "modelOutput" }, { type: "idle" })
    await w.advance(300_000)
    expect(w.port.sends.filter((s) => /rate limit/.test(s.text))).toHaveLength(0)
    expect(w.store.ended).toEqual(["s1"])
  })

  for (const [name, act] of [
    ["a genuine user message", (w: ReturnType<typeof world>) => w.emit({ type: "userMessage", genuine: true })],
    ["ESC", (w: ReturnType<typeof world>) => w.emit({ type: "interrupted", byUser: true })],
    ["a pause", (w: ReturnType<typeof world>) => w.pauses.pause("s1")],
  ] as const) {
    test(`${name} ends a carried-over wait: no continue`, async () => {
      const w = world()
      w.engine.restoreRateWaits([restored({ remainingMs: 30_000 })])
      await w.advance(5000)
      act(w)
      await w.advance(60_000)
      w.pauses.resume("s1")
      await w.advance(60_000)
      expect(w.port.sends).toHaveLength(0)
      expect(w.store.ended).toEqual(["s1"])
    })
  }

  test("the history entry of a carried-over wait's continue notes it; negative control: this process's own wait has no such note", async () => {
    const entries = async (carried: boolean) => {
      const w = world()
      const seen: { trigger: string; note?: string }[] = []
      w.port.journal = (entry) => void seen.push(entry)
      if (carried) w.engine.restoreRateWaits([restored({ remainingMs: 30_000 })])
      else w.emit(...userTurn, rateLimit, { type: "idle" })
      await w.advance(400_000, 5000)
      return seen.filter((e) => e.trigger === "rate limit")
    }
    const carried = await entries(true)
    expect(carried).toHaveLength(1)
    expect(carried[0]!.note).toBe("carried over from a restart")
    const own = await entries(false)
    expect(own).toHaveLength(1)
    expect(own[0]!.note).toBeUndefined()
  })

  test("the status says the wait was carried over from a restart", () => {
    const w = world()
    w.engine.restoreRateWaits([restored({ remainingMs: 30_000 })])
    const text = formatStatusReport({ sessionID: "s1", paused: false, allPaused: false, status: w.engine.status("s1"), now: w.time.now() })
    expect(text).toMatch(/Waiting for the rate limit \(carried over from a restart\) until /)
    // Negative control: a wait of this process is not called carried over.
    const fresh = world()
    fresh.emit(...userTurn, rateLimit, { type: "idle" })
    const own = formatStatusReport({ sessionID: "s1", paused: false, allPaused: false, status: fresh.engine.status("s1"), now: fresh.time.now() })
    expect(own).toMatch(/Waiting for the rate limit until /)
    expect(own).not.toContain("carried over")
  })

  test("a new hit after the carried-over continue is this process's own wait again", async () => {
    const w = world()
    w.engine.restoreRateWaits([restored({ remainingMs: 0 })])
    await w.advance(6000)
    w.emit({ type: "busy" }, rateLimit, { type: "idle" })
    expect(w.store.saved.at(-1)).toMatchObject({ rung: 2 })
    expect(w.store.saved.at(-1)?.carriedOver).toBeUndefined()
    expect(w.engine.status("s1")?.rateLimitWait?.carriedOver).toBe(false)
  })
})
