/**
 * The finished turns other rules answer better than a goal continue, so the goal's look before
 * the judge leaves them to those rules first (its look after every rule answers them when none
 * did): a malfunction the judge recovers (an answer cut off at the output limit, a silent dead
 * stream, a tool call printed as text or left in the reasoning), a loop of tool calls the loops
 * path answers, and a turn whose calls failed (a wrong tool name is the unknown-tools rule's).
 * Every other finished turn is the goal's: the judge would read it as the model stopping by
 * choice, and a goal answers that, a "done" included, with its continue.
 */
import { toolCallInReasoning, toolCallInText } from "../../detect/tool-call-text.ts"
import { detectIdleToolLoop } from "../../detect/tool-loop.ts"
import type { TurnFacts } from "../../runtime/path.ts"
import { judgeRecoversFirst } from "../judge/path.ts"
import type { TranscriptMessage } from "../../core/transcript.ts"

/** What another rule is likely to answer in this turn, or undefined when the turn is the goal's. */
export function othersFirst(facts: TurnFacts): string | undefined {
  const messages = facts.messages
  const newest = messages[messages.length - 1]
  const malfunction = judgeRecoversFirst(facts)
  if (malfunction) return malfunction
  if (toolCallInText(newest) ?? toolCallInReasoning(newest)) return "a tool call printed as text or left in the reasoning"
  if (detectIdleToolLoop(sinceLastOwnPrompt(messages))) return "a loop of tool calls"
  if (turnOf(messages).some((m) => m.parts.some((p) => p.kind === "tool" && p.status === "error"))) return "a tool call that failed"
  return undefined
}

/** The messages after the plugin's last prompt: a loop it already answered must form again. */
function sinceLastOwnPrompt(messages: readonly TranscriptMessage[]): readonly TranscriptMessage[] {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user" && messages[i]!.own) return messages.slice(i + 1)
  return messages
}

/** The model's messages since the last message of a user (the user's or ours). */
function turnOf(messages: readonly TranscriptMessage[]): readonly TranscriptMessage[] {
  let start = messages.length
  while (start > 0 && messages[start - 1]!.role === "assistant") start--
  return messages.slice(start)
}
