/**
 * Does a matched claim end its sentence? "Proceeding with the next task." announces a step;
 * "Proceeding with the next task requires the API key." describes one. The built-in
 * ready-to-continue and done-claim patterns only count when what follows the match, up to
 * the end of the sentence, is short and carries no exception ("except", "sauf", "但").
 * One pass over at most MAX_TAIL characters after the match.
 */
import { anyMatches } from "./patterns.ts"

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
