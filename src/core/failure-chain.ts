/**
 * The recovery chain for a broken stream, as one pure reducer: backoff, recovery prompts,
 * then abort + resume, then giving up, with a latch when recoveries keep bringing nothing.
 * No clock, no timers: every step takes `now` and says when a `tick` is next worth making
 * (`wakeAt`). Only failures classified "streaming" (provider-failure.ts) are fed in.
 *
 * One incident runs from a failure to the next model output (or genuine user turn). A run our
 * recovery started that fails again before the model said anything is the same incident, not
 * a new one: the chain goes on to its next step instead of starting over at "recovery 1/N".
 * How the two budgets combine:
 *  - `streamingFailureMaxPrompts` bounds the prompts: a prompt the session never answers is
 *    judged by the watchdog, and after that many of them comes abort + resume, then the give-up;
 *  - `failureLoopLimit` bounds the recoveries answered by a failure with no model output (a
 *    dead endpoint that fails every prompt at once). The last recovery that limit allows is
 *    abort + resume, the strongest step, and the failure that answers it latches the loop.
 * With the defaults (3 and 3) a dead endpoint gets recovery 1/3, recovery 2/3, abort + resume
 * (3/3), then the give-up; a session that just stays silent gets prompts 1/3 to 3/3, abort +
 * resume, then the give-up. Either way the chain ends; model output starts it over.
 */
import type { Options } from "../options/index.ts"
import { none, type EffectOf } from "./effect.ts"
import { backoffDelay } from "./ladder.ts"
import { ECHO_GRACE_MS } from "./intervention.ts"

/**
 * clear          nothing to do
 * running        a run started after a recovery of ours, with no model output yet: the incident
 *                stays open, and a failure now continues it (nothing to tick meanwhile)
 * armed          a streaming failure was seen; waiting for idle and `notBefore` (backoff)
 * prompted       a recovery prompt was decided; once its host call settled (`sentAt`) and the
 *                prompt showed up in the session (`seenAt`) the watchdog expects busy soon
 * abort-resumed  retries ran out; abort + resume was decided. It is judged like a prompt: from
 *                when the continue's host call settled (`sentAt`, seconds after the decision:
 *                the abort, then the pause) and the continue showed up (`seenAt`)
 * gave-up        abort + resume did not revive the session either
 * loop-latched   `failureLoopLimit` recoveries in a row with no model output between them:
 *                the endpoint is down for good, stop cycling
 * gave-up and loop-latched are lifted by model output or a genuine user turn.
 */
export type FailurePhase = "clear" | "running" | "armed" | "prompted" | "abort-resumed" | "gave-up" | "loop-latched"

export type FailureState = {
  phase: FailurePhase
  /** Last busy/idle status seen. */
  busy: boolean
  /** Error name of the current incident. */
  reason: string
  /** Recovery prompts sent in the current incident. */
  attempts: number
  /** Abort + resume was used in the current incident: its failure or silence ends the chain. */
  aborted: boolean
  notBefore: number
  /** When the recovery went out: when its (continue's) host call settled (the `sent` event). */
  sentAt: number
  /**
   * Read only in phases prompted and abort-resumed, about the current recovery prompt (or abort +
   * resume's continue): its host call has not settled yet (a host that takes most of
   * sendTimeoutMs to accept it has had no time to show its effect); when it showed up in the
   * session (until then it may simply not have reached it); until when a call that timed out
   * may still be carried out. The chain judges none of them "did not revive" before: the next
   * identical prompt would land right behind it.
   */
  sending: boolean
  seenAt?: number
  mayLandUntil?: number
  /** Recoveries of ours answered by a failure, with no model output since (the loop count). */
  consecutive: number
}

export const INITIAL_FAILURE_STATE: FailureState = {
  phase: "clear",
  busy: false,
  reason: "",
  attempts: 0,
  aborted: false,
  notBefore: 0,
  sentAt: 0,
  sending: false,
  consecutive: 0,
}

