/**
 * Every text the judge of a finished turn can send (judge.ts). A configured override always wins
 * verbatim (a blank one counts as none); the built-in texts live only here.
 */
import { formatOpenTodoList, plural } from "../../prompts/nudges.ts"
import { PLAIN_CONTINUE } from "../../prompts/continue.ts"
import type { TodoItem } from "../../core/transcript.ts"
import { openTodos, type TodoSnapshot } from "../../todos/open.ts"

/** The option fields these prompts honour (a subset of `Options`). */
export type NudgePromptOptions = Partial<
  Record<"continuePrompt" | "actionIntentPrompt" | "toolTextRecoveryPrompt" | "thinkingToolRecoveryPrompt" | "doneWithoutWorkPrompt" | "doneWithoutDetailsPrompt", string>
>

export const TOOL_TEXT_RECOVERY_PROMPT =
  "Your last reply wrote a tool call out as text, so the tool never ran. " +
  "Make that call again through the real tool-calling interface instead of typing it into the message."

export const THINKING_TOOL_RECOVERY_PROMPT =
  "Your reasoning contains a tool call that was never actually made, so nothing ran. " +
  "Issue it now as a real tool call instead of leaving it in your thinking."

export const DEAD_STREAM_PROMPT =
  "Your previous reply ended without any visible text or tool call. Pick up where you stopped and carry on with the task."

export const CUT_OFF_PROMPT =
  "Your last answer was cut off because it reached the output limit. " +
  "Continue from exactly where it stopped, without repeating what is already written; if a lot is left, do it in smaller steps."

export const DONE_WITHOUT_WORK_PROMPT =
  "You said the work is finished, but your todo list still has open items. " +
  "Go through them: do what is left, or mark an item completed or cancelled in the list if it genuinely no longer applies."

export const DONE_WITHOUT_DETAILS_PROMPT =
  "You reported the task as finished without saying what you actually did. Reply now with a concrete report: " +
  "each file you changed (full path and what changed in it), each command you ran to check the result and what it printed, " +
  "and the final state. A one-line 'done' is not an answer; write the report."

const custom = (value: string | undefined) => (typeof value === "string" && value.trim() !== "" ? value : undefined)

/** The bare continue for idle nudges: the user's `continuePrompt`, else "continue". */
export const plainContinuePrompt = (options: NudgePromptOptions) => custom(options.continuePrompt) ?? PLAIN_CONTINUE
export const deadStreamPrompt = (options: NudgePromptOptions) => custom(options.continuePrompt) ?? DEAD_STREAM_PROMPT
export const toolTextPrompt = (options: NudgePromptOptions) => custom(options.toolTextRecoveryPrompt) ?? TOOL_TEXT_RECOVERY_PROMPT
export const thinkingToolPrompt = (options: NudgePromptOptions) => custom(options.thinkingToolRecoveryPrompt) ?? THINKING_TOOL_RECOVERY_PROMPT
/** `actionIntentPrompt`, else `continuePrompt`, else "continue". */
export const actionIntentPromptText = (options: NudgePromptOptions) => custom(options.actionIntentPrompt) ?? plainContinuePrompt(options)
export const doneWithoutDetailsPromptText = (options: NudgePromptOptions) => custom(options.doneWithoutDetailsPrompt) ?? DONE_WITHOUT_DETAILS_PROMPT

/** The built-in text also lists the open items; an override is sent as written. */
export function doneWithoutWorkPromptText(options: NudgePromptOptions, open: readonly TodoItem[]): string {
  return custom(options.doneWithoutWorkPrompt) ?? (open.length > 0 ? `${DONE_WITHOUT_WORK_PROMPT}\n\n${formatOpenTodoList(open)}` : DONE_WITHOUT_WORK_PROMPT)
}

/**
 * The open-todos reminder naming each open item. A list that cannot be used (not a list, nothing
 * open) yields a plain continue rather than an empty or misleading reminder; an item without
 * text is left out rather than named as a blank.
 */
export function todoReminderPrompt(todos: unknown, options: NudgePromptOptions): string {
  const open = openTodos(todos as TodoSnapshot).filter((item) => typeof item.content === "string")
  const n = open.length
  if (n === 0) return plainContinuePrompt(options)
  return [
    `Your todo list still has ${n} open ${plural(n, "item", "items")}:`,
    formatOpenTodoList(open),
    "",
    `Keep working: finish ${plural(n, "it", "each of them")}, or mark ${plural(n, "it", "an item")} completed or cancelled in the list if it no longer applies.`,
  ].join("\n")
}

/** After an answer cut off at the output limit (detect/cut-off.ts); `tool`: the call cut inside its arguments, so it never ran. */
export function cutOffPrompt(tool?: string): string {
  if (tool === undefined) return CUT_OFF_PROMPT
  const which = tool === "the tool" ? "a tool call" : `a call to ${tool}`
  return (
    `Your last answer was cut off because it reached the output limit while you were writing ${which}, so that call never ran. ` +
    "Make the call again, in full, with complete arguments; if they are long, split the work into smaller calls."
  )
}
