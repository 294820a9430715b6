/**
 * `auto-resume-toggle <sessionID> goal [<text> | off]`: the goal of a session, from outside the
 * chat. Writes the goal file the running plugin reads again every check interval (stores/
 * goal-file.ts), and adds the same history line `/auto-resume goal` does. Exit status: 0 done,
 * 1 the goal file could not be written.
 */
import { goalOfSession, goalText, withGoalCleared, withGoalSet, type GoalRecord } from "../core/goals.ts"
import type { JournalEntry } from "../core/journal.ts"
import { formatLocalTime } from "../prompts/format.ts"
import { quotedGoal } from "../prompts/nudges.ts"
import { GoalFile, goalFilePath, newGoalID } from "../stores/goal-file.ts"
import { JournalFile, journalFilePath } from "../stores/journal-file.ts"

export type GoalCliArgs = { goal: "show" } | { goal: "off" } | { goal: "set"; text: string }

type Io = { stdout: (line: string) => void; stderr: (line: string) => void; env: Record<string, string | undefined>; now: () => number }

/** What follows `goal` on the command line: nothing, `off`, or the goal's words. */
export function parseGoalCliArgs(words: readonly string[]): GoalCliArgs {
  const text = goalText(words.join(" "))
  if (text === "") return { goal: "show" }
  if (text.toLowerCase() === "off") return { goal: "off" }
  return { goal: "set", text }
}

/** One line on how the session's goal stands, as the CLI sees it (the budgets are the plugin's options: not known here). */
function describe(goal: GoalRecord): string {
  const n = `${goal.continues} ${goal.continues === 1 ? "continue" : "continues"}`
  if (goal.status === "active") return `goal ${quotedGoal(goal.text, 200)}: active since ${formatLocalTime(goal.setAt)}, ${n} so far`
  return `goal ${quotedGoal(goal.text, 200)}: ${goal.status} at ${formatLocalTime(goal.endedAt ?? goal.setAt)} after ${n}${goal.why ? ` (${goal.why})` : ""}`
}

/** The goal line `status` adds, or undefined when the session has none (or the file cannot be read). */
export function goalStatusLine(env: Record<string, string | undefined>, sessionID: string): string | undefined {
  const goal = goalOfSession(new GoalFile(goalFilePath(env)).read().goals, sessionID)
  return goal ? describe(goal) : undefined
}

export async function runGoal(sessionID: string, args: GoalCliArgs, io: Io): Promise<number> {
  const file = new GoalFile(goalFilePath(io.env), { now: io.now })
  if (args.goal === "show") {
    const read = file.read()
    if (read.problem) io.stderr(`auto-resume-toggle: warning: ${file.path} was read as empty (${read.problem})`)
    const goal = goalOfSession(read.goals, sessionID)
    io.stdout(goal ? `${sessionID}: ${describe(goal)}` : `${sessionID}: no goal`)
    return 0
  }
  const now = io.now()
  let before: GoalRecord | undefined
  try {
    const id = newGoalID(now)
    await file.update((goals) => {
      before = goalOfSession(goals, sessionID)
      return args.goal === "set" ? withGoalSet(goals, sessionID, args.text, id, "cli", now) : withGoalCleared(goals, sessionID, "cleared by auto-resume-toggle", now)
    })
  } catch (error) {
    io.stderr(`auto-resume-toggle: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
  const changed = args.goal === "set" ? args.text : before?.status === "active" ? before.text : undefined
  if (changed === undefined) {
    io.stdout(`${sessionID}: no goal was active; nothing changed`)
    return 0
  }
  io.stdout(args.goal === "set" ? `${sessionID}: goal set: ${quotedGoal(changed, 1000)}` : `${sessionID}: goal cleared: ${quotedGoal(changed, 200)}`)
  await note(io, {
    time: now,
    sessionID,
    trigger: "goal",
    evidence: quotedGoal(changed, 80),
    action: args.goal === "set" ? "set by auto-resume-toggle" : "cleared by auto-resume-toggle",
    outcome: args.goal === "set" ? "active" : "cleared",
  })
  return 0
}

/** One line in the history, written before the CLI exits; a history that cannot be written is a note on stderr, not a failure. */
async function note(io: Io, entry: JournalEntry): Promise<void> {
  const journal = new JournalFile({ file: journalFilePath(io.env), log: (_level, message) => io.stderr(`auto-resume-toggle: note: ${message}`) })
  journal.append(entry)
  await journal.flushed()
}
