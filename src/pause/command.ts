/** `/auto-resume [on|off|status]`: argument parsing and every reply. Pure: the caller passes `now`. */
import type { SessionStatus } from "../core/status.ts"
import { formatDuration, formatLocalTime } from "../prompts/format.ts"

export const PAUSE_COMMAND_NAME = "auto-resume"
export const PAUSE_COMMAND_DESCRIPTION = "auto-resume for this session: off pauses it, on resumes it, status (default) reports it, history lists what it did"
export const PAUSE_USAGE =
  "Usage: /auto-resume [on | off | status | history] (off pauses recovery of this session, on resumes it, status or nothing shows its state, history its last ten interventions)"

export type PauseAction = "on" | "off" | "status" | "history"

export type ParsedPauseCommand = { action: PauseAction } | { action: "usage"; reason: string }

const MAX_ECHO = 40

export function parsePauseArguments(raw: unknown): ParsedPauseCommand {
  const text = typeof raw === "string" ? raw.trim().toLowerCase() : ""
  if (text === "" || text === "status") return { action: "status" }
  if (text === "on" || text === "off" || text === "history") return { action: text }
  const shown = text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}...` : text
  // eslint-disable-next-line no-control-regex
  return { action: "usage", reason: `unknown argument "${shown.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")}"` }
}

export function usageReply(reason?: string): string {
  return reason ? `auto-resume: ${reason}.\n${PAUSE_USAGE}` : PAUSE_USAGE
}

export type ToggleResult = {
  action: "on" | "off"
  /** Paused before the command ran. */
  wasPaused: boolean
  /** Paused now (the global pause included). */
  paused: boolean
  allPaused: boolean
  /** Set when the change could not be written to the pause file and lives in memory only. */
  memoryOnly?: string
  error?: string
}

export function toggleReply(r: ToggleResult): string {
  if (r.error) return `auto-resume could not ${r.action === "off" ? "pause" : "resume"} this session: ${r.error}`
  const lines: string[] = []
  if (r.action === "off") {
    lines.push(
      r.wasPaused
        ? "auto-resume was already paused for this session; nothing changed."
        : "auto-resume is paused for this session: no continue nudges and no quota waits until you run /auto-resume on (a restart of this OpenCode also lifts it; other OpenCode processes starting or stopping do not).",
    )
  } else if (r.allPaused) {
    lines.push("This session is no longer paused on its own, but all sessions are still paused (lift that with: auto-resume-toggle --all on).")
  } else {
    lines.push(r.wasPaused ? "auto-resume is active again for this session." : "auto-resume was not paused for this session; nothing changed.")
  }
  if (r.memoryOnly) lines.push(`(The pause file could not be written, so this holds for the current run only: ${r.memoryOnly})`)
  return lines.join("\n")
}

export type StatusReportInput = {
  sessionID: string
  paused: boolean
  allPaused: boolean
  /** Who holds the pause and since when (prompts/hold-text.ts), when that is known. */
  holder?: string
  /** The engine's view of the session; undefined when it has seen nothing of it yet. */
  status?: SessionStatus
  now: number
}

const yesNo = (b: boolean) => (b ? "yes" : "no")

export function formatStatusReport(input: StatusReportInput): string {
  const { status, now } = input
  const lines: string[] = []
  const pauseLine = input.paused
    ? input.allPaused
      ? "paused (all sessions are paused: auto-resume-toggle --all on lifts it)"
      : "paused (/auto-resume on resumes it)"
    : "active"
  lines.push(`auto-resume for session ${input.sessionID}: ${pauseLine}`)
  if (input.paused && input.holder) lines.push(`Pause ${input.holder}`)
  if (!status) {
    lines.push("No activity of this session has been seen since the plugin started, so there are no counters yet.")
    return lines.join("\n")
  }
  const tools = status.openTools.length
    ? status.openTools.map((t) => `${t.tool} (${formatDuration(t.ageMs)})`).join(", ")
    : "none"
  lines.push(`State: ${status.busy ? "busy" : "idle"}; open tools: ${tools}`)
  lines.push(
    `Waiting for the user: ${yesNo(status.awaitingUser)}; cancelled by the user: ${yesNo(status.cancelledByUser)}; marked complete: ${yesNo(status.completed)}`,
  )
  lines.push(
    `Budgets spent: retries ${status.episodeRetries}/${status.stallEpisodeMaxContinues} in this stall; continues ${status.continuesInWindow}/${status.loopMaxContinues} in the loop window; ${status.lifetimeContinues}/${status.lifetimeMaxContinues} since the last user message`,
  )
  lines.push(`Profile: ${status.profile}`)
  const fallback = status.fallback
  if (fallback) {
    lines.push(
      `Fallback model: ${fallback.model} since ${formatLocalTime(fallback.at)}, because ${fallback.why}; your next message goes back to ${fallback.userModel ?? "your model"}`,
    )
  }
  const wait = status.rateLimitWait
  if (wait) lines.push(`Waiting for the rate limit${wait.carriedOver ? " (carried over from a restart)" : ""} until ${formatLocalTime(wait.until)} (hit ${wait.rung})`)
  const last = status.lastRecovery
  lines.push(
    last
      ? `Last recovery: ${last.kind}, ${formatDuration(Math.max(0, now - last.at))} ago (${formatLocalTime(last.at)}), because ${last.reason}`
      : "Last recovery: none since the last user message",
  )
  return lines.join("\n")
}