export type FailureEvent =
  | { type: "failure"; name: string }
  | { type: "idle" }
  | { type: "busy" }
  | { type: "modelOutput" }
  | { type: "tick" }
  | { type: "sent"; mayLandUntil?: number }
  | { type: "refused"; retryAt: number }
  | { type: "ownPromptSeen" }
  | { type: "genuineUser" }

/**
 * A recovery prompt (`continue`), abort + resume (`abort-continue`), giving up (`stand-down`)
 * or nothing. `attempt` is the incident's recovery number, for the labels: for abort + resume
 * at most `maxAttempts` when the failure loop brought it forward, one more when it follows
 * every prompt.
 */
export type FailureEffect =
  | EffectOf<"none" | "stand-down">
  | (EffectOf<"continue" | "abort-continue"> & { attempt: number; maxAttempts: number })

export type FailureBudgets = Pick<Options, "streamingFailureMaxPrompts" | "baseBackoffMs" | "maxBackoffMs" | "streamingFailureWatchdogMs"> & {
  /** Recoveries in a row without model output before the failure loop latches (default 3). */
  failureLoopLimit?: number
}

export type FailureStep = {
  state: FailureState
  effect: FailureEffect
  /** When a `tick` could next change something (the engine's one watchdog deadline). */
  wakeAt?: number
}

export const DEFAULT_FAILURE_LOOP_LIMIT = 3
/** The watchdog never judges "still not busy" sooner than this, even with streamingFailureWatchdogMs 0. */
export const FAILURE_WATCHDOG_MIN_MS = 1_000

const NONE: FailureEffect = none("nothing due")

/** The chain has a next step to take (a recovery to send, or one to judge). */
export function chainPending(state: FailureState): boolean {
  return state.phase === "armed" || awaitsEffect(state.phase)
}

/** The phases that sent something and wait for its host call to settle and its effect to show. */
function awaitsEffect(phase: FailurePhase): boolean {
  return phase === "prompted" || phase === "abort-resumed"
}

function watchdogMs(budgets: FailureBudgets): number {
  return Math.max(budgets.streamingFailureWatchdogMs, FAILURE_WATCHDOG_MIN_MS)
}

/**
 * When a settled, still-unanswered recovery prompt (or abort + resume's continue) is judged
 * "did not revive": the watchdog after the later of its settle and its appearance in the
 * session; a prompt never seen gets the grace on top and then the old verdict, so a host that
 * never echoes cannot wedge the chain.
 */
function promptVerdictAt(state: FailureState, budgets: FailureBudgets): number {
  if (state.seenAt === undefined) return Math.max(state.sentAt, state.mayLandUntil ?? 0) + watchdogMs(budgets) + ECHO_GRACE_MS
  return Math.max(state.sentAt, state.seenAt) + watchdogMs(budgets)
}

/**
 * One step of the chain. The engine feeds:
 *  - `failure` for a `session.error` classified "streaming" (nothing else);
 *  - `busy` / `idle` for status changes; `modelOutput` for any new text, reasoning or tool call;
 *  - `genuineUser` for a real user message (the user's ESC needs no event: the guards below
 *    refuse everything until such a message, which resets the chain);
 *  - `tick` at `wakeAt`, and while a guard refuses (below), every checkIntervalMs;
 *  - `sent` when the host call of a `continue` settled, however it went, and for
 *    `abort-continue` when its continue's call settled or it is known that none will go out (the
 *    watchdog after either counts from here; until then the chain waits); a call that timed
 *    out carries `mayLandUntil`, how long the host may still carry it out;
 *  - `refused` instead of `sent` when a `continue` never reached the host (held at the last
 *    moment, another call in flight, the send spacing): the attempt is not spent, the same
 *    prompt is due again at `retryAt`;
 *  - `ownPromptSeen` when the plugin's own user message shows up in the session (the watchdog
 *    also waits for this, up to ECHO_GRACE_MS past its usual time).
 * and carries out the effect: `continue` -> a recovery prompt (continue text) to the session;
 * `abort-continue` -> own abort, then a continue after ABORT_CONTINUE_DELAY_MS;
 * `stand-down` -> one log line (the chain gave up). It must check its guards (cancelled, paused, awaiting the user,
 * completed, the out-of-context lock, the rate-limit gate, a prompt of ours on its way, the
 * send spacing) before `tick`/`idle`. While they refuse it feeds neither, only records that
 * the session is idle (`busy: false`), and ticks again later: the chain just waits.
 */
