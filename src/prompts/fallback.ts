/**
 * Wording of the continue a fallback model gets: the ordinary continue (continue.ts, so a
 * custom `continuePrompt` still wins), with a reason that says which model took over and why.
 */

export function fallbackReason(from: string | undefined, to: string, why: string): string {
  return `${from ?? "the session's model"} cannot go on for now (${why}), so ${to} takes over from here`
}
