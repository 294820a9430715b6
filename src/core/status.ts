/** A read-only snapshot of one session, for logs, `/auto-resume status` and tests. */
import type { Options } from "../options/index.ts"
import { profileOf } from "../options/index.ts"
import { continuesInWindow } from "./ladder.ts"
import type { RecoveryRecord, SessionState } from "./session-state.ts"
import { backOnUserModel, modelKey, type FallbackEpisode } from "./fallback.ts"
import type { Notice } from "./notices.ts"

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
  /** A goal's budgets as they apply to this session. */
  goalMaxContinues: number
  goalMaxMs: number
  profile: "fast" | "slow"
  lastRecovery?: RecoveryRecord
  /** A fallback model that took over until the user writes: which, from which, since when, why. */
  fallback?: { model: string; userModel?: string; at: number; why: string }
  /** A rate-limit wait that runs; `carriedOver`: taken over from a process that did not quit cleanly. */
  rateLimitWait?: RateLimitWaitStatus
  /** Why no recovery may reach the session now, as a recovery path states it (a full context, unattended hours...). */
  heldBy?: string
  /** What the user was last told at once since their last message (it gave up, a fallback, a wait on them): 1.x showed it as a toast. */
  notice?: Notice
}

export type RateLimitWaitStatus = { until: number; rung: number; carriedOver: boolean }

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
    goalMaxContinues: options.goalMaxContinues,
    goalMaxMs: options.goalMaxMs,
    profile: profileOf(state.setup.model?.providerID),
    lastRecovery: state.lastRecovery,
    ...(state.fallback && !backOnUserModel(state.fallback) ? { fallback: fallbackStatus(state.fallback) } : {}),
  }
}

function fallbackStatus(episode: FallbackEpisode): NonNullable<SessionStatus["fallback"]> {
  const status: NonNullable<SessionStatus["fallback"]> = { model: modelKey(episode.active), at: episode.at, why: episode.why }
  if (episode.userModel) status.userModel = modelKey(episode.userModel)
  return status
}
