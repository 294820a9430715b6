/**
 * What a finished turn did, as the goal path weighs it: the turn since the last message of a
 * user (the user's or one of ours), its tool calls, its text and the todo list it left. A turn
 * made progress when it called a tool, changed the todo list, or said something new: words that
 * are in neither the previous turn, the goal nor the continue that asked for it. A turn that only
 * restates those (or says nothing) made none. Pure and bounded: a capped text, a capped set of
 * words.
 */
import { messageTail } from "../../detect/text.ts"
import type { TranscriptMessage } from "../../core/transcript.ts"
import type { TodoSnapshot } from "../../todos/open.ts"
import { TODO_WRITE_TOOL } from "../../todos/transcript-reader.ts"

/** Calls that are no work toward the goal: the completion claim itself, and reading the list back. */
const NOT_WORK: ReadonlySet<string> = new Set(["task_complete", "todoread", TODO_WRITE_TOOL])
/** How much of the turn's text is read, from its end. */
const MAX_TURN_TEXT = 4000
/** Words kept of one text: enough to tell a restatement from a report. */
const MAX_WORDS = 400
/** Fewer new words than this is a restatement, not news ("On it.", "Still working on it."). */
export const MIN_NEW_WORDS = 3

export type GoalTurn = {
  /** The newest assistant message: which turn this is. */
  id: string
  /** The newest assistant message's text: what the turn said last. */
  said: string
  /** Every assistant text of the turn, capped from its end. */
  text: string
  /** Tool calls of the turn that ran and are work toward the goal (a failed call is no work). */
  tools: number
}

/** What the path keeps of the last turn it weighed, to weigh the next against. */
export type TurnPrint = { id: string; words: readonly string[]; todos: string }

/**
 * The finished turn, or undefined when the newest message is no finished turn of the model: a
 * user's or our own message, a turn that ended in an error, or a command exchange of ours (the
 * 1.x command's reply, as the host adapter marks it: TranscriptMessage.ours).
 */
export function readGoalTurn(messages: readonly TranscriptMessage[]): GoalTurn | undefined {
  const newest = messages[messages.length - 1]
  if (!newest || newest.role !== "assistant" || newest.errorName || newest.ours === "command") return undefined
  let start = messages.length - 1
  while (start > 0 && messages[start - 1]!.role === "assistant") start--
  const turn = messages.slice(start)
  let tools = 0
  for (const message of turn) for (const part of message.parts) if (part.kind === "tool" && part.status !== "error" && !NOT_WORK.has(part.tool)) tools++
  const text = turn.map((m) => messageTail(m, "text", MAX_TURN_TEXT)).filter(Boolean).join("\n")
  return { id: newest.id, said: messageTail(newest, "text", MAX_TURN_TEXT), text: text.length > MAX_TURN_TEXT ? text.slice(-MAX_TURN_TEXT) : text, tools }
}

/** The words of a text, lower case, each once, at most MAX_WORDS of them. */
export function wordsOf(text: string): string[] {
  const words = new Set<string>()
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}_.'-]*/gu)) {
    words.add(m[0].replace(/[.'-]+$/, ""))
    if (words.size >= MAX_WORDS) break
  }
  return [...words]
}

/** The todo list as one comparable string ("none" and "unreadable" as they are). */
export function todoPrint(todos: TodoSnapshot): string {
  if (typeof todos === "string") return todos
  return todos.map((t) => `${t.status}:${t.content}`).join("\n")
}

export type Progress = { made: boolean; why: string }

/**
 * Whether `turn` moved toward the goal. `previous`: the last turn weighed (none: the first turn
 * since the goal was set, compared with the goal alone); `asked`: the words of the continue it
 * answered, which are no news either.
 */
export function weighTurn(turn: GoalTurn, todos: TodoSnapshot, previous: TurnPrint | undefined, goal: string, asked: readonly string[] = []): { progress: Progress; print: TurnPrint } {
  const words = wordsOf(turn.text)
  const print: TurnPrint = { id: turn.id, words, todos: todoPrint(todos) }
  if (turn.tools > 0) return { progress: { made: true, why: `${turn.tools} tool call(s)` }, print }
  if (previous !== undefined && previous.todos !== print.todos && todos !== "unreadable") return { progress: { made: true, why: "the todo list changed" }, print }
  const known = new Set([...(previous?.words ?? []), ...wordsOf(goal), ...asked])
  const fresh = words.filter((w) => !known.has(w)).length
  if (fresh >= MIN_NEW_WORDS) return { progress: { made: true, why: `${fresh} new words` }, print }
  return { progress: { made: false, why: words.length === 0 ? "no text, no tool call, no todo change" : "no tool call, no todo change, only a restatement" }, print }
}
