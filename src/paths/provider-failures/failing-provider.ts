/**
 * A failing provider as the path keeps it per session: the streaming-failure chain, the
 * rate-limit wait and a fallback model's switch in one state, because each hands the session to
 * another: a wait or a give-up may become a switch, and a switch that cannot happen after all
 * becomes the wait or the give-up again, within one step and with no callback between them.
 *
 * A step works on a Draft: the next state, the effects asked for and the one wake, built while
 * the session is read. Effects are data; their outcomes come back as `effectSettled` inputs,
 * matched to what the path sent by the effect's id.
 */
import type { FallbackEpisode } from "../../core/fallback.ts"
import type { HostRetryDecision } from "../../core/host-retry.ts"
import { INITIAL_RATE_LIMIT_STATE, rateLimitGate, type RateLimitGate, type RateLimitState } from "../../core/rate-limit.ts"
import type { PathEffect, StepContext, StepResult } from "../../runtime/path.ts"
import { INITIAL_FAILURE_STATE, type FailureState } from "./failure-chain.ts"

/** The session's wait as the wait file holds it, so that a restart can carry it over. */
export type WaitMirror = {
  /** The file holds this session's wait. */
  saved: boolean
  /** The wait came from a previous process (the status and the history say so). */
  carriedOver: boolean
}

export const NO_MIRROR: WaitMirror = { saved: false, carriedOver: false }

/** A prompt of the path's on its way, by the id its outcome comes back with. */
export type Sent =
  | { id: number; what: "chain"; kind: "continue" | "abort-continue" }
  /** The one continue after a rate-limit wait; `resumed`: the wait it ended, unless another began since. */
  | { id: number; what: "resume"; resumed: RateLimitState }

/** What the offering part does after all when no fallback model takes the session (the wait or give-up it skipped). */
export type Otherwise =
  | { kind: "give-up"; latched: FailureState; reason: string }
  | { kind: "not-recovered"; text: string }
  | { kind: "wait"; before: RateLimitState; registered: { state: RateLimitState; gate: RateLimitGate }; at: number; why: string }

/**
 * A part that would wait or give up offers the session to a fallback model: why, how long it
 * would wait (Infinity: until the user writes), whether the host still holds a retry of its own
 * that must be ended first, what happens otherwise, and what that is in the history's words.
 */
export type Offer = { why: string; waitMs: number; hostRetrying: boolean; instead: string; otherwise?: Otherwise }

/**
 * A switch to a fallback model: `at-idle` while the failed run ends (the continue goes out at
 * its idle), `reading` the newest turn, `sending` the continue (`id`: the effect carrying it).
 */
export type Switch = { offer: Offer; previous: FallbackEpisode | undefined; episode: FallbackEpisode; phase: "at-idle" | "reading" | "sending"; id: number }

export type FailingProvider = {
  /**
   * The session had a provider error (or a wait carried over): until then every part is in its
   * initial state and nothing needs feeding, so a healthy session costs the path nothing.
   */
  tracked: boolean
  failure: FailureState
  rate: RateLimitState
  rateHitAt: number
  mirror: WaitMirror
  /** The one wake the parts share. */
  wakeAt?: number
  lastId: number
  sent: readonly Sent[]
  switching?: Switch
  /**
   * The session went on with a fallback model: when the wait of the user's model would have
   * ended (`at`, the wait being `waitMs`), it goes back to that model at its next turn boundary.
   */
  back?: { at: number; waitMs: number }
}

export const INITIAL_FAILING_PROVIDER: FailingProvider = {
  tracked: false,
  failure: INITIAL_FAILURE_STATE,
  rate: INITIAL_RATE_LIMIT_STATE,
  rateHitAt: 0,
  mirror: NO_MIRROR,
  lastId: 0,
  sent: [],
}

/** Prompts of ours the path remembers at most: only one is ever out at a time, this bounds the list regardless. */
const MAX_SENT = 8

export class Draft {
  readonly state: FailingProvider
  readonly effects: PathEffect[] = []
  retry?: HostRetryDecision

  constructor(
    from: FailingProvider,
    readonly ctx: StepContext,
  ) {
    this.state = { ...from }
  }

  get now(): number {
    return this.ctx.now
  }

  get session() {
    return this.ctx.session
  }

  options() {
    return this.ctx.options()
  }

  log(level: "warn" | "info" | "debug", text: string): void {
    this.effects.push({ kind: "log", level, text })
  }

  /** A fresh id for an effect whose outcome the path waits for. */
  nextId(): number {
    return ++this.state.lastId
  }

  remember(sent: Sent): void {
    this.state.sent = [...this.state.sent.slice(-(MAX_SENT - 1)), sent]
  }

  /** Takes the prompt `id` answers off the list; undefined when it is not the path's (or no longer). */
  takeSent(id: number): Sent | undefined {
    const sent = this.state.sent.find((s) => s.id === id)
    if (sent) this.state.sent = this.state.sent.filter((s) => s !== sent)
    return sent
  }

  /** The path's wake at `at` (undefined: unchanged): the chain's never pushes back the end of a running rate-limit wait. */
  wakeAt(at: number | undefined): void {
    if (at === undefined) return
    const gate = rateLimitGate(this.state.rate, this.now)
    this.state.wakeAt = gate.kind === "wait" ? Math.min(at, gate.allowedAt) : at
  }

  /** A wake no later than `at`, keeping an earlier one another part asked for. */
  wakeBy(at: number): void {
    const current = this.state.wakeAt
    this.state.wakeAt = current !== undefined && current > this.now ? Math.min(current, at) : at
  }

  /** The wake at `at` exactly, replacing any. */
  wakeExactlyAt(at: number | undefined): void {
    this.state.wakeAt = at
  }

  result(): StepResult<FailingProvider> {
    const { wakeAt } = this.state
    return { state: this.state, effects: this.effects, ...(wakeAt !== undefined ? { wakeAt } : {}), ...(this.retry ? { retry: this.retry } : {}) }
  }
}
