/**
 * `/auto-resume` as both hosts run it: the same instance parts, the same answer and log line.
 * How the command is registered and how the answer is shown differ by host (v1/command-hooks.ts,
 * v2/command.ts).
 */
import type { LogLevel } from "../core/port.ts"
import type { SessionStatus } from "../core/status.ts"
import type { PauseControl } from "../stores/file-pauses.ts"
import type { GoalControl } from "../stores/goal-file.ts"
import type { GoalLimits } from "../pause/command.ts"
import { runPauseCommand } from "../pause/run-command.ts"
import type { HistoryStore } from "../stores/journal-file.ts"

export type PauseCommandHost = {
  /** RecoveryEngine (only `status` is used). */
  engine: { status(sessionID: string): SessionStatus | undefined }
  pauses: PauseControl
  log: (level: LogLevel, message: string) => void
  now?: () => number
  /** The instance's history (instance.ts), for `/auto-resume history` and a goal's lines. */
  history?: HistoryStore
  /** The instance's goals (instance.ts), for `/auto-resume goal`. */
  goals?: GoalControl
  /** A goal's budgets as configured, for a session the engine has not seen yet. */
  goalLimits?: GoalLimits
}

/** `log` that never throws: logging must not break the command. */
export function quietLog(log: PauseCommandHost["log"]): PauseCommandHost["log"] {
  return (level, message) => {
    try {
      log(level, message)
    } catch {
      // Nothing to do.
    }
  }
}

/** Runs `/auto-resume <args>` for a session and logs the answer's first line. Never throws (nor does runPauseCommand). */
export async function answerPauseCommand(host: PauseCommandHost, sessionID: string, args: string): Promise<string> {
  const history = host.history
  const { text } = await runPauseCommand(sessionID, args, {
    pauses: host.pauses,
    status: (id) => host.engine.status(id),
    now: host.now ?? Date.now,
    history: history && ((id, limit) => history.recent(id, limit)),
    note: history && ((entry) => history.append(entry)),
    goals: host.goals,
    goalLimits: host.goalLimits,
  })
  quietLog(host.log)("info", `session ${sessionID}: /auto-resume ${args.trim().split(/\s+/)[0] || "status"}: ${text.split("\n")[0]}`)
  return text
}
