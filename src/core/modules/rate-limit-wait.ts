/**
 * The rate-limit wait of the provider-failures path: armed by a 429 or quota error the host
 * gave up on (or handed to a fallback model instead), ended by the model answering, the user
 * writing, ESC or a pause, answered by one continue once it is over, and mirrored to the wait
 * file (rate-wait-mirror.ts) so that a restart can carry it over. The rungs themselves are
 * decided in rate-limit.ts.
 */
import type { Signal } from "../port.ts"
import { rateLimitResumeReason } from "../../prompts/failures.ts"
import { formatDuration, formatLocalTime } from "../../prompts/format.ts"
import type { RestoredWait } from "../carried-waits.ts"
import type { EngineContext } from "../context.ts"
import type { EffectOf } from "../effect.ts"
import type { JournalTag } from "../journal.ts"
import { hostWaitFloor, type HostRetryDecision, type HostRetryProposal } from "../host-retry.ts"
import { classifyOutage, outageLabel } from "../outage.ts"
import { rateLimitResumed, registerRateLimitHit, clearRateLimit, type RateLimitState } from "../rate-limit.ts"
import { endMirror, mirrorWait, type WaitMirror } from "../rate-wait-mirror.ts"
import { planned, type Planned } from "../run-effect.ts"
import type { SessionState } from "../session-state.ts"

/** The part of a session's provider-failure record this file owns. */
export type RateTracked = { rate: RateLimitState; rateHitAt: number; mirror: WaitMirror }

export type RateWaitDeps = {
  ctx: EngineContext
  /** The module's shared wake (the chain and the wait ask for one timer). */
  wakeAt(state: SessionState, t: RateTracked, at: number | undefined): void
  /** The continue the provider-failures path sends, with its label. */
  continueOf(state: SessionState, reason: string): EffectOf<"continue">
  label: string
}

