/**
 * The todo list as the normalized transcript shows it, on either host: every `todowrite` call
 * carries the whole list, so the newest completed one is the current list. It is the 2.x port's
 * only todo source (2.x has no todo API or event) and the judge's second one on both hosts.
 * One bad item makes the whole list "unreadable": a partly read list could hide exactly the open
 * item that matters. Only the messages given are searched, so the caller must pass a window that
 * reaches the last write.
 */
import type { TodoItem, TranscriptMessage } from "../core/transcript.ts"
import type { TodoSnapshot } from "./open.ts"

export const TODO_WRITE_TOOL = "todowrite"

/** A list longer than this is not a todo list a model maintains; it is treated as unreadable. */
export const MAX_TODO_ITEMS = 500

function readItem(raw: unknown): TodoItem | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined
  const item = raw as Record<string, unknown>
  if (typeof item.content !== "string" || typeof item.status !== "string") return undefined
  if (item.priority !== undefined && typeof item.priority !== "string") return undefined
  const { content, status, priority } = item
  return priority === undefined ? { content, status } : { content, status, priority }
}

export function readTodoInput(input: unknown): readonly TodoItem[] | "unreadable" {
  try {
    if (input === null || typeof input !== "object") return "unreadable"
    const todos = (input as Record<string, unknown>).todos
    if (!Array.isArray(todos) || todos.length > MAX_TODO_ITEMS) return "unreadable"
    // One bad item makes the whole list unreadable (a hole reads as a bad item too).
    const items = Array.from(todos, readItem)
    return items.includes(undefined) ? "unreadable" : (items as TodoItem[])
  } catch {
    // A getter or proxy in the input blew up.
    return "unreadable"
  }
}

/** The current todo list according to the newest completed `todowrite` part in `messages`. */
export function readTodosFromTranscript(messages: readonly TranscriptMessage[]): TodoSnapshot {
  for (let m = messages.length - 1; m >= 0; m--) {
    const message = messages[m]
    if (!message || !Array.isArray(message.parts)) continue
    for (let p = message.parts.length - 1; p >= 0; p--) {
      const part = message.parts[p]
      if (!part || part.kind !== "tool" || part.status !== "completed") continue
      if (typeof part.tool !== "string" || part.tool.toLowerCase() !== TODO_WRITE_TOOL) continue
      return readTodoInput(part.input)
    }
  }
  return "none"
}
