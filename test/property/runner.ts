/**
 * Plays one scenario against the plugin, through the core seam or through the real v1
 * adapter, and returns every invariant violation seen. Invariants about calls are checked at
 * the moment of the call (oracle.ts); state bounds after every step and every timer.
 */
import { RecoveryEngine } from "../../src/core/engine.ts"
import { recoveryPaths } from "../../src/paths/index.ts"
import { MemoryPauses } from "../../src/core/pauses.ts"
import { startV1 } from "../../src/host/v1/adapter.ts"
import { resolveOptions } from "../../src/options/index.ts"
import { isTracked } from "../support/engine-peek.ts"
import { drainMicrotasks, EventLoopTime, TimerStormError } from "../support/event-loop-time.ts"
import { sessionName, spec, type HostEvent, type V1Sink } from "./events.ts"
import { ScriptedHost, type FaultPlan, type PortMethod } from "./host.ts"
import type { Scenario, Step } from "./model.ts"
import { Oracle, T0, type Violation } from "./oracle.ts"
import { startV2Driver, type V2FaultStats } from "./v2-driver.ts"
import { v2Facts } from "./v2-wire.ts"

export type DriverKind = "core" | "v1" | "v2"

/**
 * Timers one scenario may fire before it is cut with a `runs-for-ever` violation. A chain of
 * timers of the plugin's own never ends, and without a cap it hangs the soak; the cap must stay
 * well above what a finite scenario needs. The busiest found so far (seed 3, batch 359,
 * scenario 0: a thousand flooded sessions, all paused, each looked at every 500 ms through half
 * an hour) fires 1,060,846 and ends; most fire under 400,000. At 5,000,000 a real chain is
 * still cut within about 20 s.
 */
export const MAX_TIMERS_PER_SCENARIO = 5_000_000

/** Thrown out of the clock's loop when the cap is reached; the runner stops the scenario. */
class RunsForEver extends Error {}


export type RunStats = Oracle["stats"] & { steps: number; timers: number; maxTracked: number; v2: V2FaultStats }

export type RunResult = {
  /** Session-changing host calls in order (the last 512 or so): method, session, time since start. */
  calls: Array<{ method: string; sessionID: string; at: number; outcome: string }>
  /** Host calls per method. */
  callCounts: Map<PortMethod, number>
  /** For healCheck: whether a stall that began after healing was recovered in time. */
  healed?: { recovered: boolean; waitedMs: number }
  violations: Violation[]
  /** Violations matching a known bug (known-bugs.ts): reported, not failing. */
  known: { counts: Map<string, number>; samples: Violation[] }
  stats: RunStats
  logs: ScriptedHost["logs"]
}

