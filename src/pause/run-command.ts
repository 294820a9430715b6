/**
 * Runs `/auto-resume <args>` for one session against a pause store and the engine's status,
 * and returns the text to show. Shared by the v1 hooks and the v2 command. Never throws.
 */
import type { SessionStatus } from "../core/status.ts"
import { formatStatusReport, parsePauseArguments, toggleReply, usageReply, type ParsedPauseCommand } from "./command.ts"
import type { PauseControl } from "../stores/file-pauses.ts"
import { holdText } from "../prompts/hold-text.ts"
import type { JournalEntry } from "../core/journal.ts"
import { sessionHistoryText } from "../prompts/history-text.ts"

export type PauseCommandDeps = {
  pauses: PauseControl
  /** The engine's snapshot of a session (RecoveryEngine.status). */
  status: (sessionID: string) => SessionStatus | undefined
  now: () => number
  /** The session's newest interventions (stores/journal-file.ts); absent where no history is kept. */
  history?: (sessionID: string, limit: number) => Promise<{ entries: JournalEntry[]; total: number }>
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
  return formatStatusReport({
    sessionID,
    paused: safe(() => deps.pauses.isPaused(sessionID), false),
    allPaused,
    holder: safe(() => holderText(sessionID, allPaused, deps.pauses, now), undefined),
    status: safe(() => deps.status(sessionID), undefined),
    now,
  })
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
