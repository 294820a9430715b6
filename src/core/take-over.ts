/**
 * What a new engine takes over from the one before it: the session snapshots of an instance
 * replaced in the same process (a plugin reload), and the rate-limit waits a process that did
 * not exit cleanly left in the wait file (a restart). Both never throw for one bad entry.
 */
import type { Signal } from "./port.ts"
import type { EngineContext } from "./context.ts"
import { errorText } from "./logger.ts"
import type { RestoredWait } from "./carried-waits.ts"
import { restoreState, type SessionSnapshot } from "./session-snapshot.ts"
import type { SessionState } from "./session-state.ts"
import { MAX_TRACKED_SESSIONS, type SessionTable } from "./session-table.ts"

export type TakeOverDeps = {
  ctx: EngineContext
  sessions: SessionTable
  /**
   * The session came from the instance replaced: the recovery paths take back the states its
   * snapshot carried (`saved`) and re-arm what they keep (runtime/paths.ts).
   */
  adopted(state: SessionState, saved: unknown): void
  /** A wait a previous process left for the session, to the recovery paths: true when one took it (runtime/paths.ts). */
  restoreWait(state: SessionState, wait: RestoredWait): boolean
  handle(signal: Signal): void
  disposed(): boolean
}

/** Takes over sessions from a previous instance; skips ids already tracked. Returns how many. */
export function takeOverSnapshots({ ctx, sessions, adopted }: TakeOverDeps, snapshots: readonly unknown[]): number {
  const now = ctx.time.now()
  let taken = 0
  for (const snap of snapshots.slice(-MAX_TRACKED_SESSIONS)) {
    const restored = restoreState(snap, now)
    if (!restored || sessions.get(restored.id)) continue
    const state = Object.assign(sessions.touch(restored.id, now), restored)
    taken++
    adopted(state, (snap as SessionSnapshot).paths)
  }
  return taken
}

/**
 * Rate-limit waits a previous process left behind, already claimed from the file: each
 * session resumes its wait for the time left (none left: its continue goes out once the
 * session is idle), with the agent and model it had. Returns how many were taken.
 */
export function takeOverWaits({ ctx, sessions, restoreWait, handle, disposed }: TakeOverDeps, waits: readonly RestoredWait[]): number {
  let taken = 0
  for (const wait of waits.slice(0, MAX_TRACKED_SESSIONS)) {
    try {
      if (disposed()) break
      const state = sessions.touch(wait.sessionID, ctx.time.now())
      if (!state.setup.agent && !state.setup.model) state.setup = { ...(wait.agent ? { agent: wait.agent } : {}), ...(wait.model ? { model: wait.model } : {}) }
      if (wait.busy && !state.busy) handle({ type: "busy", sessionID: wait.sessionID, inferred: true })
      if (restoreWait(state, wait)) taken++
    } catch (error) {
      ctx.logger.fault("engine", `restoring the wait of session ${wait.sessionID} failed: ${errorText(error)}`)
    }
  }
  return taken
}
