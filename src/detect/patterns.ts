/**
 * User-supplied pattern lists (doneClaimPatterns, readyToContinuePatterns, stopPatterns),
 * compiled once per list. The options module already dropped entries that do not compile;
 * this still guards, because a list may reach a detector by another road (tests, profiles).
 *
 * We cannot make a user's own regex linear. What we can do, and do: run it only on the
 * capped tail of one message (see README.md), never with the `g`/`y` flags (a stateful
 * `lastIndex` would make the same text match on one call and not the next).
 */

const cache = new WeakMap<readonly string[], Map<string, readonly RegExp[]>>()

function stripStatefulFlags(flags: string): string {
  return flags.replace(/[gy]/g, "")
}

/**
 * Compiles `sources` with `flags`. Entries that are not strings, are blank or do not
 * compile are skipped. Returns `undefined` when nothing usable is left, so the caller can
 * fall back to its built-in set (an empty list means "keep the defaults").
 */
export function compilePatterns(sources: readonly string[] | undefined, flags: string): readonly RegExp[] | undefined {
  if (!Array.isArray(sources) || sources.length === 0) return undefined
  const safeFlags = stripStatefulFlags(flags)
  let perList = cache.get(sources)
  const hit = perList?.get(safeFlags)
  if (hit) return hit.length > 0 ? hit : undefined
  const compiled: RegExp[] = []
  for (const source of sources) {
    if (typeof source !== "string" || source.trim() === "") continue
    try {
      compiled.push(new RegExp(source, safeFlags))
    } catch {
      // Skipped; the options module reported it at startup.
    }
  }
  const frozen = Object.freeze(compiled)
  if (!perList) {
    perList = new Map()
    cache.set(sources, perList)
  }
  perList.set(safeFlags, frozen)
  return frozen.length > 0 ? frozen : undefined
}

/** True when any pattern matches `text`. A pattern that throws while matching is ignored. */
export function anyMatches(patterns: readonly RegExp[], text: string): boolean {
  for (const pattern of patterns) {
    try {
      pattern.lastIndex = 0
      if (pattern.test(text)) return true
    } catch {
      // A hostile pattern (e.g. a stack overflow) must not take the judgement down.
    }
  }
  return false
}
