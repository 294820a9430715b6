/**
 * Our own prompts on their way: accepted by the host but not yet shown in the session (our own
 * user message), or not answered in time and so possibly still carried out. A prompt sent now
 * would land right behind one of them with no turn of the session between: the same recovery
 * twice. The failure chain waits on this (the stall ladder and the finished-turn judge have
 * their own spacing and escalation). OpenCode shows an accepted prompt within milliseconds, so
 * the wait for one is short; bounded by the echo grace, or by the late-landing hold for a call
 * that timed out.
 */
import type { SessionState } from "./session-state.ts"

/**
 * How long a prompt the host accepted may take to show up before it is taken for one that
 * never will. OpenCode shows an accepted prompt within milliseconds, so this only matters for a
 * lagging event stream; 5 s covers lags far past that (the property model's hosts echo up to
 * 3 s late) while a host that never shows prompts delays the next one by just this much. A
 * fixed time, not sendTimeoutMs: that budgets a slow answer (30 s by default), and the answer
 * has already come.
 */
export const PROMPT_ECHO_GRACE_MS = 5_000

/** A prompt call of ours is going out now. */
export function promptCallStarted(state: SessionState, now: number): void {
  state.promptCalledAt = now
}

/** The prompt call that went out last was not answered in time: it may land until `until`. */
export function promptCallOverdue(state: SessionState, until: number): void {
  state.promptOverdueCalledAt = state.promptCalledAt
  state.promptOverdueUntil = until
}

/** One of our prompts showed up in the session. */
export function ownPromptShown(state: SessionState, now: number): void {
  state.ownPromptShownAt = now
}

/**
 * Until when a prompt of ours may still be on its way (undefined: none is): the last one the
 * host accepted, for the echo grace, and the last one whose call timed out, for its hold. Each
 * counts until a sighting at or after its call started (the host may show a prompt before it
 * answers); the later of the two deadlines wins.
 */
export function ownPromptLandingUntil(state: SessionState, now: number): number | undefined {
  const shownAt = state.ownPromptShownAt ?? -Infinity
  const unseen = (calledAt: number | undefined): calledAt is number => calledAt !== undefined && shownAt < calledAt
  let until: number | undefined
  const { promptOverdueCalledAt: overdueCall, promptOverdueUntil: overdueUntil } = state
  if (overdueUntil !== undefined && now < overdueUntil && unseen(overdueCall)) until = overdueUntil
  const { promptCalledAt: calledAt, lastSendAt: acceptedAt } = state
  // Accepted: the last call is the one the host answered (a refused or pending one is not).
  if (acceptedAt !== undefined && unseen(calledAt) && acceptedAt >= calledAt) {
    const graceEnd = acceptedAt + PROMPT_ECHO_GRACE_MS
    if (now < graceEnd) until = Math.max(until ?? graceEnd, graceEnd)
  }
  return until
}
