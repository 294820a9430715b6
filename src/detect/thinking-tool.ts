/**
 * A tool call left inside the model's reasoning: the model "decided" to call a tool in its
 * thinking and then ended the turn without making the call. Same scan as tool calls
 * printed as text, over the reasoning parts of the newest assistant message.
 *
 * A message that did make a tool call is excluded: reasoning routinely drafts the call
 * that the message then makes for real.
 */
import { MAX_SCANNED_TEXT, type TranscriptMessage } from "../core/transcript.ts"
import { findToolCallText, type ToolCallHit } from "./tool-call-text.ts"
import { FENCE_CONTEXT_CHARS, messageTail } from "./text.ts"

export function toolCallInReasoning(
  message: TranscriptMessage | undefined,
  knownTools?: readonly string[],
): ToolCallHit | undefined {
  if (!message || message.role !== "assistant") return undefined
  for (const part of message.parts) if (part.kind === "tool") return undefined
  return findToolCallText(messageTail(message, "reasoning", MAX_SCANNED_TEXT + FENCE_CONTEXT_CHARS), knownTools)
}
