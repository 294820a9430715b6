/**
 * The session's ledger for a continue of its stall episode: what counting one means (the
 * episode, the loop window, the lifetime cap, the last recovery the ladder escalates from) and
 * what sending one means (the silence clock restarts). Shared session fields, written here once
 * for whichever path sends such a continue.
 */
import type { RecoveryKind, SessionState } from "../core/session-state.ts"
import { recoveryRecord } from "../core/session-state.ts"

/** How many continue timestamps to keep: enough to judge any loop window. */
export const MAX_RECENT_CONTINUES = 32

export function countEpisodeContinue(state: SessionState, kind: RecoveryKind, reason: string, now: number, loopWindowMs: number): void {
  state.episodeRetries++
  state.lifetimeContinues++
  state.recentContinues = [...state.recentContinues.filter((t) => now - t < loopWindowMs).slice(-(MAX_RECENT_CONTINUES - 1)), now]
  state.lastRecovery = recoveryRecord(state, kind, reason, now)
  // Our own action restarts the silence clock; otherwise the next deadline would fire at once.
  state.lastActivityAt = now
}

/** The continue reached the session: the silence clock restarts from it. */
export function episodeContinueSent(state: SessionState, now: number): void {
  state.lastActivityAt = Math.max(state.lastActivityAt, now)
}
