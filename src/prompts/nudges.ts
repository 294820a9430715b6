/**
 * The task_complete replies, the goal as it is quoted back, and the open todo list as every
 * prompt that names it lists it (the judge's own texts: paths/judge/prompts.ts).
 */
import type { TodoItem } from "../core/transcript.ts"

export const TASK_COMPLETE_ACK =
  "Completion recorded. End your turn now with a short summary for the user. Do not call task_complete again."

export const TASK_COMPLETE_REPEAT_WARNING =
  "task_complete was already recorded and calling it again changes nothing. Stop calling tools and end your turn with a brief summary."

export const TASK_COMPLETE_REPEAT_ERROR =
  "task_complete rejected: completion was already acknowledged and no new user message has arrived since. Stop now and end your turn."

/** How many open items a prompt lists before summarising the rest, and how long one item may be. */
export const MAX_LISTED_TODOS = 20
export const MAX_TODO_TEXT = 200

/** "item" or "items": the one word a count needs. */
export const plural = (n: number, one: string, many: string) => (n === 1 ? one : many)

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

/** task_complete refused because items are open; names them. */
export function taskCompleteRefusal(open: readonly TodoItem[]): string {
  const n = open.length
  return [
    `task_complete refused: ${n} todo ${plural(n, "item is", "items are")} still open.`,
    formatOpenTodoList(open),
    "",
    "Finish them first (or mark them completed or cancelled if they no longer apply), then call task_complete again.",
  ].join("\n")
}
