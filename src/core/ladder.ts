/**
 * The retry arithmetic recovery paths share: exponential backoff, and how many continues fell
 * in a loop window. The stall ladder that decides on them is the stall path's
 * (paths/stall/ladder.ts); the failure chain, the repetition check and the status read them too.
 */

/** Exponential backoff: base, 2*base, 4*base ... capped at max. `attempt` counts from 0. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  const exponent = Math.min(Math.max(attempt, 0), 30)
  return Math.min(baseMs * 2 ** exponent, maxMs)
}

export function continuesInWindow(times: readonly number[], now: number, windowMs: number): number {
  let count = 0
  for (const t of times) if (now - t < windowMs) count++
  return count
}
