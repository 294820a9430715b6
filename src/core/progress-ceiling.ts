/**
 * The progress ceiling: a busy session that keeps sending events but makes no semantic
 * progress (no new text or reasoning, no tool state change, no step, no token growth) for
 * `progressCeilingMs` is stalled, however alive its heartbeats make it look. A runtime wedged
 * behind keep-alives re-arms every liveness deadline forever; this second stamp does not move.
 *
 * The events that kept such a session looking alive are counted per type, so the stall's log
 * line can say what they were. Counting is lazy: a progress event only moves the stamp, and the
 * counts start over on the first non-progress event after it.
 */
import type { Options } from "../options/index.ts"
import type { SessionState } from "./session-state.ts"

/** Distinct event types counted per session; the rest are counted together. */
const MAX_QUIET_TYPES = 8
const OTHER = "other"

/** Non-progress events since `progressAt` (the session's lastProgressAt when counting began), by type. */
export type QuietEvents = { progressAt: number; counts: Map<string, number> }

/** `progressCeilingMs` as set; unset means three stall budgets (watchdog.ts), 0 turns the ceiling off. */
export function progressCeilingMs(b: Pick<Options, "progressCeilingMs">, stallBudget: number): number {
  return b.progressCeilingMs ?? 3 * stallBudget
}

/**
 * Where the silence of progress is measured from: the last progress, or whatever later gave the
 * model a fresh start (the run beginning, the user's message, our own continue).
 */
export function progressBaseline(state: SessionState): number {
  return Math.max(state.lastProgressAt, state.busySince, state.lastGenuineUserAt, state.lastRecovery?.at ?? 0)
}

/** Counts one event that was liveness but no progress, for a busy session only. */
export function noteQuietEvent(state: SessionState, type: string): void {
  if (!state.busy) return
  let quiet = state.quietEvents
  if (quiet === undefined) quiet = state.quietEvents = { progressAt: state.lastProgressAt, counts: new Map() }
  else if (quiet.progressAt !== state.lastProgressAt) {
    quiet.counts.clear()
    quiet.progressAt = state.lastProgressAt
  }
  const counts = quiet.counts
  const key = counts.has(type) || counts.size < MAX_QUIET_TYPES - 1 ? type : OTHER
  counts.set(key, (counts.get(key) ?? 0) + 1)
}

/** "session.status x12, server.connected x1", most frequent first; "none" when nothing was counted. */
export function describeQuietEvents(state: SessionState): string {
  const quiet = state.quietEvents
  if (!quiet || quiet.progressAt !== state.lastProgressAt || quiet.counts.size === 0) return "none"
  return [...quiet.counts]
    .sort((a, b) => b[1] - a[1])
    .map(([type, n]) => `${type} x${n}`)
    .join(", ")
}

export type ProgressVerdict =
  /** The ceiling is off, or a tool is open (the tool phase has its own rules). */
  | { kind: "off" }
  | { kind: "progressing"; untilCeilingMs: number }
  | { kind: "no-progress"; sinceProgressMs: number }

export function assessProgress(state: SessionState, now: number, b: Pick<Options, "progressCeilingMs">, stallBudget: number): ProgressVerdict {
  const ceiling = progressCeilingMs(b, stallBudget)
  if (ceiling <= 0 || state.openTools.size > 0) return { kind: "off" }
  const since = Math.max(0, now - progressBaseline(state))
  return since >= ceiling ? { kind: "no-progress", sinceProgressMs: since } : { kind: "progressing", untilCeilingMs: ceiling - since }
}
