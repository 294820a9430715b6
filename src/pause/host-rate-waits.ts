/**
 * The wait store an instance hands its engine on both hosts (the wait file beside the pause
 * marker), and the take-over of a previous run's waits once the engine runs.
 */
import type { TimeSource } from "../core/clock.ts"
import type { RecoveryEngine } from "../core/engine.ts"
import type { HostPort, LogLevel } from "../core/port.ts"
import { describe } from "./marker-io.ts"
import { RateWaitFile, rateWaitFilePath } from "./rate-wait-file.ts"
import { FileRateWaitStore } from "./rate-wait-store.ts"

export type HostRateWaits = {
  readonly store: FileRateWaitStore
  /** Claims the waits a gone process left for this folder and resumes them in `engine` (in the background). */
  restore(engine: RecoveryEngine, port: HostPort, timeoutMs: number): void
}

export function hostRateWaits(options: {
  env: Record<string, string | undefined>
  directory: string | undefined
  time: TimeSource
  log: (level: LogLevel, message: string) => void
}): HostRateWaits {
  const { time, log } = options
  const wallNow = () => (time.wall ? time.wall() : time.now())
  const file = new RateWaitFile(rateWaitFilePath(options.env), { now: wallNow })
  const store = new FileRateWaitStore({ file, directory: options.directory, log, wallNow })
  return {
    store,
    restore(engine, port, timeoutMs) {
      const listRunning = () => bounded(time, timeoutMs, () => port.listBusySessions())
      void store
        .restore(listRunning, (waits) => {
          const taken = engine.restoreRateWaits(waits)
          if (taken > 0) log("info", `rate-limit waits: took over ${taken} wait(s) left by a previous run that did not exit cleanly`)
        })
        .catch((error) => log("warn", `rate-limit waits: taking over a previous run's waits failed: ${describe(error)}`))
    },
  }
}

/** `call`, or a rejection once `ms` have passed. */
function bounded<T>(time: TimeSource, ms: number, call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = time.schedule(ms, () => reject(new Error(`no answer within ${ms} ms`)))
    Promise.resolve()
      .then(call)
      .then(
        (value) => {
          cancel()
          resolve(value)
        },
        (error) => {
          cancel()
          reject(error)
        },
      )
  })
}
