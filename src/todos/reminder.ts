/**
 * The open-todos reminder as a send-ready prompt. The wording lives in src/prompts; this
 * only decides between the reminder and its fallback: a list that cannot be used (not a
 * list, nothing open, malformed items) yields a plain continue rather than an empty or
 * misleading reminder.
 */
import type { TodoItem } from "../core/transcript.ts"
import { openTodosReminder, plainContinuePrompt, type NudgePromptOptions } from "../prompts/nudges.ts"
import { isOpenTodo } from "./open.ts"

function usableOpenItems(todos: unknown): TodoItem[] {
  if (!Array.isArray(todos)) return []
  const open: TodoItem[] = []
  for (const item of todos as unknown[]) {
    if (item === null || typeof item !== "object") continue
    const candidate = item as TodoItem
    if (typeof candidate.content !== "string" || typeof candidate.status !== "string") continue
    if (isOpenTodo(candidate)) open.push(candidate)
  }
  return open
}

export function todoReminderPrompt(todos: unknown, options: NudgePromptOptions): string {
  return openTodosReminder(usableOpenItems(todos)) ?? plainContinuePrompt(options)
}
