/**
 * The pause store a running plugin hands its engine, the same on both hosts: the marker file
 * the `auto-resume-toggle` CLI and the slash command write (file-pauses.ts), re-read at most
 * every check interval, with this process's lease refreshed on the same beat (lease-keeper.ts),
 * unless the caller injected a store of its own (tests). The slash
 * command needs a store it can write to: the file store always is one, an injected store only
 * when it offers pause/resume.
 */
import type { PauseSource } from "../core/pauses.ts"
import { FilePauses, isPauseControl, type PauseControl, type PauseLog } from "./file-pauses.ts"
import { pauseFilePath } from "./marker-format.ts"

export type HostPausesOptions = {
  /** A store to use instead of the marker file. */
  injected?: PauseSource
  /** Where the marker file lives (XDG_CONFIG_HOME, HOME). */
  env: Record<string, string | undefined>
  /** The watchdog's checkIntervalMs: a CLI pause is honoured within one check. */
  recheckMs: number
  /** Epoch milliseconds (the file is shared with other processes, so wall time). */
  now: () => number
  /** The host's timer, for the lease refresh (unref'd: it must not keep the process alive). */
  schedule: (delayMs: number, fn: () => void) => () => void
  log: PauseLog
}

export type HostPauses = {
  /** What the engine asks. */
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
    now: options.now,
    schedule: options.schedule,
    log: options.log,
  })
  void file.start()
  return { source: file, control: file, stop: () => file.stop() }
}
