/**
 * Wording for provider-failure recoveries and the fallback model's continue. The prompt itself is the ordinary continue
 * (`buildContinuePrompt` in continue.ts, so a custom `continuePrompt` still wins verbatim);
 * these functions only supply its `reason`, so the same explanation is never spelled twice.
 */
import { clip, formatDuration } from "../../prompts/format.ts"

const MAX_NAME_CHARS = 60

function errorLabel(name: string): string {
  return clip(name.replace(/\s+/g, " ").trim(), MAX_NAME_CHARS) || "an error"
}

/** ", recovery k/n" while k is within the budget (and the budget is more than one). */
function recoveryLabel(attempt: number, maxAttempts: number): string {
  return maxAttempts > 1 && attempt >= 1 && attempt <= maxAttempts ? `, recovery ${attempt}/${maxAttempts}` : ""
}

export function streamingFailureReason(errorName: string, attempt: number, maxAttempts: number): string {
  return `the provider stream failed (${errorLabel(errorName)}${recoveryLabel(attempt, maxAttempts)})`
}

/**
 * Reason for the continue sent after abort + resume, the chain's last step. It carries the
 * incident's recovery number when the failure loop brought it forward (recovery 3/3 after two
 * prompts that failed again); after every prompt was spent it is one past the budget and is
 * not quoted, so no label repeats.
 */
export function abortResumeReason(errorName: string, attempt = 0, maxAttempts = 0): string {
  return `the provider stream failed (${errorLabel(errorName)}${recoveryLabel(attempt, maxAttempts)}) and earlier recovery prompts did not restart the turn`
}

/** Reason for the one continue sent when a rate-limit cooldown is over. */
export function rateLimitResumeReason(hits: number, waitedMs: number): string {
  return `the provider's rate limit was hit ${hits === 1 ? "once" : `${hits} times`}; waited ${formatDuration(waitedMs)} for it to clear`
}

/** The continue a fallback model gets: the ordinary continue (a custom `continuePrompt` still wins), with a reason that says which model took over and why. */
export function fallbackReason(from: string | undefined, to: string, why: string): string {
  return `${from ?? "the session's model"} cannot go on for now (${why}), so ${to} takes over from here`
}
