/** Builds an engine on a simulated clock with a recording port, plus timeline helpers. */
import { SimulatedTime } from "./simulated-time.ts"
import { RecoveryEngine } from "../../src/core/engine.ts"
import { recoveryPaths } from "../../src/paths/index.ts"
import type { AnyPath } from "../../src/runtime/path.ts"
import { MemoryPauses } from "../../src/core/pauses.ts"
import type { Signal } from "../../src/core/port.ts"
import { SendRefusedError } from "../../src/host/send-log.ts"
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

/** `paths`: the recovery paths to run instead of every path (paths/index.ts). */
export function makeHarness(rawOptions: Record<string, unknown> = {}, env: Record<string, string> = {}, paths: readonly AnyPath[] = recoveryPaths): Harness {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const pauses = new MemoryPauses()
  const engine = new RecoveryEngine({ paths, port, time, options: resolveOptions(rawOptions, env), pauses })
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

/** A broken stream as the host reports it when it gives up (a streaming name and message). */
export const streamFailure = { type: "error", name: "APIError", message: "Streaming response failed: connection reset" } as const

/**
 * Makes `h`'s host a dead endpoint, as the matrix's `__modelFailsAfterPrompt`: every prompt of
 * ours shows up, starts a run, and that run fails `failAfterMs` later with `streamFailure` and
 * goes idle, with no model output, unless `speaks` (the model says something first). The port
 * refuses a send closer than `spacingMs` to the previous one it took, as both real ports do
 * (injectIntervalMs): such a send throws SendRefusedError and nothing reaches the session.
 * Returns the texts the host took and the refusals it made.
 */
export function deadEndpoint(h: Harness, opts: { failAfterMs?: number; spacingMs?: number; speaks?: boolean } = {}) {
  const { failAfterMs = 1000, spacingMs = 5000, speaks = false } = opts
  const taken: { at: number; text: string }[] = []
  const refused: number[] = []
  const send = h.port.send.bind(h.port)
  h.port.send = (request) => {
    const now = h.time.now()
    const last = taken.at(-1)?.at
    if (last !== undefined && now - last < spacingMs) {
      refused.push(now)
      void send(request)
      return Promise.reject(new SendRefusedError(`send refused: ${now - last}ms after the previous one to this session (injectIntervalMs=${spacingMs})`))
    }
    taken.push({ at: now, text: request.text })
    const done = send(request)
    h.time.schedule(0, () => h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, ...(speaks ? [{ type: "modelOutput" as const }] : [])))
    h.time.schedule(failAfterMs, () => h.emit(streamFailure, { type: "idle" }))
    return done
  }
  return { taken, refused }
}
