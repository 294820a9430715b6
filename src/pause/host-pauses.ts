/**
 * The pause store a running plugin hands its engine on both hosts: the shared marker file, unless
 * the caller injected a store (tests); the slash command can write only to a store that offers pause/resume.
 */
import type { TimeSource } from "../core/clock.ts"
import type { PauseSource } from "../core/pauses.ts"
import { FilePauses, type PauseLog } from "./file-pauses.ts"
import { isPauseControl, type PauseControl } from "./pause-control.ts"
import { pauseFilePath } from "./marker-format.ts"

export type HostPausesOptions = {
  /** A store to use instead of the marker file. */
  injected?: PauseSource
  /** Where the marker file lives (XDG_CONFIG_HOME, HOME). */
  env: Record<string, string | undefined>
  /** The watchdog's checkIntervalMs: a CLI pause is honoured within one check. */
  recheckMs: number
  /**
   * The adapter's time: its wall clock stamps the file (shared with other processes and the
   * CLI, so never the forward-only clock), its timer refreshes the lease.
   */
  time: TimeSource
  log: PauseLog
}

export type HostPauses = {
  readonly source: PauseSource
  /** What `/auto-resume` writes to; undefined when the injected store is read-only. */
  readonly control: PauseControl | undefined
  /** Stops refreshing the lease (the instance is disposed); its pauses stay until the lease lapses. */
  stop(): void
}

/** Builds the store; the lease is written and the first check made in the background. */
export function hostPauses(options: HostPausesOptions): HostPauses {
  if (options.injected) return { source: options.injected, control: isPauseControl(options.injected) ? options.injected : undefined, stop: () => {} }
  const file = new FilePauses({
    file: pauseFilePath(options.env),
    recheckMs: options.recheckMs,
    now: () => (options.time.wall ? options.time.wall() : options.time.now()),
    schedule: (delayMs, fn) => options.time.schedule(delayMs, fn),
    log: options.log,
  })
  void file.start()
  return { source: file, control: file, stop: () => file.stop() }
}