export function rateLimitWaits({ ctx, wakeAt, continueOf, label }: RateWaitDeps) {
  /** The wait is over (the model answered, the user wrote, ESC, a pause): cleared, and out of the wait file. */
  function end(state: SessionState, t: RateTracked, why: string): void {
    t.rate = clearRateLimit()
    t.mirror = endMirror(ctx, state, t.mirror, why)
  }

  function arm(state: SessionState, t: RateTracked, registered: ReturnType<typeof registerRateLimitHit>, now: number, why: string): void {
    t.rate = registered.state
    t.rateHitAt = now
    const gate = registered.gate
    t.mirror = mirrorWait(ctx, state, { ...t.mirror, carriedOver: false }, t.rate, now)
    if (gate.kind === "wait") {
      ctx.logger.log("info", `session ${state.id}: rate limited (${why}); hit ${t.rate.hits}, waiting until ${formatLocalTime(gate.allowedAt)} (${formatDuration(gate.allowedAt - now)})`)
      wakeAt(state, t, Math.min(gate.allowedAt, now + ctx.effective(state).checkIntervalMs))
    } else if (gate.kind === "silent-until-user") {
      ctx.logger.log("warn", `session ${state.id}: rate limited past the cooldown ladder; silent until the user writes`)
    }
  }

  /** A rate-limit error: the next rung of the wait, unless a fallback model takes over instead. */
  function hit(state: SessionState, t: RateTracked, signal: Extract<Signal, { type: "error" }>, why: string): void {
    const now = ctx.time.now()
    const before = t.rate
    const registered = registerRateLimitHit(t.rate, now, ctx.effective(state).rateLimitCooldownsMs, {
      retryAfterMs: signal.retryAfterMs,
      paused: ctx.pauses.isPaused(state.id),
    })
    const gate = registered.gate
    // A wait longer than a stall budget (or one that lasts until the user writes) may be
    // spent on a fallback model instead; if that cannot happen after all, the wait applies.
    const waitMs = gate.kind === "wait" ? gate.allowedAt - now : gate.kind === "silent-until-user" ? Infinity : 0
    const waitOut = () => {
      if (t.rate === before) arm(state, t, registered, now, why)
    }
    const offer = `${outageLabel(classifyOutage(signal), `rate limited: ${why}`)}; the wait would be ${Number.isFinite(waitMs) ? formatDuration(waitMs) : "until the user writes"}`
    // The offer says how long the wait is; the history's note need only say it still applies.
    if (waitMs > 0 && ctx.offerTakeOver(state, { why: offer, waitMs, hostRetrying: false, otherwise: waitOut, instead: "the usual wait applies" })) return
    arm(state, t, registered, now, why)
  }

  /**
   * The host proposes its own retry of a rate limit (host-retry.ts). While the host still
   * retries, its retry is the wait: the ladder does not start a wait of its own beside it and
   * does not climb a rung per attempt (a burst 429 the host retries in 2 s stays a 2 s wait).
   * Two things change the host's proposal: the provider's Retry-After, when longer than the
   * host's delay (the host caps it), re-times the retry; a wait longer than a stall budget may go
   * to a fallback model at once, and then the host does not retry. Once the host's budget is
   * spent the run fails, and the ladder takes over from its first rung as it does without the
   * hook. While paused the host's own proposal stands.
   */
  function hostRetry(state: SessionState, proposal: HostRetryProposal, why: string): HostRetryDecision | undefined {
    if (ctx.pauses.isPaused(state.id) || !proposal.proposed.retry) return undefined
    const waitMs = hostWaitFloor(proposal)
    const offer = `${outageLabel(classifyOutage(proposal), `rate limited: ${why}`)}; the wait would be ${formatDuration(waitMs)}`
    // Should the switch not happen after all, the run fails at its idle and the ladder's usual wait follows.
    if (waitMs > 0 && ctx.offerTakeOver(state, { why: offer, waitMs, hostRetrying: false, instead: "the usual wait applies" })) return { retry: false }
    if (waitMs <= proposal.proposed.delayMs) return undefined
    ctx.logger.log("info", `session ${state.id}: the host's retry ${proposal.attempt} is timed to the provider's Retry-After (${formatDuration(waitMs)}; it proposed ${formatDuration(proposal.proposed.delayMs)})`)
    return { retry: true, delayMs: waitMs }
  }

  function resume(state: SessionState, t: RateTracked, hold: string | undefined): Planned | undefined {
    if (state.busy) return undefined
    // Held (a question open, the task marked complete...): the wait is not spent; look again
    // later. A pause or ESC never gets here: the wake ended the wait already.
    const waited = Math.max(0, ctx.time.now() - t.rateHitAt)
    if (hold) {
      // In the history once per run and reason (the book's rule), not once per look.
      ctx.journal?.refused(state, journalOf(t, waited), "continue", "held", hold)
      wakeAt(state, t, ctx.time.now() + ctx.effective(state).checkIntervalMs)
      return undefined
    }
    t.rate = rateLimitResumed(t.rate)
    // Out of the file before the continue goes: a crash from here on loses it rather than sends it twice.
    const carried = t.mirror.carriedOver
    const journal = journalOf(t, waited)
    t.mirror = endMirror(ctx, state, t.mirror, "its continue goes out")
    // Quota waits never spend the continue budget: the ladder itself is the bound.
    ctx.logger.log("info", `session ${state.id}: rate-limit wait over (hit ${t.rate.hits}${carried ? ", carried over from a restart" : ""}); one continue`)
    const resumed = t.rate
    return planned(continueOf(state, rateLimitResumeReason(resumed.hits, waited)), {
      label,
      journal,
      onSettled: (outcome) => {
        // A send past sendTimeoutMs may still be carried out: sending it again could deliver the
        // same continue twice, so it counts as sent.
        if (outcome === "ok" || outcome === "held" || outcome === "timeout" || t.rate !== resumed) return
        // Refused (another call in flight, the send spacing) or failed: the rung is not spent;
        // try again shortly rather than leave the session waiting for nothing.
        const retryAt = ctx.time.now() + Math.max(1000, ctx.effective(state).injectIntervalMs)
        t.rate = { ...resumed, phase: "waiting", allowedAt: retryAt }
        wakeAt(state, t, retryAt)
      },
    })
  }

  /** How the wait's continue reads in the history, sent or held: its rung, how long it waited, whether it came over a restart. */
  function journalOf(t: RateTracked, waitedMs: number): JournalTag {
    return { trigger: "rate limit", evidence: `hit ${t.rate.hits}; waited ${formatDuration(waitedMs)}`, ...(t.mirror.carriedOver ? { note: "carried over from a restart" } : {}) }
  }

  /** A wait carried over from a process that did not exit cleanly, resumed with its remaining time. */
  function adopt(state: SessionState, t: RateTracked, wait: RestoredWait): void {
    const now = ctx.time.now()
    // Not before one check interval: by then the pause file has been read, so a pause set
    // while no OpenCode ran still ends the wait instead of meeting its continue.
    const check = ctx.effective(state).checkIntervalMs
    t.rate = { phase: "waiting", hits: Math.max(1, wait.rung), allowedAt: now + Math.max(wait.remainingMs, check) }
    t.rateHitAt = now - (wait.elapsedMs ?? 0)
    t.mirror = { saved: true, carriedOver: true }
    const left = wait.remainingMs > 0 ? `until ${formatLocalTime(t.rate.allowedAt)} (${formatDuration(wait.remainingMs)} left)` : "already over: one continue once the session is idle"
    ctx.logger.log("info", `session ${state.id}: rate-limit wait carried over from a restart (hit ${t.rate.hits}); ${left}`)
    wakeAt(state, t, Math.min(t.rate.allowedAt, now + check))
  }

  return { end, hit, hostRetry, resume, adopt }
}
