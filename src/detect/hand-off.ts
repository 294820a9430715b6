/**
 * Hand-off to the user: the ball is in the user's court, so no idle nudge may fire.
 *
 *  - an open question or permission in the newest assistant message: a tool part still
 *    `pending` (the call was emitted but is waiting, typically on the user), or a question
 *    tool still `running`. Completed and failed tool parts never count, nor does a 2.x
 *    `streaming` part (its input was still arriving or was cut off: no one asked anything);
 *  - the newest assistant text matches one of the user's `stopPatterns` (a protocol line
 *    such as `STOP: NEEDS_DECISION …`). Those patterns are compiled multi-line, exactly as
 *    written (case included), and run on the capped tail of the text only.
 *
 * The engine's own signals (question/permission events) are a third source; the judge
 * combines them.
 */
import type { TranscriptMessage } from "../core/transcript.ts"
import { anyMatches, compilePatterns } from "./patterns.ts"
import { messageTail } from "./text.ts"

/** Tools whose whole purpose is to wait for the user while they run. */
export const QUESTION_TOOLS: ReadonlySet<string> = new Set([
  "question",
  "ask",
  "ask_user",
  "askuser",
  "askuserquestion",
  "ask_followup_question",
  "request_user_input",
])

export type HandOff = { kind: "open-question"; tool: string } | { kind: "stop-pattern"; pattern: string }

export function openUserRequest(message: TranscriptMessage | undefined): HandOff | undefined {
  if (!message || message.role !== "assistant") return undefined
  for (const part of message.parts) {
    if (part.kind !== "tool") continue
    if (part.status === "pending") return { kind: "open-question", tool: part.tool }
    if (part.status === "running" && QUESTION_TOOLS.has(String(part.tool).toLowerCase())) {
      return { kind: "open-question", tool: part.tool }
    }
  }
  return undefined
}

export function matchedStopPattern(
  message: TranscriptMessage | undefined,
  sources: readonly string[] | undefined,
): HandOff | undefined {
  const patterns = compilePatterns(sources, "m")
  if (!patterns || !message || message.role !== "assistant") return undefined
  const text = messageTail(message, "text")
  if (text.length === 0) return undefined
  for (const pattern of patterns) {
    if (anyMatches([pattern], text)) return { kind: "stop-pattern", pattern: pattern.source }
  }
  return undefined
}
