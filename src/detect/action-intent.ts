/**
 * Action intent: the reply's last line announces a step and ends with a colon ("Next, I'll
 * update the config:") but nothing follows — the model described the action instead of
 * taking it.
 *
 * Only the last non-blank line is read, as written (code is not stripped: a reply that
 * ends with a code block ends with its closing fence, which is not an announcement).
 * Markdown emphasis around the colon ("**Next steps:**") is allowed. A single word
 * ("Summary:") or a URL cut at its scheme is not an announcement.
 */
import { lastNonBlankLines } from "./text.ts"

/** Bounds on the announcing line: shorter is a label fragment, longer is not one line of intent. */
const MIN_LINE = 6
const MAX_LINE = 500
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{4}/u

export function hasActionIntent(text: string): boolean {
  const [line] = lastNonBlankLines(text, 1, MAX_LINE + 1)
  if (line === undefined || line.length < MIN_LINE || line.length > MAX_LINE) return false
  let end = line.length
  while (end > 0 && (line[end - 1] === "*" || line[end - 1] === "_" || line[end - 1] === " ")) end--
  // A full-width colon ("：") ends a Chinese or Japanese announcement.
  if (end === 0 || (line[end - 1] !== ":" && line[end - 1] !== "\uff1a")) return false
  const body = line.slice(0, end - 1)
  // An emoji short code (":tada:", ":rocket:") ends in a colon but announces nothing.
  if (/(?:^|\s):[a-z0-9_+-]{1,40}$/i.test(body)) return false
  // Needs at least two words: "Summary:" alone is a heading, not an announced action.
  // Chinese and Japanese have no spaces: four such characters in a row count instead.
  const words = body.split(/[^\p{L}\p{N}'’-]+/u).filter((w) => /\p{L}/u.test(w))
  if (words.length < 2 && !CJK_RUN.test(body)) return false
  // A URL cut at its scheme ("see https:") announces nothing.
  return !/(?:^|\s)(?:https?|ftp)$/i.test(body)
}
