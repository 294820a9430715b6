/**
 * The rate-limit wait of a failing provider: armed by a 429 or quota error the host gave up on
 * (or handed to a fallback model instead), ended by the model answering, the user writing, ESC
 * or a pause, answered by one continue once it is over, and mirrored to the wait file so that a
 * restart can carry it over. The rungs themselves are decided in core/rate-limit.ts.
 */
import type { RestoredWait } from "../../core/carried-waits.ts"
import { hostWaitFloor, type HostRetryDecision, type HostRetryProposal } from "../../core/host-retry.ts"
import type { JournalTag } from "../../core/journal.ts"
import type { Signal } from "../../core/port.ts"
import { clearRateLimit, rateLimitGate, rateLimitResumed, registerRateLimitHit, type RateLimitState } from "../../core/rate-limit.ts"
import type { Outcome } from "../../core/run-effect.ts"
import type { RateLimitWaitStatus } from "../../core/status.ts"
import { formatDuration, formatLocalTime } from "../../prompts/format.ts"
import { NO_MIRROR, type Draft, type FailingProvider, type Otherwise } from "./failing-provider.ts"
import { takeOver } from "./fallback-switch.ts"
import { classifyOutage, outageLabel } from "./outage.ts"
import { rateLimitResumeReason } from "./prompts.ts"
import { FAILURE_LABEL, failureContinue } from "./streaming-chain.ts"

/** Why the wait keeps every recovery out of the session now, or undefined. */
export function waitHold(state: FailingProvider, now: number): string | undefined {
  const gate = rateLimitGate(state.rate, now)
  if (gate.kind === "wait") return `rate limited until ${formatLocalTime(gate.allowedAt)}`
  if (gate.kind === "silent-until-user") return "rate limited past the cooldown ladder; waiting for the user"
  return undefined
}

/** A wait runs or lasts until the user writes (the first rung is 15 minutes, past the idle sweep). */
export function waitRuns(state: FailingProvider): boolean {
  return state.rate.phase === "waiting" || state.rate.phase === "silent"
}

/** The session's running wait, for the status. */
export function waitStatus(state: FailingProvider): RateLimitWaitStatus | undefined {
  if (state.rate.phase !== "waiting") return undefined
  return { until: state.rate.allowedAt, rung: state.rate.hits, carriedOver: state.mirror.carriedOver }
}

/** The wait is over (the model answered, the user wrote, ESC, a pause): cleared, and out of the wait file. */
export function endWait(d: Draft, why: string): void {
  d.state.rate = clearRateLimit()
  endMirror(d, why)
}

function endMirror(d: Draft, why: string): void {
  const mirror = d.state.mirror
  if (!mirror.saved && !mirror.carriedOver) return
  if (mirror.saved) d.effects.push({ kind: "carry-wait", why })
  d.state.mirror = NO_MIRROR
}

/** Records the wait that is running in the wait file; anything else ends the record. */
function mirrorWait(d: Draft, carriedOver: boolean): void {
  const { rate, rateHitAt } = d.state
  d.state.mirror = { ...d.state.mirror, carriedOver }
  if (rate.phase !== "waiting" || !Number.isFinite(rate.allowedAt)) return endMirror(d, "the wait is not running")
  d.effects.push({ kind: "carry-wait", wait: { rung: rate.hits, until: rate.allowedAt, since: rateHitAt, carriedOver }, why: "the wait runs" })
  d.state.mirror = { saved: true, carriedOver }
}

type Registered = Extract<Otherwise, { kind: "wait" }>["registered"]

/** The wait of rung `registered` starts (it was hit at `at`). */
export function armWait(d: Draft, registered: Registered, at: number, why: string): void {
  const s = d.state
  s.rate = registered.state
  s.rateHitAt = at
  mirrorWait(d, false)
  const gate = registered.gate
  if (gate.kind === "wait") {
    d.log("info", `session ${d.session.id}: rate limited (${why}); hit ${s.rate.hits}, waiting until ${formatLocalTime(gate.allowedAt)} (${formatDuration(gate.allowedAt - at)})`)
    d.wakeAt(Math.min(gate.allowedAt, at + d.options().checkIntervalMs))
  } else if (gate.kind === "silent-until-user") {
    d.log("warn", `session ${d.session.id}: rate limited past the cooldown ladder; silent until the user writes`)
  }
}

/** A rate-limit error: the next rung of the wait, unless a fallback model takes over instead. */
export function rateLimitHit(d: Draft, signal: Extract<Signal, { type: "error" }>, why: string): void {
  const now = d.now
  const registered = registerRateLimitHit(d.state.rate, now, d.options().rateLimitCooldownsMs, { retryAfterMs: signal.retryAfterMs, paused: d.ctx.paused() })
  const gate = registered.gate
  // A wait longer than a stall budget (or one that lasts until the user writes) may be
  // spent on a fallback model instead; if that cannot happen after all, the wait applies.
  const waitMs = gate.kind === "wait" ? gate.allowedAt - now : gate.kind === "silent-until-user" ? Infinity : 0
  const offer = `${outageLabel(classifyOutage(signal), `rate limited: ${why}`)}; the wait would be ${Number.isFinite(waitMs) ? formatDuration(waitMs) : "until the user writes"}`
  // The offer says how long the wait is; the history's note need only say it still applies.
  const otherwise: Otherwise = { kind: "wait", before: d.state.rate, registered, at: now, why }
  if (waitMs > 0 && takeOver(d, { why: offer, waitMs, hostRetrying: false, otherwise, instead: "the usual wait applies" })) return
  armWait(d, registered, now, why)
}