export type RunOptions = {
  /** Stop at the first violation (what shrinking wants). Default true. */
  stopAtFirst?: boolean
  /** Full walk of every session's collections every N steps (cheap checks run always). */
  fullBoundsEvery?: number
  /** Sessions s0..s(poolSize-1) get the per-timer checks (tracked or dropped, collection caps). */
  poolSize?: number
  /** Let history and session-list reads answer with junk too (see ScriptedHost.read). */
  junkReads?: boolean
  /** Faults forced on whole host methods (fault tests). */
  faults?: FaultPlan
  /** After the timeline: heal the host, then prove the plugin still recovers a fresh stall. */
  healCheck?: boolean
  /** Timers the scenario may fire before it is cut (`runs-for-ever`); MAX_TIMERS_PER_SCENARIO unless given. */
  maxTimers?: number
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

export async function runScenario(sc: Scenario, kind: DriverKind, run: RunOptions = {}): Promise<RunResult> {
  const stopAtFirst = run.stopAtFirst ?? true
  const maxTimers = run.maxTimers ?? MAX_TIMERS_PER_SCENARIO
  const fullEvery = run.fullBoundsEvery ?? 25
  const pool = Array.from({ length: run.poolSize ?? 6 }, (_, i) => sessionName(i))
  const time = new EventLoopTime(T0)
  const oracle = new Oracle(sc.options, () => time.now(), kind === "v2" ? v2Facts : undefined)
  const pauses = new MemoryPauses()
  let deliverToPlugin: (e: HostEvent, id: string) => void = () => {}
  const deliver = (e: HostEvent) => {
    const id = sessionName(e.s)
    if (kind === "v2") {
      // The oracle hears of it when the plugin does (the stream may be down or slow).
      deliverToPlugin(e, id)
      return
    }
    oracle.note(`host -> ${id} ${e.t}`)
    oracle.event(e, id)
    host.record(e, id)
    deliverToPlugin(e, id)
  }
  const host = new ScriptedHost(sc.calls, time, oracle, deliver, run.junkReads ?? false, kind === "v2")
  host.faults = run.faults ?? {}
  const caught = (where: string) => (error: unknown) => oracle.violate("6-exception", `${where} threw: ${errorText(error)}`)

  let engine: RecoveryEngine
  /** How the plugin is shut down at the end (the v1 instance frees its registry slot too). */
  let stop = () => engine.dispose()
  /** Per step, after it ran: the 2.x faults due then. */
  let afterStep: (i: number) => void = () => {}
  let v2Stats = (): V2FaultStats => stats.v2
  if (kind === "v2") {
    const driver = startV2Driver({ sc, host, oracle, time, pauses })
    engine = driver.engine
    stop = driver.stop
    deliverToPlugin = driver.deliver
    afterStep = driver.afterStep
    v2Stats = driver.stats
  } else if (kind === "core") {
    engine = new RecoveryEngine({ paths: recoveryPaths, port: host.corePort(), time, options: resolveOptions(sc.options, {}), pauses })
    deliverToPlugin = (e, id) => {
      for (const signal of spec(e).core(e, id)) {
        try {
          engine.handle(signal)
        } catch (error) {
          caught(`handle(${signal.type})`)(error)
        }
      }
    }
  } else {
    const plugin = startV1({ client: host.v1Client() }, sc.options, {}, { time, pauses })
    engine = plugin.engine
    const stoppable = plugin as { stop?: (reason?: string) => void }
    if (typeof stoppable.stop === "function") stop = () => stoppable.stop!("end of scenario")
    const hooks = plugin.hooks as Record<string, ((...args: unknown[]) => unknown) | undefined>
    let ids = 0
    const call = (name: string, ...args: unknown[]) => {
      const hook = hooks[name]
      if (!hook) return oracle.violate("6-exception", `the v1 plugin has no ${name} hook`)
      try {
        const result = hook(...args)
        if (result instanceof Promise) result.catch(caught(`${name} hook (async)`))
      } catch (error) {
        caught(`${name} hook`)(error)
      }
    }
    const sink: V1Sink = {
      event: (event) => call("event", { event }),
      hook: (name, input, output) => call(name, input, output),
      nextId: (prefix) => `${prefix}_${++ids}`,
    }
    deliverToPlugin = (e, id) => spec(e).v1(e, id, sink)
  }

  const onUnhandled = (reason: unknown) => caught("an unhandled promise")(reason)
  const onTimerError = (error: unknown) =>
    error instanceof TimerStormError ? oracle.violate("6-bounds", error.message) : caught("a timer callback")(error)
  process.on("unhandledRejection", onUnhandled)

  const stats: RunStats = { ...oracle.stats, steps: 0, timers: 0, maxTracked: 0, v2: { resubscribes: 0, foreign: 0, undurable: 0, lost: 0 } }
  const held: HostEvent[] = []
  /** After every timer: cheap checks only (the collection walk is per step). */
  const checkCheap = () => {
    oracle.tick()
    const tracked = engine.trackedSessions
    stats.maxTracked = Math.max(stats.maxTracked, tracked)
    oracle.checkTracked(engine)
    for (const id of pool) {
      if (isTracked(engine, id)) oracle.tracked(id)
      else oracle.untracked(id)
    }
    const timers = time.pending("engine")
    if (timers > 4 * tracked + 8) oracle.violate("6-bounds", `${timers} engine timers pending for ${tracked} tracked sessions`)
  }
  const afterTimer = () => {
    if (++stats.timers > maxTimers) throw new RunsForEver()
    checkCheap()
  }

  const apply = async (step: Step): Promise<void> => {
    switch (step.k) {
      case "ev":
        if (step.how === "hold") held.push(step.ev)
        else {
          deliver(step.ev)
          if (step.how === "twice") deliver(step.ev)
        }
        return
      case "release":
        while (held.length > 0) deliver(held.pop()!)
        return
      case "wait":
        await time.advance(step.ms, afterTimer, onTimerError)
        return
      case "jump":
        time.jump(step.ms)
        if (step.ms < 0) oracle.clockWentBack = true
        return
      case "pause":
        pauses.pause(sessionName(step.s))
        oracle.pause(sessionName(step.s))
        return
      case "resume":
        pauses.resume(sessionName(step.s))
        oracle.resume(sessionName(step.s))
        return
      case "pauseAll":
        pauses.pauseAll(step.on)
        oracle.pauseAll(step.on)
        return
      case "sweep":
        try {
          engine.sweep()
        } catch (error) {
          caught("sweep()")(error)
        }
        return
      case "flood":
        for (let i = 0; i < step.n; i++) deliver({ t: i % 3 === 0 ? "busy" : "activity", s: `flood${step.tag}_${i}` })
        return
      case "heal":
        host.healed = true
        return
    }
  }

  let healed: RunResult["healed"]
  /** The timer cap cut the scenario: nothing more is played. */
  let cut = false
  /**
   * The host recovers; a brand-new session then stalls. The plugin must notice and act within
   * sendTimeoutMs (a call it may still be waiting on) + the stall budget + the longest backoff.
   */
  const healCheck = async (): Promise<RunResult["healed"]> => {
    host.healed = true
    pauses.pauseAll(false)
    oracle.pauseAll(false)
    const id = "ses_heal"
    const o = oracle.effective(id)
    await time.advance(o.sendTimeoutMs + 1, afterTimer, onTimerError)
    const before = oracle.stats.sends + oracle.stats.aborts
    deliver({ t: "user", s: id, provider: "cloud" })
    deliver({ t: "busy", s: id })
    deliver({ t: "output", s: id })
    const bound = o.chunkTimeoutMs + o.gracePeriodMs + o.maxBackoffMs + o.sendTimeoutMs + 1
    let waited = 0
    const step = Math.max(1, Math.round(bound / 50))
    while (waited < bound && oracle.stats.sends + oracle.stats.aborts === before) {
      await time.advance(step, afterTimer, onTimerError)
      waited += step
    }
    return { recovered: oracle.stats.sends + oracle.stats.aborts > before, waitedMs: waited }
  }
  try {
    for (let i = 0; i < sc.steps.length; i++) {
      oracle.step = i
      stats.steps++
      try {
        await apply(sc.steps[i]!)
      } catch (error) {
        if (!(error instanceof RunsForEver)) throw error
        oracle.violate("runs-for-ever", `${maxTimers} timers fired by step ${i} (t+${time.now() - T0} ms, ${time.pending()} pending): a chain of timers that does not end`)
        cut = true
        break
      }
      afterStep(i)
      await drainMicrotasks()
      checkCheap()
      oracle.checkBounds(engine, pool)
      const step = sc.steps[i]!
      if (step.k === "flood" || i % fullEvery === 0) oracle.checkBounds(engine, undefined)
      if (stopAtFirst && oracle.violations.length > 0) break
    }
    oracle.checkBounds(engine, undefined)
    if (run.healCheck && !cut) healed = await healCheck()
  } finally {
    try {
      stop()
    } catch (error) {
      caught("stopping the plugin")(error)
    }
    await drainMicrotasks()
    process.off("unhandledRejection", onUnhandled)
  }
  Object.assign(stats, oracle.stats, { v2: v2Stats() })
  const calls = oracle.calls.map((c) => ({ method: c.method, sessionID: c.sessionID, at: c.issuedAt - T0, outcome: c.script.outcome }))
  return { calls, callCounts: host.callCounts, healed, violations: oracle.violations, known: { counts: oracle.knownCounts, samples: oracle.knownViolations }, stats, logs: host.logs }
}

/** A violation, printed for humans: the invariant, what happened, and the last moments. */
export function showViolation(v: Violation): string {
  return [
    `violated ${v.invariant} at step ${v.step} (t+${v.at} ms): ${v.detail}`,
    "what the plugin saw and did just before (newest last):",
    ...v.trace.map((l) => `    ${l}`),
  ].join("\n")
}
