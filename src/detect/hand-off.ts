/**
 * Hand-off to the user, so no idle nudge may fire: a tool part still `pending` (waiting, typically
 * on the user) or a question tool still `running` in the newest assistant message (a 2.x
 * `streaming` part asked nothing: its input was still arriving or was cut off), or the newest
 * text matching one of the user's `stopPatterns` (compiled multi-line as written, run on the
 * capped tail). The engine's question/permission events are a third source; the judge combines them.
 */
import type { TranscriptMessage } from "../core/transcript.ts"
import { anyMatches, compilePatterns } from "./patterns.ts"
import { messageTail } from "./text.ts"

/** Tools whose whole purpose is to wait for the user while they run. */
export const QUESTION_TOOLS: ReadonlySet<string> = new Set("question ask ask_user askuser askuserquestion ask_followup_question request_user_input".split(" "))

export type HandOff = { kind: "open-question"; tool: string } | { kind: "stop-pattern"; pattern: string }

export function openUserRequest(message: TranscriptMessage | undefined): HandOff | undefined {
  if (!message || message.role !== "assistant") return undefined
  const open = message.parts.find(
    (part) => part.kind === "tool" && (part.status === "pending" || (part.status === "running" && QUESTION_TOOLS.has(String(part.tool).toLowerCase()))),
  )
  return open?.kind === "tool" ? { kind: "open-question", tool: open.tool } : undefined
}

export function matchedStopPattern(message: TranscriptMessage | undefined, sources: readonly string[] | undefined): HandOff | undefined {
  const patterns = compilePatterns(sources, "m")
  if (!patterns || !message || message.role !== "assistant") return undefined
  const text = messageTail(message, "text")
  const hit = text.length > 0 ? patterns.find((pattern) => anyMatches([pattern], text)) : undefined
  return hit && { kind: "stop-pattern", pattern: hit.source }
}

/** The turn hands over to the user: an open request first, else a stop pattern. */
export function handOffOf(message: TranscriptMessage | undefined, stopPatterns: readonly string[] | undefined): HandOff | undefined {
  return openUserRequest(message) ?? matchedStopPattern(message, stopPatterns)
}
