/**
 * Telling our own abort's interruption from the user's ESC. Both reach the core as the same
 * `interrupted` (1.x: MessageAbortedError; 2.x: reason "user"), so the evidence is a count: an
 * abort of ours that the host accepts ends one run, reported as one interruption, usually just
 * before the abort call returns. An interruption the count cannot account for is the user's.
 * When in doubt the user wins: an echo of ours taken for ESC costs one recovery, an ESC taken
 * for our echo lets the ladder talk over the user.
 */
import type { CallOutcome } from "./host-calls.ts"
import type { SessionState } from "./session-state.ts"

/**
 * How long before answering an abort the host may report it. 1.18 reports it a few ms before
 * the call returns (test/e2e/HOST-NOTES.md); the margin is for a loaded machine. Past it, the
 * interruption is taken for the user's: one recovery lost at worst.
 */
export const OWN_ABORT_REPORT_SKEW_MS = 1_000

/** Whose an interruption is; "undecided" waits for the answer to our abort call. */
export type Attribution = "ours" | "user" | "undecided" | "other"

/** Just before our abort call goes out: its interruption is presumed ours until `until`. */
export function openOwnAbort(state: SessionState, until: number): void {
  state.ownAbort = { phase: "calling", until }
}

/**
 * Counts an interruption against our abort. While the call is unanswered the first one is
 * undecided: ours if the host then accepts the abort promptly, the user's if it refuses, never
 * answers or answers long after. After acceptance the first one inside the window is ours (a
 * host that reports late). Any other is the user's.
 */
export function attributeInterruption(state: SessionState, byUser: boolean | undefined, now: number): Attribution {
  const own = state.ownAbort
  // Shutdown, superseded...: the run ended, but neither we nor the user asked for it.
  if (byUser === false) {
    runMovedOn(state)
    return "other"
  }
  if (own?.phase === "calling" && byUser === undefined && now <= own.until && own.interruptedAt === undefined) {
    own.interruptedAt = now
    return "undecided"
  }
  const ours = own?.phase === "accepted" && byUser === undefined && now <= own.until
  state.ownAbort = undefined
  return ours ? "ours" : "user"
}

/**
 * The abort call answered. Returns "user" when an interruption held as undecided turns out to
 * be the user's (the host refused our abort, or it is overdue and may never be carried out).
 */
export function settleOwnAbort(state: SessionState, outcome: CallOutcome, now: number, holdMs: number): "user" | undefined {
  const own = state.ownAbort
  if (own?.phase !== "calling") return undefined
  if (own.interruptedAt !== undefined) {
    state.ownAbort = undefined
    // The host reports our abort just before answering it: an interruption long before the
    // answer was something else stopping the run while our call waited.
    return outcome === "ok" && now - own.interruptedAt <= OWN_ABORT_REPORT_SKEW_MS ? undefined : "user"
  }
  if (outcome === "ok") own.phase = "accepted"
  // A call past sendTimeoutMs may still be carried out: it is awaited like an accepted one,
  // but its interruption, should it come, is not presumed ours.
  else if (outcome === "timeout") own.phase = "overdue"
  else {
    state.ownAbort = undefined
    return undefined
  }
  own.settledAt = now
  own.holdUntil = now + holdMs
  return undefined
}

/**
 * An abort of ours was accepted (or may still land) and the host has shown nothing since:
 * a second abort now would hit a run that is already over. Past the hold given when it settled
 * (lateLandingHoldMs) the report is presumed lost and the abort forgotten, so the ladder can act
 * again: a host that lost one report must not leave the session without recovery for good.
 */
export function ownAbortLanding(state: SessionState, now: number): boolean {
  const own = state.ownAbort
  if (own === undefined || own.phase === "calling") return false
  if (own.holdUntil !== undefined && now > own.holdUntil) {
    state.ownAbort = undefined
    return false
  }
  return true
}

/**
 * One of our prompts showed up in the session. If a prompt call went out after our abort was
 * answered (the continue that follows it), the aborted run is over: an interruption after this
 * is no late report of that abort but the user's ESC. A prompt sent before the abort proves
 * nothing (it may show just after the abort was accepted, before the host reported it).
 */
export function endAbortWaitOnOwnPrompt(state: SessionState): void {
  const answeredAt = state.ownAbort?.settledAt
  if (answeredAt !== undefined && state.promptCalledAt !== undefined && state.promptCalledAt >= answeredAt) state.ownAbort = undefined
}

/**
 * The user wrote. Our abort aimed at the run before: an interruption from now on ends the
 * user's own turn, so it is theirs, even if our abort call is still out and answers promptly.
 */
export function userTookOver(state: SessionState): void {
  runMovedOn(state)
  if (state.ownAbort?.phase === "calling") state.ownAbort.until = -Infinity
}

/** The session moved on (a run began or ended, the model or the user spoke): stop awaiting. */
export function runMovedOn(state: SessionState): void {
  if (state.ownAbort !== undefined && state.ownAbort.phase !== "calling") state.ownAbort = undefined
}
