/**
 * Every text the judgement of a finished turn can send, and the task_complete replies.
 * A configured override always wins verbatim (a blank one counts as none); the built-in texts
 * live only here.
 */
import type { TodoItem } from "../core/transcript.ts"
import { openTodos, type TodoSnapshot } from "../todos/open.ts"
import { PLAIN_CONTINUE } from "./continue.ts"

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

export const TASK_COMPLETE_ACK =
  "Completion recorded. End your turn now with a short summary for the user. Do not call task_complete again."

export const TASK_COMPLETE_REPEAT_WARNING =
  "task_complete was already recorded and calling it again changes nothing. Stop calling tools and end your turn with a brief summary."

export const TASK_COMPLETE_REPEAT_ERROR =
  "task_complete rejected: completion was already acknowledged and no new user message has arrived since. Stop now and end your turn."

/** How many open items a prompt lists before summarising the rest, and how long one item may be. */
export const MAX_LISTED_TODOS = 20
export const MAX_TODO_TEXT = 200

const custom = (value: string | undefined) => (typeof value === "string" && value.trim() !== "" ? value : undefined)
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many)

function oneLine(content: string): string {
  const raw = String(content)
  const head = raw.length > MAX_TODO_TEXT * 2 ? raw.slice(0, MAX_TODO_TEXT * 2) : raw
  const flat = head.replace(/[\u0000-\u001f\u007f]+/g, " ").trim()
  return flat.length > MAX_TODO_TEXT ? `${flat.slice(0, MAX_TODO_TEXT - 1)}…` : flat
}

/** "1. [pending] Write the tests" lines for open items, at most MAX_LISTED_TODOS of them. */
export function formatOpenTodoList(open: readonly TodoItem[]): string {
  const lines = open.slice(0, MAX_LISTED_TODOS).map((item, i) => `${i + 1}. [${oneLine(item.status)}] ${oneLine(item.content)}`)
  const rest = open.length - MAX_LISTED_TODOS
  if (rest > 0) lines.push(`… and ${rest} more open ${plural(rest, "item", "items")}.`)
  return lines.join("\n")
}

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

/** task_complete refused because items are open; names them. */
/** The goal as the model reads it quoted back: one line, cut at `max` characters. */
export function quotedGoal(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim()
  return `"${flat.length > max ? `${flat.slice(0, max - 3).trimEnd()}...` : flat}"`
}

/** task_complete while a goal is set and todos are open: never accepted (the goal's own budgets bound it). */
export function goalTaskCompleteOpenTodos(goal: string, open: readonly TodoItem[]): string {
  const n = open.length
  if (n === 0) return `task_complete refused: the goal ${quotedGoal(goal)} is met only once every todo item is closed, and the todo list could not be read just now. Call task_complete again with your evidence.`
  return [
    `task_complete refused: the goal ${quotedGoal(goal)} is met only once every todo item is closed, and ${n} ${plural(n, "is", "are")} still open.`,
    formatOpenTodoList(open),
    "",
    "Finish them first (or mark them completed or cancelled if they no longer apply), then call task_complete again with your evidence.",
  ].join("\n")
}

/** task_complete while a goal is set, without evidence. */
export function goalTaskCompleteNoEvidence(goal: string): string {
  return [
    `task_complete refused: the goal ${quotedGoal(goal)} is met only with evidence.`,
    "Call task_complete again with `evidence`: the commands you ran and what they showed (for example the test command and its pass/fail counts).",
  ].join("\n")
}

/** task_complete accepted as meeting the goal. */
export function goalMetAck(goal: string): string {
  return `Goal met: ${quotedGoal(goal)}. Completion recorded. End your turn now with a short summary for the user. Do not call task_complete again.`
}

export function taskCompleteRefusal(open: readonly TodoItem[]): string {
  const n = open.length
  return [
    `task_complete refused: ${n} todo ${plural(n, "item is", "items are")} still open.`,
    formatOpenTodoList(open),
    "",
    "Finish them first (or mark them completed or cancelled if they no longer apply), then call task_complete again.",
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
