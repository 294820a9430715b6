/**
 * The open-todos reminder as a send-ready prompt. The wording lives in src/prompts; this
 * only decides between the reminder and its fallback: a list that cannot be used (not a
 * list, nothing open, malformed items) yields a plain continue rather than an empty or
 * misleading reminder.
 */
import { openTodosReminder, plainContinuePrompt, type NudgePromptOptions } from "../prompts/nudges.ts"
import { openTodos, type TodoSnapshot } from "./open.ts"

export function todoReminderPrompt(todos: unknown, options: NudgePromptOptions): string {
  // An item without text is left out rather than named as a blank.
  const open = openTodos(todos as TodoSnapshot).filter((item) => typeof item.content === "string")
  return openTodosReminder(open) ?? plainContinuePrompt(options)
}
