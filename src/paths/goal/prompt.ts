/**
 * The continue a goal sends after a finished turn that did not meet it: the goal, what the last
 * turn said, the todos still open, and what meets it (task_complete with evidence). It restates,
 * it never answers: a turn that asks the user gets no continue at all (the path decides that).
 */
import { formatOpenTodoList, quotedGoal } from "../../prompts/nudges.ts"
import { openTodos, type TodoSnapshot } from "../../todos/open.ts"

/** How much of the last turn's text is quoted back: its last sentences, not the whole answer. */
const MAX_QUOTED_TURN = 300

export type GoalContinue = {
  goal: string
  /** This continue's number, and the goal's budget. */
  number: number
  max: number
  /** What the last turn said (its text), or "" when it said nothing. */
  said: string
  todos: TodoSnapshot
}

/** The end of what the turn said, on one line, cut at a word where it can be. */
export function lastWords(text: string, max = MAX_QUOTED_TURN): string {
  const flat = text.replace(/^\u2026/, "").replace(/\s+/g, " ").trim()
  if (flat.length <= max) return flat
  const tail = flat.slice(flat.length - max)
  const space = tail.indexOf(" ")
  return `...${space > 0 && space < 40 ? tail.slice(space + 1) : tail}`
}

export function buildGoalContinue(c: GoalContinue): string {
  const said = lastWords(c.said)
  const open = openTodos(c.todos)
  const lines = [
    `auto-resume goal (continue ${c.number} of at most ${c.max}): keep working until this goal is met: ${quotedGoal(c.goal, 1000)}`,
    said ? `Your last turn said: "${said}"` : "Your last turn ended without any text.",
  ]
  if (open.length > 0) lines.push(`Still open in your todo list:\n${formatOpenTodoList(open)}`)
  else if (c.todos === "none") lines.push("You keep no todo list; if the goal takes several steps, write one.")
  else if (c.todos !== "unreadable") lines.push("Every item of your todo list is closed.")
  lines.push(
    "The goal is met only when you call the task_complete tool with `evidence`: the commands you ran and what they showed. Until then, take the next concrete step toward it.",
    "If something only the user can decide or provide blocks you, ask them plainly and stop.",
  )
  return lines.join("\n")
}
