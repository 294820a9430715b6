/**
 * What the judge knows about a session's todo list, and which items are still open.
 *
 * Three states, kept apart on purpose because they lead to different behaviour:
 *  - a list (possibly empty): nudges may name its open items;
 *  - "none": no todo list exists (no todo tool, or it was never used): judged as a session
 *    without todos (🎉 latches, a bare done claim gets a report demanded);
 *  - "unreadable": there is a list but it could not be read: nothing is ever sent on its
 *    strength, and nothing is latched on a guess either.
 */
import type { TodoItem } from "../core/transcript.ts"

export type TodoSnapshot = readonly TodoItem[] | "none" | "unreadable"

/** Statuses that mean "still to do". Anything else (completed, cancelled, unknown) is closed. */
const OPEN_STATUSES: ReadonlySet<string> = new Set(["pending", "in_progress"])

export function isOpenTodo(item: TodoItem): boolean {
  return OPEN_STATUSES.has(item.status)
}

/** The open items of a list, in list order. Not a list (none/unreadable) has none. */
export function openTodos(todos: TodoSnapshot | undefined): TodoItem[] {
  if (!Array.isArray(todos)) return []
  return (todos as readonly TodoItem[]).filter((item) => item !== null && typeof item === "object" && isOpenTodo(item))
}

/** True for a real list with at least one item where every item is closed. */
export function allTodosClosed(todos: TodoSnapshot | undefined): boolean {
  return Array.isArray(todos) && todos.length > 0 && openTodos(todos).length === 0
}