/**
 * The host proposes its own retry of a rate limit (core/host-retry.ts). While the host still
 * retries, its retry is the wait: the ladder does not start a wait of its own beside it and
 * does not climb a rung per attempt (a burst 429 the host retries in 2 s stays a 2 s wait).
 * Two things change the host's proposal: the provider's Retry-After, when longer than the
 * host's delay (the host caps it), re-times the retry; a wait longer than a stall budget may go
 * to a fallback model at once, and then the host does not retry. Once the host's budget is
 * spent the run fails, and the ladder takes over from its first rung as it does without the
 * hook. While paused the host's own proposal stands.
 */
export function rateLimitRetry(d: Draft, proposal: HostRetryProposal, why: string): HostRetryDecision | undefined {
  if (d.ctx.paused() || !proposal.proposed.retry) return undefined
  const waitMs = hostWaitFloor(proposal)
  const offer = `${outageLabel(classifyOutage(proposal), `rate limited: ${why}`)}; the wait would be ${formatDuration(waitMs)}`
  // Should the switch not happen after all, the run fails at its idle and the ladder's usual wait follows.
  if (waitMs > 0 && takeOver(d, { why: offer, waitMs, hostRetrying: false, instead: "the usual wait applies" })) return { retry: false }
  if (waitMs <= proposal.proposed.delayMs) return undefined
  d.log("info", `session ${d.session.id}: the host's retry ${proposal.attempt} is timed to the provider's Retry-After (${formatDuration(waitMs)}; it proposed ${formatDuration(proposal.proposed.delayMs)})`)
  return { retry: true, delayMs: waitMs }
}

/** The wait is over: one continue once the session is idle and may be touched (`hold`: why it may not). */
export function resumeAfterWait(d: Draft, hold: string | undefined): void {
  if (d.session.busy) return
  const s = d.state
  const now = d.now
  // Held (a question open, the task marked complete...): the wait is not spent; look again
  // later. A pause or ESC never gets here: the wake ended the wait already.
  const waited = Math.max(0, now - s.rateHitAt)
  if (hold) {
    // In the history once per run and reason (the book's rule), not once per look.
    d.effects.push({ kind: "journal-refused", tag: journalOf(s, waited), action: "continue", why: "held", reason: hold })
    d.wakeAt(now + d.options().checkIntervalMs)
    return
  }
  s.rate = rateLimitResumed(s.rate)
  // Out of the file before the continue goes: a crash from here on loses it rather than sends it twice.
  const carried = s.mirror.carriedOver
  const journal = journalOf(s, waited)
  endMirror(d, "its continue goes out")
  // Quota waits never spend the continue budget: the ladder itself is the bound.
  d.log("info", `session ${d.session.id}: rate-limit wait over (hit ${s.rate.hits}${carried ? ", carried over from a restart" : ""}); one continue`)
  const id = d.nextId()
  d.remember({ id, what: "resume", resumed: s.rate })
  d.effects.push({ kind: "act", id, effect: failureContinue(d.options(), rateLimitResumeReason(s.rate.hits, waited)), via: { label: FAILURE_LABEL, journal } })
}

/** The continue after the wait is over. */
export function resumeSettled(d: Draft, resumed: RateLimitState, outcome: Outcome): void {
  // A send past sendTimeoutMs may still be carried out: sending it again could deliver the
  // same continue twice, so it counts as sent.
  if (outcome === "ok" || outcome === "held" || outcome === "timeout" || d.state.rate !== resumed) return
  // Refused (another call in flight, the send spacing) or failed: the rung is not spent;
  // try again shortly rather than leave the session waiting for nothing.
  const retryAt = d.now + Math.max(1000, d.options().injectIntervalMs)
  d.state.rate = { ...resumed, phase: "waiting", allowedAt: retryAt }
  d.wakeAt(retryAt)
}

/** How the wait's continue reads in the history, sent or held: its rung, how long it waited, whether it came over a restart. */
function journalOf(s: FailingProvider, waitedMs: number): JournalTag {
  return { trigger: "rate limit", evidence: `hit ${s.rate.hits}; waited ${formatDuration(waitedMs)}`, ...(s.mirror.carriedOver ? { note: "carried over from a restart" } : {}) }
}

/** A wait carried over from a process that did not exit cleanly, resumed with its remaining time. */
export function adoptWait(d: Draft, wait: RestoredWait): void {
  const s = d.state
  const now = d.now
  // Not before one check interval: by then the pause file has been read, so a pause set
  // while no OpenCode ran still ends the wait instead of meeting its continue.
  const check = d.options().checkIntervalMs
  s.rate = { phase: "waiting", hits: Math.max(1, wait.rung), allowedAt: now + Math.max(wait.remainingMs, check) }
  s.rateHitAt = now - (wait.elapsedMs ?? 0)
  s.mirror = { saved: true, carriedOver: true }
  const left = wait.remainingMs > 0 ? `until ${formatLocalTime(s.rate.allowedAt)} (${formatDuration(wait.remainingMs)} left)` : "already over: one continue once the session is idle"
  d.log("info", `session ${d.session.id}: rate-limit wait carried over from a restart (hit ${s.rate.hits}); ${left}`)
  d.wakeAt(Math.min(s.rate.allowedAt, now + check))
}
