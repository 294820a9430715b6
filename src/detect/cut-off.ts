/**
 * A cut-off answer: the model hit its output limit, so the host ended the turn with finish
 * `length` (1.x on the assistant message, 2.x on the message and its `step.ended`). What was
 * written stops mid-thought, and a tool call cut inside its arguments never runs.
 *
 * "A tool call was being written" is read from the newest part only: a tool part that did not
 * complete (`error`, 2.x `streaming`), or the `invalid` part 1.18 records for a call whose
 * arguments could not be used. An earlier, completed call is finished work. (A 1.x `pending`
 * part reads as cut too, but the judge's hand-off guard treats it as waiting on the user first.)
 */
import type { TranscriptMessage, TranscriptToolPart } from "../core/transcript.ts"

export const CUT_OFF_FINISH = "length"

/** `tool`: the name of the call that was being written when the answer was cut, if any. */
export type CutOffFinding = { tool?: string }

/** Longest tool name named back to the model; a stranger "name" is not repeated at all. */
const MAX_TOOL_NAME = 64
const TOOL_NAME = /^[\w.:-]+$/

function named(value: unknown): string | undefined {
  return typeof value === "string" && value.length <= MAX_TOOL_NAME && TOOL_NAME.test(value) ? value : undefined
}

function cutCall(part: TranscriptToolPart): string | undefined {
  if (part.tool === "invalid") {
    const input = part.input
    const wanted = input && typeof input === "object" ? (input as Record<string, unknown>).tool : undefined
    return named(wanted) ?? "the tool"
  }
  if (part.status === "completed" || part.status === "running") return undefined
  return named(part.tool) ?? "the tool"
}

export function cutOffAnswer(message: TranscriptMessage | undefined): CutOffFinding | undefined {
  if (!message || message.role !== "assistant" || message.finish !== CUT_OFF_FINISH) return undefined
  // A turn that ended in an error (ESC among them) belongs to the error paths.
  if (message.errorName) return undefined
  const last = message.parts[message.parts.length - 1]
  if (last?.kind !== "tool") return {}
  const tool = cutCall(last)
  return tool === undefined ? {} : { tool }
}
