/**
 * Unattended hours (option `unattendedMaxMs`, off by default): a session that has run that long
 * since the user's last message gets no more continues of any kind until the user writes again.
 * Someone who leaves a session running overnight wants it to go on for a while, not for ever.
 *
 * This path only states the fact: once the time is up, `holds` says so, and mayAct weighs it
 * like any other path's hold (runtime/may-act.ts), so every recovery, correction and goal
 * continue is held by the one answer. It never acts on the session itself; when the limit is
 * reached it writes one log line and one line in the user's history, and `/auto-resume status`
 * shows the hold. The user writing again starts the count afresh.
 *
 * Since when: the user's last message as the session record has it; for a session the plugin
 * never saw the user write in (it loaded mid-run), from when it first saw the session, the
 * earliest moment it can vouch for. The path's one wake is the deadline; each run start looks
 * again, so a limit set or changed for the session's profile applies from its next run.
 */
import { formatDuration } from "../../prompts/format.ts"
import type { PathEffect, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"

export type UnattendedState = {
  /** When the time is up (the path's wake), counted from `since`; absent: the option is off, or no run seen yet. */
  deadline?: number
  since?: number
  /** The limit was reached at `deadline`: no continues until the user writes. */
  reached?: boolean
}

const OFF: UnattendedState = {}

const TRIGGER = "unattended hours"

export const unattendedPath: RecoveryPath<UnattendedState> = {
  name: "unattended",
  signals: ["userMessage", "busy"],
  initial: () => OFF,
  holds: (state) => (state.reached && state.deadline !== undefined && state.since !== undefined ? holdText(state.deadline - state.since) : undefined),
  // Reached, it waits on the user past the idle sweep; armed, its wake keeps the session.
  keeps: (state) => state.reached === true,
  restore(saved) {
    if (saved === null || typeof saved !== "object") return undefined
    const { deadline, since, reached } = saved as Record<string, unknown>
    if (typeof deadline !== "number" || typeof since !== "number" || !Number.isFinite(deadline) || !Number.isFinite(since)) return undefined
    return { deadline, since, reached: reached === true }
  },
  step(state, input, ctx) {
    switch (input.type) {
      case "signal": {
        const signal = input.signal
        // The user's word: the count starts over from it (the session record took it in first).
        if (signal.type === "userMessage") return signal.genuine ? arm(OFF, ctx) : undefined
        return signal.type === "busy" && !state.reached ? arm(state, ctx) : undefined
      }
      // A wake is spent once it comes: answered with the deadline again unless it is past.
      case "wake":
        return state.reached ? undefined : arm(OFF, ctx)
      case "adopted":
        return state.reached ? undefined : arm(state, ctx)
      default:
        return undefined
    }
  },
}

/** The deadline as the options and the session record put it now; reached when it is past. */
function arm(state: UnattendedState, ctx: StepContext): StepResult<UnattendedState> | undefined {
  const limit = ctx.options().unattendedMaxMs
  if (!(limit > 0)) return state === OFF ? undefined : { state: OFF, effects: [] }
  const session = ctx.session
  const since = session.lastGenuineUserAt > 0 ? session.lastGenuineUserAt : session.firstSeenAt
  const deadline = since + limit
  if (ctx.now < deadline) return state.deadline === deadline && state.since === since ? undefined : { state: { deadline, since }, effects: [], wakeAt: deadline }
  return { state: { deadline, since, reached: true }, effects: reachedEffects(session.id, ctx.now - since, limit) }
}

function reachedEffects(sessionID: string, unattendedMs: number, limit: number): PathEffect[] {
  const reason = holdText(limit)
  return [
    { kind: "log", level: "info", text: `session ${sessionID}: ${reason}` },
    {
      kind: "journal-refused",
      tag: { trigger: TRIGGER, evidence: `${formatDuration(unattendedMs)} since your last message` },
      action: "no more continues until you write",
      why: "stood down",
      reason: `unattendedMaxMs is ${formatDuration(limit)}`,
    },
  ]
}

function holdText(limit: number): string {
  return `unattended for ${formatDuration(limit)} since the user's last message (unattendedMaxMs): no continues until the user writes`
}
