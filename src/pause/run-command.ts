/**
 * Runs `/auto-resume <args>` for one session against a pause store and the engine's status,
 * and returns the text to show. Shared by the v1 hooks and the v2 command. Never throws.
 */
import type { SessionStatus } from "../core/status.ts"
import { formatStatusReport, goalReply, parsePauseArguments, toggleReply, usageReply, type GoalCommand, type GoalLimits, type ParsedPauseCommand } from "./command.ts"
import type { PauseControl } from "../stores/file-pauses.ts"
import type { GoalControl } from "../stores/goal-file.ts"
import { holdText } from "../prompts/hold-text.ts"
import { quotedGoal } from "../prompts/nudges.ts"
import type { JournalEntry } from "../core/journal.ts"
import { OPTION_DEFAULTS } from "../options/index.ts"
import { sessionHistoryText } from "../prompts/history-text.ts"

export type PauseCommandDeps = {
  pauses: PauseControl
  /** The engine's snapshot of a session (RecoveryEngine.status). */
  status: (sessionID: string) => SessionStatus | undefined
  now: () => number
  /** The session's newest interventions (stores/journal-file.ts); absent where no history is kept. */
  history?: (sessionID: string, limit: number) => Promise<{ entries: JournalEntry[]; total: number }>
  /** Adds one line to the history (a goal set or cleared); absent where no history is kept. */
  note?: (entry: JournalEntry) => void
  /** The sessions' goals (stores/goal-file.ts); absent where no goals are kept. */
  goals?: GoalControl
  /** A goal's budgets where the engine has no view of the session yet (the options as configured). */
  goalLimits?: GoalLimits
}

/** How many interventions `/auto-resume history` shows: the chat is no place for a long table. */
export const HISTORY_IN_CHAT = 10

export type PauseCommandResult = { action: ParsedPauseCommand["action"]; text: string }

export async function runPauseCommand(sessionID: string, rawArgs: unknown, deps: PauseCommandDeps): Promise<PauseCommandResult> {
  const parsed = parsePauseArguments(rawArgs)
  try {
    switch (parsed.action) {
      case "usage":
        return { action: "usage", text: usageReply(parsed.reason) }
      case "status":
        return { action: "status", text: statusText(sessionID, deps) }
      case "goal":
        return { action: "goal", text: await goalCommand(sessionID, parsed, deps) }
      case "history": {
        if (!deps.history) return { action: "history", text: "auto-resume keeps no history in this setup." }
        const { entries, total } = await deps.history(sessionID, HISTORY_IN_CHAT)
        return { action: "history", text: sessionHistoryText(entries, total) }
      }
      case "on":
      case "off": {
        const wasPaused = safe(() => deps.pauses.isPaused(sessionID), false)
        const outcome = parsed.action === "off" ? await deps.pauses.pause(sessionID) : await deps.pauses.resume(sessionID)
        const text = outcome.ok
          ? toggleReply({ action: parsed.action, wasPaused, paused: outcome.paused, allPaused: outcome.allPaused, memoryOnly: outcome.memoryOnly })
          : toggleReply({ action: parsed.action, wasPaused, paused: wasPaused, allPaused: false, error: outcome.error })
        return { action: parsed.action, text }
      }
    }
  } catch (error) {
    return { action: parsed.action, text: `auto-resume could not run the command: ${error instanceof Error ? error.message : String(error)}` }
  }
}

function statusText(sessionID: string, deps: PauseCommandDeps): string {
  const now = safe(() => deps.now(), Date.now())
  const allPaused = safe(() => deps.pauses.allPaused(), false)
  const status = safe(() => deps.status(sessionID), undefined)
  const goals = deps.goals
  return formatStatusReport({
    sessionID,
    paused: safe(() => deps.pauses.isPaused(sessionID), false),
    allPaused,
    holder: safe(() => holderText(sessionID, allPaused, deps.pauses, now), undefined),
    status,
    goal: goals && { record: safe(() => goals.recordOf(sessionID), undefined), limits: goalLimits(deps, status) },
    now,
  })
}

/** The goal's budgets as they apply to the session: the engine's view, else the options as configured. */
function goalLimits(deps: PauseCommandDeps, status: SessionStatus | undefined): GoalLimits {
  if (status) return { maxContinues: status.goalMaxContinues, maxMs: status.goalMaxMs }
  return deps.goalLimits ?? { maxContinues: OPTION_DEFAULTS.goalMaxContinues, maxMs: OPTION_DEFAULTS.goalMaxMs }
}

/** `/auto-resume goal [<text> | off]`: shows, sets or clears the goal, and a set or a clear is one line in the history. */
async function goalCommand(sessionID: string, command: GoalCommand, deps: PauseCommandDeps): Promise<string> {
  const goals = deps.goals
  if (!goals) return "auto-resume keeps no goals in this setup."
  const now = safe(() => deps.now(), Date.now())
  const limits = goalLimits(deps, safe(() => deps.status(sessionID), undefined))
  if (command.goal === "show") return goalReply({ command, after: goals.recordOf(sessionID), limits, now })
  const outcome = command.goal === "set" ? await goals.set(sessionID, command.text, "command") : await goals.clear(sessionID, "command")
  if (!outcome.ok) return goalReply({ command, limits, now, error: outcome.error })
  const changed = command.goal === "set" ? outcome.after : outcome.before?.status === "active" ? outcome.before : undefined
  if (changed) {
    const line: JournalEntry = {
      time: now,
      sessionID,
      trigger: "goal",
      evidence: quotedGoal(changed.text, 80),
      action: command.goal === "set" ? "set by /auto-resume goal" : "cleared by /auto-resume goal off",
      outcome: command.goal === "set" ? "active" : "cleared",
    }
    safe(() => deps.note?.(line), undefined)
  }
  return goalReply({ command, before: outcome.before, after: outcome.after, limits, now, memoryOnly: outcome.memoryOnly })
}

/** The session's own pause first; else the pause of all sessions. */
function holderText(sessionID: string, allPaused: boolean, pauses: PauseControl, now: number): string | undefined {
  const own = pauses.holdOf?.(sessionID)
  if (own) return holdText(own, now)
  const all = allPaused ? pauses.allHoldOf?.() : undefined
  return all ? `of all sessions ${holdText(all, now)}` : undefined
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn()
  } catch {
    return fallback
  }
}
