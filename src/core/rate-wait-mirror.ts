/**
 * The provider-failure module's rate-limit wait, mirrored to the wait store (carried-waits.ts)
 * so a restart can resume it: saved when a wait is armed, ended the moment it is over for any
 * reason. The engine's clock may run ahead of the wall after a backward step; the file is
 * shared with other processes, so what goes in is wall time.
 */
import type { EngineContext } from "./context.ts"
import type { RateLimitState } from "./rate-limit.ts"
import type { SessionState } from "./session-state.ts"

export type WaitMirror = {
  /** The store holds this session's wait. */
  saved: boolean
  /** The wait came from a previous process (status and history say so). */
  carriedOver: boolean
}

export const NO_MIRROR: WaitMirror = { saved: false, carriedOver: false }

/** Engine time `at` on the wall clock. */
export function wallTime(ctx: EngineContext, at: number): number {
  const wall = ctx.time.wall?.()
  return wall === undefined ? at : wall + (at - ctx.time.now())
}

/** Records a wait that is running (`waiting`); anything else ends the mirror. */
export function mirrorWait(ctx: EngineContext, state: SessionState, mirror: WaitMirror, rate: RateLimitState, hitAt: number): WaitMirror {
  if (!ctx.rateWaits) return mirror
  if (rate.phase !== "waiting" || !Number.isFinite(rate.allowedAt)) return endMirror(ctx, state, mirror, "the wait is not running")
  const wait: Parameters<NonNullable<EngineContext["rateWaits"]>["save"]>[0] = {
    sessionID: state.id,
    rung: rate.hits,
    until: Math.round(wallTime(ctx, rate.allowedAt)),
    since: Math.round(wallTime(ctx, hitAt)),
  }
  if (state.setup.agent) wait.agent = state.setup.agent
  if (state.setup.model) wait.model = state.setup.model
  if (mirror.carriedOver) wait.carriedOver = true
  ctx.rateWaits.save(wait)
  return { ...mirror, saved: true }
}

/** The wait is over: out of the store (once), with a debug line saying why. */
export function endMirror(ctx: EngineContext, state: SessionState, mirror: WaitMirror, why: string): WaitMirror {
  if (!mirror.saved && !mirror.carriedOver) return mirror
  if (mirror.saved && ctx.rateWaits) {
    ctx.rateWaits.end(state.id)
    ctx.logger.log("debug", `session ${state.id}: rate-limit wait removed from the wait file (${why})`)
  }
  return NO_MIRROR
}
