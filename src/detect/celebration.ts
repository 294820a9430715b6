/**
 * The 🎉 ending: the model considers the task complete. Only the very end counts (after
 * trailing spaces, punctuation and emoji variation selectors); a 🎉 in the middle of a
 * message is just enthusiasm.
 */
import { capTail } from "./text.ts"

const PARTY = "\u{1F389}"

export function endsWithCelebration(text: string): boolean {
  if (typeof text !== "string") return false
  const tail = capTail(text)
  let end = tail.length
  while (end > 0) {
    const ch = tail[end - 1]!
    if (ch === " " || ch === "\n" || ch === "\r" || ch === "\t" || ch === "." || ch === "!" || ch === "\ufe0f") end--
    else break
  }
  return end >= PARTY.length && tail.slice(end - PARTY.length, end) === PARTY
}
