/** `/auto-resume [on|off|status|history|goal ...]`: argument parsing and every reply. Pure: the caller passes `now`. */
import { goalText, type GoalRecord } from "../core/goals.ts"
import type { SessionStatus } from "../core/status.ts"
import { formatDuration, formatLocalTime } from "../prompts/format.ts"
import { quotedGoal } from "../prompts/nudges.ts"

export const PAUSE_COMMAND_NAME = "auto-resume"
export const PAUSE_COMMAND_DESCRIPTION = "auto-resume for this session: off pauses it, on resumes it, status (default) reports it, history lists what it did, goal <text> keeps it going until the goal is met"
export const PAUSE_USAGE =
  "Usage: /auto-resume [on | off | status | history | goal [<text> | off]] (off pauses recovery of this session, on resumes it, status or nothing shows its state, history its last ten interventions; goal <text> keeps the session going until the goal is met, goal shows it, goal off clears it)"

export type PauseAction = "on" | "off" | "status" | "history"

/** `/auto-resume goal`: show the goal; `goal off`: clear it; `goal <text>`: set it. */
export type GoalCommand = { action: "goal"; goal: "show" } | { action: "goal"; goal: "off" } | { action: "goal"; goal: "set"; text: string }

export type ParsedPauseCommand = { action: PauseAction } | GoalCommand | { action: "usage"; reason: string }

const MAX_ECHO = 40

/** `goal`, `goal off` or `goal <text>` (the text as typed, not lower-cased), or undefined for any other command. */
export function parseGoalArguments(raw: string): GoalCommand | undefined {
  const m = /^goal(?:\s+([\s\S]*))?$/i.exec(raw.trim())
  if (!m) return undefined
  const text = goalText(m[1] ?? "")
  if (text === "") return { action: "goal", goal: "show" }
  if (text.toLowerCase() === "off") return { action: "goal", goal: "off" }
  return { action: "goal", goal: "set", text }
}

export function parsePauseArguments(raw: unknown): ParsedPauseCommand {
  const goal = typeof raw === "string" ? parseGoalArguments(raw) : undefined
  if (goal) return goal
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

/** A goal's budgets as they apply to the session. */
export type GoalLimits = { maxContinues: number; maxMs: number }

/** How the goal stands, on one line: what it is, and its continues and time, or how it ended. */
export function goalLine(goal: GoalRecord, limits: GoalLimits, now: number): string {
  const head = quotedGoal(goal.text, 200)
  if (goal.status === "active") {
    return `${head}: active since ${formatLocalTime(goal.setAt)}; continues ${goal.continues}/${limits.maxContinues}; ${formatDuration(Math.max(0, now - goal.setAt))} of ${formatDuration(limits.maxMs)}`
  }
  const why = goal.why ? ` (${goal.why})` : ""
  return `${head}: ${goal.status} at ${formatLocalTime(goal.endedAt ?? goal.setAt)} after ${goal.continues} ${goal.continues === 1 ? "continue" : "continues"}${why}`
}

/** What a goal command did, as the reply says it. */
export type GoalReplyInput = {
  command: GoalCommand
  /** The session's entry before and after the command. */
  before?: GoalRecord
  after?: GoalRecord
  limits: GoalLimits
  now: number
  memoryOnly?: string
  error?: string
}

export function goalReply(r: GoalReplyInput): string {
  const { command } = r
  if (r.error) return `auto-resume could not ${command.goal === "off" ? "clear" : "set"} the goal of this session: ${r.error}`
  const lines: string[] = []
  if (command.goal === "set") {
    lines.push(`auto-resume: goal set for this session: ${quotedGoal(command.text, 1000)}.`)
    if (r.before?.status === "active") lines.push(`It replaces the goal ${quotedGoal(r.before.text, 200)}.`)
    lines.push(
      `From the session's next finished turn on, each turn that does not meet it gets one continue (at most ${r.limits.maxContinues}, for up to ${formatDuration(r.limits.maxMs)}); it is met when the model calls task_complete with evidence. Two turns in a row without progress stand it down. /auto-resume goal shows it, /auto-resume goal off clears it.`,
    )
  } else if (command.goal === "off") {
    lines.push(r.before?.status === "active" ? `auto-resume: the goal ${quotedGoal(r.before.text, 200)} is cleared; nothing more is sent for it.` : "No goal was active for this session; nothing changed.")
  } else if (!r.after) {
    lines.push("No goal is set for this session. /auto-resume goal <text> sets one.")
  } else {
    lines.push(`auto-resume goal for this session: ${goalLine(r.after, r.limits, r.now)}`)
  }
  if (r.memoryOnly) lines.push(`(The goal file could not be written, so this holds for the current run only: ${r.memoryOnly})`)
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
  /** The session's goal, active or how it last ended, and its budgets; undefined where no goals are kept. */
  goal?: { record: GoalRecord | undefined; limits: GoalLimits }
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
  if (input.goal) lines.push(`Goal: ${input.goal.record ? goalLine(input.goal.record, input.goal.limits, now) : "none (/auto-resume goal <text> sets one)"}`)
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
  if (status.notice) lines.push(`Told you at ${formatLocalTime(status.notice.at)}: ${status.notice.message}`)
  const wait = status.rateLimitWait
  if (wait) lines.push(`Waiting for the rate limit${wait.carriedOver ? " (carried over from a restart)" : ""} until ${formatLocalTime(wait.until)} (hit ${wait.rung})`)
  if (status.heldBy) lines.push(`Held: ${status.heldBy}`)
  const last = status.lastRecovery
  lines.push(
    last
      ? `Last recovery: ${last.kind}, ${formatDuration(Math.max(0, now - last.at))} ago (${formatLocalTime(last.at)}), because ${last.reason}`
      : "Last recovery: none since the last user message",
  )
  return lines.join("\n")
}
