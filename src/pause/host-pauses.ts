/**
 * The pause store a running plugin hands its engine, the same on both hosts: the marker file
 * the `auto-resume-toggle` CLI and the slash command write (file-pauses.ts), re-read at most
 * every check interval, unless the caller injected a store of its own (tests). The slash
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
  now: () => number
  log: PauseLog
}

export type HostPauses = {
  /** What the engine asks. */
  readonly source: PauseSource
  /** What `/auto-resume` writes to; undefined when the injected store is read-only. */
  readonly control: PauseControl | undefined
}

/** Builds the store; the marker file is reset in the background (once per process and path). */
export function hostPauses(options: HostPausesOptions): HostPauses {
  if (options.injected) return { source: options.injected, control: isPauseControl(options.injected) ? options.injected : undefined }
  const file = new FilePauses({ file: pauseFilePath(options.env), recheckMs: options.recheckMs, now: options.now, log: options.log })
  void file.start()
  return { source: file, control: file }
}
