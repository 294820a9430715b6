/**
 * "Ready to continue": the model announces it will go on with the next task and then ends
 * its turn instead ("Ready to continue with task 3.", "Proceeding with step 2."). It needs
 * no permission, so it gets a continue. Read from the last three non-blank lines; a reply
 * whose last line is a question ("Shall I proceed with task 4?") is left to the user.
 */
import { anyMatches, compilePatterns } from "./patterns.ts"
import { anyClauseEnds } from "./clause-tail.ts"
import { INTL_READY_TO_CONTINUE_PATTERNS } from "./ready-intl.ts"
import { lastNonBlankLines, trimEndDecoration } from "./text.ts"

export const READY_LINES = 3

const NEXT_THING = "(?:(?:the\\s+)?next\\s+(?:task|step|item|phase|part)|task|step|phase|item)"

export const DEFAULT_READY_TO_CONTINUE_PATTERNS: readonly RegExp[] = Object.freeze([
  new RegExp(`\\bready\\s+to\\s+(?:continue|proceed|move\\s+on)\\s+(?:with|to)\\s+${NEXT_THING}`, "i"),
  new RegExp(`\\b(?:continuing|proceeding|moving\\s+on)\\s+(?:with|to)\\s+${NEXT_THING}`, "i"),
  new RegExp(`\\b(?:will|i'll|let\\s+me|now\\s+i'll)\\s+(?:now\\s+)?(?:continue|proceed|move\\s+on)\\s+(?:with|to)\\s+${NEXT_THING}`, "i"),
  new RegExp(`\\bnext,?\\s+(?:i'll|i\\s+will)\\s+(?:continue|proceed)\\s+with\\s+${NEXT_THING}`, "i"),
  new RegExp(`^(?:and\\s+)?(?:now\\s+)?on\\s+to\\s+${NEXT_THING}`, "im"),
  ...INTL_READY_TO_CONTINUE_PATTERNS,
])

export function readyToContinuePatterns(sources: readonly string[] | undefined): readonly RegExp[] {
  return compilePatterns(sources, "i") ?? DEFAULT_READY_TO_CONTINUE_PATTERNS
}

export function hasReadyToContinue(text: string, patterns: readonly RegExp[] = DEFAULT_READY_TO_CONTINUE_PATTERNS): boolean {
  if (typeof text !== "string" || text.length === 0) return false
  const lines = lastNonBlankLines(text, READY_LINES)
  const last = lines[lines.length - 1]
  if (last === undefined) return false
  const end = trimEndDecoration(last)
  if (end.endsWith("?") || end.endsWith("\uff1f")) return false
  const joined = lines.join("\n")
  // The built-in claims must end their sentence ("… requires the API key" is no claim);
  // a user's own patterns are taken as written.
  return patterns === DEFAULT_READY_TO_CONTINUE_PATTERNS ? anyClauseEnds(patterns, joined) : anyMatches(patterns, joined)
}
