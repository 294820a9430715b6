/** Builds an engine on a simulated clock with a recording port, plus timeline helpers. */
import { SimulatedTime } from "../../src/core/clock.ts"
import { RecoveryEngine } from "../../src/core/engine.ts"
import type { IdleRule } from "../../src/core/idle.ts"
import { MemoryPauses } from "../../src/core/pauses.ts"
import type { Signal } from "../../src/host/port.ts"
import { resolveOptions } from "../../src/options/index.ts"
import { RecordingPort } from "./recording-port.ts"

export type Harness = {
  time: SimulatedTime
  port: RecordingPort
  engine: RecoveryEngine
  pauses: MemoryPauses
  /** Feeds signals for session "s1" unless a sessionID is given. */
  emit(...signals: Array<Partial<Signal> & { type: Signal["type"] }>): void
  /** Advances simulated time in small steps, letting promises settle between them. */
  advance(ms: number, stepMs?: number): Promise<void>
}

export const SESSION = "s1"

/**
 * Lets every pending promise callback run (host calls resolve on the microtask queue).
 * One macrotask turn drains the whole microtask queue, however deep the await chains are;
 * it waits for no real time.
 */
export async function settle(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve))
}

export function makeHarness(rawOptions: Record<string, unknown> = {}, env: Record<string, string> = {}, idleRules?: readonly IdleRule[]): Harness {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const pauses = new MemoryPauses()
  const engine = new RecoveryEngine({ port, time, options: resolveOptions(rawOptions, env), pauses, idleRules })
  return {
    time,
    port,
    engine,
    pauses,
    emit(...signals) {
      for (const s of signals) engine.handle({ sessionID: SESSION, ...s } as Signal)
    },
    async advance(ms, stepMs = 250) {
      let left = ms
      while (left > 0) {
        const step = Math.min(stepMs, left)
        time.advance(step)
        left -= step
        await settle()
      }
    },
  }
}

/** A genuine user turn that starts a busy run, as both hosts report it. */
export const userTurn: Array<Partial<Signal> & { type: Signal["type"] }> = [
  { type: "userMessage", genuine: true, setup: { agent: "build", model: { providerID: "openai", modelID: "gpt-x" } } },
  { type: "busy" },
  { type: "modelOutput" },
]
