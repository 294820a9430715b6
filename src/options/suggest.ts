/**
 * "Did you mean ...?" for misspelt option names. A typo must never be silent, but a
 * far-fetched suggestion is worse than none, so only close names are offered.
 */
import { distance } from "fastest-levenshtein"

/** A third of the longer name's length, at least 2: a dropped suffix on a long name is still caught, short words get no wild guesses. */
export function nearestName(key: string, candidates: readonly string[]): string | undefined {
  const wanted = key.toLowerCase()
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const limit = Math.max(2, Math.floor(Math.max(wanted.length, candidate.length) / 3))
    const d = distance(wanted, candidate.toLowerCase())
    if (d <= limit && d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}
