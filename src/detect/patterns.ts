/**
 * The pieces built-in phrase tables share, and the user's pattern lists (doneClaimPatterns,
 * readyToContinuePatterns, stopPatterns) compiled once per list. The options module already
 * dropped entries that do not compile; this still guards, because a list may reach a
 * detector by another road (tests, profiles).
 *
 * We cannot make a user's own regex linear. What we can do, and do: run it only on the
 * capped tail of one message (see README.md), never with the `g`/`y` flags (a stateful
 * `lastIndex` would make the same text match on one call and not the next).
 */

/** No letter before / after: `\b` knows only ASCII letters (Cyrillic, accented words need these). */
export const NL = "(?<!\\p{L})"
export const NR = "(?!\\p{L})"

/** One entry of a built-in phrase table: the name a finding reports, and its pattern. */
export type Phrase = { name: string; pattern: RegExp }

const cache = new WeakMap<readonly string[], Map<string, readonly RegExp[]>>()

/**
 * Compiles `sources` with `flags`. Entries that are not strings, are blank or do not
 * compile are skipped. Returns `undefined` when nothing usable is left, so the caller can
 * fall back to its built-in set (an empty list means "keep the defaults").
 */
export function compilePatterns(sources: readonly string[] | undefined, flags: string): readonly RegExp[] | undefined {
  if (!Array.isArray(sources) || sources.length === 0) return undefined
  const safeFlags = flags.replace(/[gy]/g, "")
  let perList = cache.get(sources)
  if (!perList) cache.set(sources, (perList = new Map()))
  let compiled = perList.get(safeFlags)
  if (!compiled) {
    const list: RegExp[] = []
    for (const source of sources) {
      if (typeof source !== "string" || source.trim() === "") continue
      try {
        list.push(new RegExp(source, safeFlags))
      } catch {
        // Skipped; the options module reported it at startup.
      }
    }
    perList.set(safeFlags, (compiled = Object.freeze(list)))
  }
  return compiled.length > 0 ? compiled : undefined
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
