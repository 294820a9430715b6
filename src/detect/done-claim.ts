/**
 * Done claims: the model says the task is finished ("All done.", "I've finished the task.").
 * Whether that gets a nudge depends on the todo list and on work-description.ts; this only answers
 * whether the last five non-blank lines claim completion (case-insensitive, `^`/`$` at line ends,
 * as `doneClaimPatterns` documents for a user's own list).
 */
import { anyClauseEnds } from "./clause-tail.ts"
import { INTL_DONE_CLAIM_PATTERNS } from "./done-claims-intl.ts"
import { anyMatches, compilePatterns } from "./patterns.ts"
import { lastNonBlankLines } from "./text.ts"

export const DONE_CLAIM_LINES = 5

const FINISHED_WORDS = "done|finished|complete|completed"
const FINISHED = `(?:${FINISHED_WORDS})`

/** The built-in claims, written so that every quantifier is separated by a literal word. */
export const DEFAULT_DONE_CLAIM_PATTERNS: readonly RegExp[] = Object.freeze([
  // "Done." is a stop statement and is judged earlier; these are its wordier siblings.
  new RegExp(`^(?:(?:all|everything|the\\s+task|task|the\\s+work|work)\\s+(?:is\\s+|are\\s+)?)?${FINISHED}[.!]*$`, "im"),
  new RegExp(`^(?:i'?m|i\\s+am|we'?re|we\\s+are)\\s+(?:all\\s+|now\\s+)?(?:done|finished)[.!]*$`, "im"),
  new RegExp(
    `^all\\s+(?:the\\s+)?(?:tasks?|todos?|items|steps|changes|work)\\s+(?:are\\s+|is\\s+|have\\s+been\\s+|has\\s+been\\s+)?(?:now\\s+)?${FINISHED}[.!]*$`,
    "im",
  ),
  /\b(?:i\s+am|i'?m|i\s+have|i'?ve|we\s+have|we'?ve)\s+(?:now\s+)?(?:done|finished|completed)\s+(?:with\s+)?(?:the\s+|this\s+|all\s+(?:the\s+)?|every\s+)?(?:task|work|implementation|changes|everything|todos?|items)/im,
  new RegExp(`\\b(?:the|this|my)\\s+(?:task|work|implementation|job|fix|change)\\s+(?:is|has\\s+been)\\s+(?:now\\s+)?(?:fully\\s+)?${FINISHED}\\b`, "im"),
  new RegExp(
    `\\b(?:everything|all\\s+(?:of\\s+)?(?:the\\s+)?(?:tasks?|work|todos?|items|steps))\\s+(?:is|are|has\\s+been|have\\s+been)\\s+(?:now\\s+)?(?:fully\\s+)?(?:${FINISHED_WORDS}|implemented)\\b`,
    "im",
  ),
  /\bnothing\s+(?:else\s+|more\s+)?(?:left|remaining)\s+to\s+do\b/im,
  /\bsuccessfully\s+(?:completed|finished)\s+(?:the\s+|all\s+(?:the\s+)?)?(?:task|tasks|work|implementation)\b/im,
  ...INTL_DONE_CLAIM_PATTERNS,
])

/** The done-claim patterns in force: the user's list when it has usable entries, else the built-in set. */
export function doneClaimPatterns(sources: readonly string[] | undefined): readonly RegExp[] {
  return compilePatterns(sources, "im") ?? DEFAULT_DONE_CLAIM_PATTERNS
}

export function hasDoneClaim(text: string, patterns: readonly RegExp[] = DEFAULT_DONE_CLAIM_PATTERNS): boolean {
  if (typeof text !== "string" || text.length === 0) return false
  const lines = lastNonBlankLines(text, DONE_CLAIM_LINES)
  if (lines.length === 0) return false
  const joined = lines.join("\n")
  // The built-in claims must end their sentence ("complete except for …" is no claim);
  // a user's own patterns are taken as written.
  return patterns === DEFAULT_DONE_CLAIM_PATTERNS ? anyClauseEnds(patterns, joined) : anyMatches(patterns, joined)
}
