/**
 * Wording for provider-failure recoveries. The prompt itself is the ordinary continue
 * (`buildContinuePrompt` in continue.ts, so a custom `continuePrompt` still wins verbatim);
 * these functions only supply its `reason`, so the same explanation is never spelled twice.
 */
import { formatDuration } from "./format.ts"

const MAX_NAME_CHARS = 60

function errorLabel(name: string): string {
  const flat = name.replace(/\s+/g, " ").trim()
  if (!flat) return "an error"
  return flat.length > MAX_NAME_CHARS ? `${flat.slice(0, MAX_NAME_CHARS)}…` : flat
}

/** Reason for a recovery prompt after a broken provider stream. */
export function streamingFailureReason(errorName: string, attempt: number, maxAttempts: number): string {
  const tries = maxAttempts > 1 ? `, recovery ${attempt}/${maxAttempts}` : ""
  return `the provider stream failed (${errorLabel(errorName)}${tries})`
}

/** Reason for the continue sent after abort + resume ended the recovery chain. */
export function abortResumeReason(errorName: string): string {
  return `the provider stream failed (${errorLabel(errorName)}) and earlier recovery prompts did not restart the turn`
}

/** Reason for the one continue sent when a rate-limit cooldown is over. */
export function rateLimitResumeReason(hits: number, waitedMs: number): string {
  return `the provider's rate limit was hit ${hits === 1 ? "once" : `${hits} times`}; waited ${formatDuration(waitedMs)} for it to clear`
}
