/**
 * The pieces built-in phrase tables share; the user's pattern lists (doneClaimPatterns,
 * readyToContinuePatterns, stopPatterns) compiled once per list; and the claim check the done
 * and ready detectors share. The options module already dropped entries that do not compile;
 * this still guards, because a list may reach a detector by another road (tests, profiles).
 *
 * We cannot make a user's own regex linear. What we can do, and do: run it only on the
 * capped tail of one message (see README.md), never with the `g`/`y` flags (a stateful
 * `lastIndex` would make the same text match on one call and not the next).
 *
 * Does a matched built-in claim end its sentence? "Proceeding with the next task." announces a
 * step; "Proceeding with the next task requires the API key." describes one. A built-in ready or
 * done pattern only counts when what follows the match, up to the end of the sentence, is short
 * and carries no exception ("except", "sauf", "但"): one pass over at most MAX_TAIL characters.
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

/** Longest stretch read after a match, and how much of it may follow the claim. */
const MAX_TAIL = 200
const MAX_WORDS = 4
const MAX_CJK_CHARS = 4

const SENTENCE_END = ".!?\n\u3002\uff01\uff1f;\uff1b"

/** Words that turn a short tail into a restriction of the claim. */
const EXCEPTIONS =
  /(?<!\p{L})(?:except|but|apart|besides|until|once|when|after|before|only|requires?|salvo|excepto|menos|exceto|bis|außer|erst|sauf|dès|sinon|кроме|только|после|наполовину|половину)(?!\p{L})|但|除了|之前|之后|以后|が、|けど|ただし|前に|後で/iu

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u

/** True when the text after `end` finishes the sentence in a few plain words. */
function endsClauseSoon(text: string, end: number): boolean {
  let stop = Math.min(text.length, end + MAX_TAIL)
  for (let i = end; i < stop; i++) {
    const ch = text[i]!
    // "queue.ts" or "v2.1": a full stop inside a word does not end the sentence.
    if (ch === "." && i + 1 < text.length && !/\s/.test(text[i + 1]!)) continue
    if (SENTENCE_END.includes(ch)) {
      stop = i
      break
    }
  }
  if (stop === end + MAX_TAIL && stop < text.length) return false
  const tail = text.slice(end, stop).trim()
  if (tail === "") return true
  if (EXCEPTIONS.test(tail)) return false
  let cjk = 0
  for (const ch of tail) if (CJK.test(ch)) cjk++
  if (cjk > MAX_CJK_CHARS) return false
  return tail.split(/[\s,，、:：]+/u).filter((w) => w !== "").length <= MAX_WORDS
}

/**
 * Do `lines` (the last few of a reply) make the claim? A built-in pattern must also end its
 * sentence ("complete except for …" is no claim); a user's own patterns are taken as written.
 */
export function claimIn(lines: readonly string[], patterns: readonly RegExp[], builtIn: readonly RegExp[]): boolean {
  if (lines.length === 0) return false
  const text = lines.join("\n")
  if (patterns !== builtIn) return anyMatches(patterns, text)
  for (const pattern of patterns) {
    const m = pattern.exec(text)
    if (m && endsClauseSoon(text, m.index + m[0].length)) return true
  }
  return false
}
