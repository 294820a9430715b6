/**
 * `/auto-resume` as both hosts run it: the same instance parts, the same answer and log line.
 * How the command is registered and how the answer is shown differ by host (v1/command-hooks.ts,
 * v2/command.ts).
 */
import type { LogLevel } from "../core/port.ts"
import type { SessionStatus } from "../core/status.ts"
import type { PauseControl } from "../stores/file-pauses.ts"
import { runPauseCommand } from "../pause/run-command.ts"
import type { HistoryStore } from "../stores/journal-file.ts"

export type PauseCommandHost = {
  /** RecoveryEngine (only `status` is used). */
  engine: { status(sessionID: string): SessionStatus | undefined }
  pauses: PauseControl
  log: (level: LogLevel, message: string) => void
  now?: () => number
  /** The instance's history (instance.ts), for `/auto-resume history`. */
  history?: HistoryStore
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
  const { text } = await runPauseCommand(sessionID, args, { pauses: host.pauses, status: (id) => host.engine.status(id), now: host.now ?? Date.now, history: host.history && ((id, limit) => host.history!.recent(id, limit)) })
  quietLog(host.log)("info", `session ${sessionID}: /auto-resume ${args.trim() || "status"}: ${text.split("\n")[0]}`)
  return text
}
