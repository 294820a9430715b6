/**
 * The recovery chain for a broken stream ("streaming" failures only), as one pure reducer:
 * backoff, recovery prompts, abort + resume, then giving up.
 *
 * One incident runs from a failure to the next model output (or genuine user turn): a run our
 * recovery started that fails again before the model said anything continues the incident
 * instead of starting over at "recovery 1/N".
 *  - `streamingFailureMaxPrompts` bounds the prompts a silent session gets before abort + resume;
 *  - `failureLoopLimit` bounds the recoveries answered by a failure with no model output (a
 *    dead endpoint that fails every prompt at once): the last one it allows is abort + resume,
 *    and the failure that answers it latches the loop.
 */
import type { Options } from "../../options/index.ts"
import { none, type EffectOf } from "../../core/effect.ts"
import { backoffDelay } from "../../core/ladder.ts"
import { ECHO_GRACE_MS } from "../../options/constants.ts"

/**
 * running        a run started after a recovery of ours, no model output yet: a failure now
 *                continues the incident
 * armed          waiting for idle and `notBefore` (backoff)
 * prompted,      judged from when the (continue's) host call settled (`sentAt`) and it showed
 * abort-resumed  up in the session (`seenAt`)
 * gave-up, loop-latched  lifted by model output or a genuine user turn
 */
export type FailurePhase = "clear" | "running" | "armed" | "prompted" | "abort-resumed" | "gave-up" | "loop-latched"

export type FailureState = {
  phase: FailurePhase
  busy: boolean
  reason: string
  attempts: number
  /** Abort + resume was used in the current incident: its failure or silence ends the chain. */
  aborted: boolean
  notBefore: number
  sentAt: number
  /**
   * About the current recovery prompt: its call has not settled, when it showed up, until when a
   * timed-out call may still land. None is judged "did not revive" before then: the next
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

/** `attempt`: the incident's recovery number, for the labels. */
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
  wakeAt?: number
}

export const DEFAULT_FAILURE_LOOP_LIMIT = 3
/** The watchdog never judges "still not busy" sooner than this, even with streamingFailureWatchdogMs 0. */
export const FAILURE_WATCHDOG_MIN_MS = 1_000

const NONE: FailureEffect = none("nothing due")

export function chainPending(state: FailureState): boolean {
  return state.phase === "armed" || awaitsEffect(state.phase)
}

function awaitsEffect(phase: FailurePhase): boolean {
  return phase === "prompted" || phase === "abort-resumed"
}

function giveUp(state: FailureState, reason: string, consecutive = state.consecutive): FailureStep {
  return {
    state: { ...state, phase: "gave-up", reason, consecutive, sending: false },
    effect: { kind: "stand-down", reason: `abort + resume did not restart the session (${reason})` },
  }
}

function watchdogMs(budgets: FailureBudgets): number {
  return Math.max(budgets.streamingFailureWatchdogMs, FAILURE_WATCHDOG_MIN_MS)
}

/** A prompt never seen gets the echo grace on top, so a host that never echoes cannot wedge the chain. */
function promptVerdictAt(state: FailureState, budgets: FailureBudgets): number {
  if (state.seenAt === undefined) return Math.max(state.sentAt, state.mayLandUntil ?? 0) + watchdogMs(budgets) + ECHO_GRACE_MS
  return Math.max(state.sentAt, state.seenAt) + watchdogMs(budgets)
}

/**
 * `sent`: the recovery's (continue's) host call settled, however it went; the watchdog counts
 * from here. `refused`: it never reached the host: the attempt is not spent, due again at
 * `retryAt`. The engine checks its guards (ESC, pause, awaiting the user, locks, a prompt of
 * ours on its way) before `tick`/`idle`; while they refuse, the chain just waits.
 */
export function nextFailureStep(state: FailureState, event: FailureEvent, now: number, budgets: FailureBudgets): FailureStep {
  switch (event.type) {
    case "genuineUser":
      return { state: { ...INITIAL_FAILURE_STATE, busy: state.busy }, effect: NONE }
    case "modelOutput":
      return { state: { ...state, phase: "clear", attempts: 0, aborted: false, consecutive: 0 }, effect: NONE }
    case "busy":
      // After a recovery of ours the incident stays open until the model says something.
      if (chainPending(state)) {
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
      // The latest sighting counts: a late echo of an earlier prompt must not stand in for this
      // one's. Only our own prompts echo, once each, so this cannot push the verdict out for ever.
      if (!awaitsEffect(state.phase)) return { state, effect: NONE }
      return evaluate({ ...state, seenAt: now }, now, budgets)
    case "tick":
      return evaluate(state, now, budgets)
  }
}

function onFailure(state: FailureState, name: string, now: number, budgets: FailureBudgets): FailureStep {
  if (state.phase === "gave-up" || state.phase === "loop-latched") return { state, effect: NONE }
  const answersOurs = (state.phase === "running" || awaitsEffect(state.phase)) && (state.attempts > 0 || state.aborted)
  if (!answersOurs) {
    // A second report while one is armed: the steps taken so far stand.
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
  if (state.aborted) return giveUp(state, name, consecutive)
  const notBefore = now + backoffDelay(state.attempts, budgets.baseBackoffMs, budgets.maxBackoffMs)
  const next: FailureState = { ...state, phase: "armed", reason: name, consecutive, notBefore, sentAt: 0, sending: false }
  return state.busy ? { state: next, effect: NONE } : { state: next, effect: NONE, wakeAt: notBefore }
}

/** The first recovery of an incident is always a plain prompt. */
function abortIsNext(state: FailureState, maxAttempts: number, budgets: FailureBudgets): boolean {
  const limit = budgets.failureLoopLimit ?? DEFAULT_FAILURE_LOOP_LIMIT
  return state.attempts >= maxAttempts || (state.consecutive >= 1 && state.consecutive + 1 >= limit)
}

function abortResume(state: FailureState, now: number, maxAttempts: number, why: string): FailureStep {
  // No wakeAt: the watchdog is armed by `sent`, once the continue after the abort has settled.
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
      if (state.phase === "abort-resumed") return giveUp(state, state.reason)
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
