/**
 * Shaping a retry the host itself proposes (2.x `session.hook("retry")`), pure. The host retries
 * a failed provider call a few times on its own (2.x: 2 s doubling, four retries) and then gives
 * up; without a say in it the plugin waits beside it: the host's retries spend themselves
 * against a rate-limited endpoint, and then the cooldown ladder waits again before its continue.
 * With the hook the two become one wait:
 *
 * - a rate limit or spent quota: the host's delay is the one wait (no wait of ours beside it),
 *   re-timed to the provider's Retry-After when that is longer; when a fallback model takes
 *   over, no retry at all;
 * - a failure the classification knows to be permanent (a full context, a content filter, bad
 *   credentials, a malformed request, a non-transient 4xx): no retry, so the run fails at once
 *   and the failure chain (or a fallback model) answers it now rather than after four retries;
 * - anything else (a broken stream, an unclassified error): the host's proposal stands.
 *
 * Once the host's budget is spent it stops asking, the run fails, and the ladder goes on from
 * the rung the retries reached, as it does without the hook.
 */
import type { FailureVerdict } from "./provider-failure.ts"

/** A host's retry decision: `delayMs` until the retry. */
export type HostRetryDecision = { retry: false } | { retry: true; delayMs: number }

/** What the adapter hands the core: the error (as an `error` signal would carry it), the host's attempt number and proposal. */
export type HostRetryProposal = {
  name: string
  message: string
  status?: number
  retryAfterMs?: number
  attempt: number
  proposed: HostRetryDecision
}

/** The longest wait that decides a rate-limit rung: the provider's Retry-After or the host's own proposed delay. */
export function hostWaitFloor(proposal: HostRetryProposal): number {
  const asked = proposal.retryAfterMs !== undefined && Number.isFinite(proposal.retryAfterMs) && proposal.retryAfterMs > 0 ? proposal.retryAfterMs : 0
  const proposed = proposal.proposed.retry && Number.isFinite(proposal.proposed.delayMs) ? Math.max(0, proposal.proposed.delayMs) : 0
  return Math.max(asked, proposed)
}

/** True for a failure a retry cannot fix (the verdict's own word), which the host should not retry. */
export function isPermanent(verdict: FailureVerdict): boolean {
  return verdict.kind === "context-overflow" || verdict.deterministic === true
}
