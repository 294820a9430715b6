/** A 2.x instance on the fake host and a simulated clock, with its log captured. */
import { SimulatedTime } from "../../support/simulated-time.ts"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import type { LogLevel } from "../../../src/core/port.ts"
import { startV2, type V2Deps, type V2Instance } from "../../../src/host/v2/adapter.ts"
import { FakeV2Host, type FakeV2Options } from "../../support/fake-v2-host.ts"

export const SID = "ses_main"
/** chunkTimeoutMs + gracePeriodMs on the fast profile. */
export const BUDGET = 183_000
/**
 * A stall of a run the host still lists as live recovered: the budget, the first backoff, and
 * the pause between our abort and the one continue after it.
 */
export const RECOVERED = BUDGET + 2000 + ABORT_CONTINUE_DELAY_MS

/** Runs every pending promise callback (the fake host and the pump are promise chains). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

let scopes = 0
/** A registry slot no other test uses. */
export function freshScope(): string {
  return `unit-v2-${process.pid}-${++scopes}`
}

export type LogLine = { level: LogLevel; message: string }

export type V2Rig = {
  time: SimulatedTime
  host: FakeV2Host
  instance: V2Instance
  pauses: MemoryPauses
  logs: LogLine[]
  advance(ms: number, stepMs?: number): Promise<void>
  logged(pattern: RegExp): boolean
  /** Starts another instance on the same clock (a re-run setup); same slot unless told otherwise. */
  restart(options?: Record<string, unknown>, host?: FakeV2Host): V2Instance
}

export type RigOptions = {
  options?: Record<string, unknown>
  host?: FakeV2Options
  env?: Record<string, string>
  deps?: Partial<V2Deps>
}

export function makeV2(rig: RigOptions = {}): V2Rig {
  const time = new SimulatedTime()
  const scope = (rig.options?.registryScope as string | undefined) ?? freshScope()
  const options = { registryScope: scope, ...rig.options }
  const host = new FakeV2Host({ now: () => time.now(), options, ...rig.host })
  const logs: LogLine[] = []
  const pauses = new MemoryPauses()
  const start = (h: FakeV2Host) =>
    startV2(h.ctx, {
      time,
      env: rig.env ?? {},
      fetch: h.fetch,
      pauses,
      writeLog: (level, message) => logs.push({ level, message }),
      ...rig.deps,
    })
  const instance = start(host)
  return {
    time,
    host,
    instance,
    pauses,
    logs,
    async advance(ms, stepMs = 1000) {
      await flush()
      let left = ms
      while (left > 0) {
        const step = Math.min(stepMs, left)
        time.advance(step)
        left -= step
        await flush()
      }
    },
    logged: (pattern) => logs.some((l) => pattern.test(l.message)),
    restart(extra = {}, other) {
      const h = other ?? host
      ;(h.ctx as { options: unknown }).options = { ...options, ...extra }
      return start(h)
    },
  }
}

export function sends(host: FakeV2Host): number {
  return host.callsTo("session.prompt").length + host.callsTo("session.synthetic").length
}
