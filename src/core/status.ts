/** A read-only snapshot of one session, for logs, `/auto-resume status` and tests. */
import type { Options } from "../options/index.ts"
import { profileOf } from "../options/index.ts"
import { continuesInWindow } from "./ladder.ts"
import type { RecoveryRecord, SessionState } from "./session-state.ts"

export type SessionStatus = {
  sessionID: string
  paused: boolean
  busy: boolean
  openTools: { callID: string; tool: string; ageMs: number }[]
  awaitingUser: boolean
  cancelledByUser: boolean
  completed: boolean
  episodeRetries: number
  stallEpisodeMaxContinues: number
  continuesInWindow: number
  loopMaxContinues: number
  lifetimeContinues: number
  lifetimeMaxContinues: number
  profile: "fast" | "slow"
  lastRecovery?: RecoveryRecord
}

export function sessionStatus(state: SessionState, now: number, options: Options, paused: boolean): SessionStatus {
  return {
    sessionID: state.id,
    paused,
    busy: state.busy,
    openTools: [...state.openTools].map(([callID, t]) => ({ callID, tool: t.tool, ageMs: now - t.startedAt })),
    awaitingUser: state.awaiting.size > 0,
    cancelledByUser: state.cancelledByUser,
    completed: state.completed,
    episodeRetries: state.episodeRetries,
    stallEpisodeMaxContinues: options.stallEpisodeMaxContinues,
    continuesInWindow: continuesInWindow(state.recentContinues, now, options.loopWindowMs),
    loopMaxContinues: options.loopMaxContinues,
    lifetimeContinues: state.lifetimeContinues,
    lifetimeMaxContinues: options.lifetimeMaxContinues,
    profile: profileOf(state.setup.model?.providerID),
    lastRecovery: state.lastRecovery,
  }
}
