import type { PauseSource } from "../core/pauses.ts"
import type { HoldView } from "../core/pause-leases.ts"

export type PauseOutcome =
  | { ok: true; paused: boolean; allPaused: boolean; /** The change lives only in memory: the file could not be written. */ memoryOnly?: string }
  | { ok: false; error: string }

/** What the slash command needs from a pause store (FilePauses, or a fake in tests). */
export interface PauseControl extends PauseSource {
  allPaused(): boolean
  pause(sessionID: string): Promise<PauseOutcome>
  resume(sessionID: string): Promise<PauseOutcome>
  /** Who holds the session's own pause and since when (undefined: not paused on its own). */
  holdOf?(sessionID: string): HoldView | undefined
  /** The same for the pause of all sessions. */
  allHoldOf?(): HoldView | undefined
}

/** True for a pause store the slash command can drive (FilePauses does; MemoryPauses does not). */
export function isPauseControl(value: unknown): value is PauseControl {
  const v = value as Partial<PauseControl> | null | undefined
  return typeof v?.isPaused === "function" && typeof v.allPaused === "function" && typeof v.pause === "function" && typeof v.resume === "function"
}
