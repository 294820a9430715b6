/**
 * A reply that ends by asking the user something. The question is the model handing the
 * turn back; no idle nudge should answer it in the user's place.
 */
import { lastNonBlankLines, trimEndDecoration } from "./text.ts"

export function endsWithQuestion(text: string): boolean {
  if (typeof text !== "string" || text.length === 0) return false
  const [line] = lastNonBlankLines(text, 1)
  if (line === undefined) return false
  const core = trimEndDecoration(line)
  return core.endsWith("?") || core.endsWith("\uff1f")
}