export function nextFailureStep(state: FailureState, event: FailureEvent, now: number, budgets: FailureBudgets): FailureStep {
  switch (event.type) {
    case "genuineUser":
      return { state: { ...INITIAL_FAILURE_STATE, busy: state.busy }, effect: NONE }
    case "modelOutput":
      return { state: { ...state, phase: "clear", attempts: 0, aborted: false, consecutive: 0 }, effect: NONE }
    case "busy":
      // Whatever made it busy (our prompt, the host, the user), nothing is pending any more.
      // After a recovery of ours the incident stays open until the model says something.
      if (state.phase === "armed" || state.phase === "prompted" || state.phase === "abort-resumed") {
        const open = state.attempts > 0 || state.aborted
        return { state: { ...state, busy: true, phase: open ? "running" : "clear", attempts: open ? state.attempts : 0 }, effect: NONE }
      }
      return { state: { ...state, busy: true }, effect: NONE }
    case "failure":
      return onFailure(state, event.name, now, budgets)
    case "idle":
      return evaluate({ ...state, busy: false }, now, budgets)
    case "sent":
      // A late settle of an earlier prompt finds the chain elsewhere (or already timing): ignored.
      if (!awaitsEffect(state.phase) || !state.sending) return { state, effect: NONE }
      return evaluate({ ...state, sending: false, sentAt: now, mayLandUntil: event.mayLandUntil }, now, budgets)
    case "refused":
      // The prompt never reached the host: not an attempt, and not judged; sent again at retryAt.
      if (state.phase !== "prompted" || !state.sending) return { state, effect: NONE }
      return evaluate({ ...state, phase: "armed", attempts: state.attempts - 1, sending: false, notBefore: event.retryAt }, now, budgets)
    case "ownPromptSeen":
      // Seen before its call settled counts too (the host may echo before it answers). The
      // latest sighting counts: a very late echo of an earlier prompt must not stand in for
      // this one's. Echoes come only from our own prompts (the adapters report each message
      // once), so this cannot push the verdict out for ever.
      if (!awaitsEffect(state.phase)) return { state, effect: NONE }
      return evaluate({ ...state, seenAt: now }, now, budgets)
    case "tick":
      return evaluate(state, now, budgets)
  }
}

/**
 * A streaming failure. One that answers a recovery of ours (the chain is running it, or still
 * waiting for it to show) before any model output is the same incident: the loop count grows
 * and the chain takes its next step; the failure-loop limit, or abort + resume failing too,
 * ends it. Any other failure starts an incident.
 */
function onFailure(state: FailureState, name: string, now: number, budgets: FailureBudgets): FailureStep {
  if (state.phase === "gave-up" || state.phase === "loop-latched") return { state, effect: NONE }
  const answersOurs = (state.phase === "running" || awaitsEffect(state.phase)) && (state.attempts > 0 || state.aborted)
  if (!answersOurs) {
    // A new incident, or a second report while one is armed: the steps taken so far stand.
    const fresh = state.phase === "clear"
    const attempts = fresh ? 0 : state.attempts
    const notBefore = fresh ? now + backoffDelay(0, budgets.baseBackoffMs, budgets.maxBackoffMs) : state.notBefore
    const next: FailureState = { ...state, phase: "armed", reason: name, attempts, aborted: false, notBefore, sentAt: 0, sending: false }
    return state.busy ? { state: next, effect: NONE } : { state: next, effect: NONE, wakeAt: notBefore }
  }
  const consecutive = state.consecutive + 1
  const limit = budgets.failureLoopLimit ?? DEFAULT_FAILURE_LOOP_LIMIT
  if (consecutive >= limit) {
    return {
      state: { ...state, phase: "loop-latched", reason: name, consecutive, sending: false },
      effect: { kind: "stand-down", reason: `failure loop: ${consecutive} recoveries in a row brought no model output (${name})` },
    }
  }
  if (state.aborted) {
    return {
      state: { ...state, phase: "gave-up", reason: name, consecutive, sending: false },
      effect: { kind: "stand-down", reason: `abort + resume did not restart the session (${name})` },
    }
  }
  const notBefore = now + backoffDelay(state.attempts, budgets.baseBackoffMs, budgets.maxBackoffMs)
  const next: FailureState = { ...state, phase: "armed", reason: name, consecutive, notBefore, sentAt: 0, sending: false }
  return state.busy ? { state: next, effect: NONE } : { state: next, effect: NONE, wakeAt: notBefore }
}

