/**
 * Our own prompts on their way: accepted by the host but not yet shown in the session (our own
 * user message). Until one shows, a second prompt from any recovery path would land right
 * behind it with no turn of the session between: the same recovery twice. OpenCode shows an
 * accepted prompt within milliseconds, so the wait is short, and bounded by the echo grace for
 * a host that never shows it.
 */
import { FAILURE_ECHO_GRACE_MS } from "./failure-chain.ts"
import type { SessionState } from "./session-state.ts"

/** A prompt call of ours is going out now. */
export function promptCallStarted(state: SessionState, now: number): void {
  state.promptCalledAt = now
}

/** One of our prompts showed up in the session. */
export function ownPromptShown(state: SessionState, now: number): void {
  state.ownPromptShownAt = now
}

/**
 * Until when the last prompt the host accepted may still be on its way (undefined: nothing
 * is). A sighting at or after its call started counts: the host may show it before it answers.
 */
export function ownPromptLandingUntil(state: SessionState, now: number): number | undefined {
  const { lastSendAt: acceptedAt, promptCalledAt: calledAt, ownPromptShownAt: shownAt } = state
  if (acceptedAt === undefined || calledAt === undefined || acceptedAt < calledAt) return undefined
  if (shownAt !== undefined && shownAt >= calledAt) return undefined
  const until = acceptedAt + FAILURE_ECHO_GRACE_MS
  return now < until ? until : undefined
}