/**
 * Abort + resume instead of another prompt: the prompts are spent, or the failure loop allows
 * one more recovery only (and the first recovery of an incident is always a plain prompt).
 */
function abortIsNext(state: FailureState, maxAttempts: number, budgets: FailureBudgets): boolean {
  const limit = budgets.failureLoopLimit ?? DEFAULT_FAILURE_LOOP_LIMIT
  return state.attempts >= maxAttempts || (state.consecutive >= 1 && state.consecutive + 1 >= limit)
}

function abortResume(state: FailureState, now: number, maxAttempts: number, why: string): FailureStep {
  // No wakeAt: as for a prompt, the watchdog is armed by `sent`, once the continue that
  // follows the abort (ABORT_CONTINUE_DELAY_MS and two host calls later) has settled.
  return {
    state: { ...state, phase: "abort-resumed", aborted: true, sentAt: now, sending: true, seenAt: undefined, mayLandUntil: undefined },
    effect: { kind: "abort-continue", reason: `${why} (${state.reason})`, attempt: state.attempts + 1, maxAttempts },
  }
}

function evaluate(state: FailureState, now: number, budgets: FailureBudgets): FailureStep {
  const maxAttempts = Math.max(0, budgets.streamingFailureMaxPrompts)
  switch (state.phase) {
    case "armed": {
      if (state.busy) return { state, effect: NONE }
      if (now < state.notBefore) return { state, effect: NONE, wakeAt: state.notBefore }
      if (maxAttempts === 0) {
        return { state: { ...state, phase: "gave-up" }, effect: { kind: "stand-down", reason: `retry budget is 0 (${state.reason})` } }
      }
      if (abortIsNext(state, maxAttempts, budgets)) {
        return abortResume(state, now, maxAttempts, `${state.attempts} recovery prompt(s) ended in another failure`)
      }
      const attempt = state.attempts + 1
      // No wakeAt: the watchdog is armed by `sent`, when the prompt's host call has settled.
      return {
        state: { ...state, phase: "prompted", attempts: attempt, sentAt: now, sending: true, seenAt: undefined, mayLandUntil: undefined },
        effect: { kind: "continue", attempt, maxAttempts, reason: state.reason },
      }
    }
    case "prompted":
    case "abort-resumed": {
      if (state.busy || state.sending) return { state, effect: NONE }
      const due = promptVerdictAt(state, budgets)
      if (now < due) return { state, effect: NONE, wakeAt: due }
      if (state.phase === "abort-resumed") {
        return {
          state: { ...state, phase: "gave-up" },
          effect: { kind: "stand-down", reason: `abort + resume did not restart the session (${state.reason})` },
        }
      }
      if (state.attempts < maxAttempts) {
        const notBefore = now + backoffDelay(state.attempts, budgets.baseBackoffMs, budgets.maxBackoffMs)
        return evaluate({ ...state, phase: "armed", notBefore }, now, budgets)
      }
      return abortResume(state, now, maxAttempts, `${state.attempts} recovery prompt(s) did not restart the session`)
    }
    default:
      return { state, effect: NONE }
  }
}
