/**
 * Deadlines for a busy session, as pure functions of its state and the time.
 *
 * Two budgets, because a silent stream and a silent tool are different things:
 *  - idle phase (no tool open): silence longer than `chunkTimeoutMs + gracePeriodMs` is a stall;
 *  - tool phase (a tool call open): the session is never touched for silence. A tool with no
 *    result older than `stuckToolAgeMs` is reported as stuck (logged, shown in status), and only
 *    a tool past the wedged ceiling (30 min) stops protecting the session. Tools named in
 *    `neverInterruptTools` are not even reported as stuck until that ceiling.
 * And a ceiling on progress (progress-ceiling.ts): with no tool open, events that keep coming
 * without any progress for `progressCeilingMs` are a stall too ("no-progress").
 */
import { TOOL_WEDGED_CEILING_MS, type Options } from "../options/index.ts"
import type { SessionState } from "./session-state.ts"
import { assessProgress } from "./progress-ceiling.ts"

export type WatchdogBudgets = Pick<
  Options,
  "chunkTimeoutMs" | "gracePeriodMs" | "stuckToolAgeMs" | "neverInterruptTools" | "checkIntervalMs" | "progressCeilingMs"
>

export type InFlightTool = { callID: string; tool: string; ageMs: number; stuck: boolean }

export type Assessment =
  /** Not silent long enough yet: look again when the budget would run out. */
  | { kind: "quiet"; recheckInMs: number }
  /** Silent, but a tool is running: never interrupted; look again later. */
  | { kind: "tool-phase"; silentMs: number; oldest: InFlightTool; recheckInMs: number }
  | { kind: "stalled"; phase: "idle" | "tool-wedged"; silentMs: number; tool?: InFlightTool }
  /** Events keep coming, but none of them progress: `sinceProgressMs` without any. */
  | { kind: "stalled"; phase: "no-progress"; silentMs: number; sinceProgressMs: number; tool?: undefined }

export function stallBudgetMs(b: Pick<WatchdogBudgets, "chunkTimeoutMs" | "gracePeriodMs">): number {
  return b.chunkTimeoutMs + b.gracePeriodMs
}

function isNeverInterrupt(tool: string, names: readonly string[]): boolean {
  const lower = tool.toLowerCase()
  return names.some((n) => n.toLowerCase() === lower)
}

export function oldestOpenTool(state: SessionState, now: number, b: WatchdogBudgets): InFlightTool | undefined {
  let oldest: InFlightTool | undefined
  for (const [callID, open] of state.openTools) {
    const ageMs = Math.max(0, now - open.startedAt)
    if (oldest && ageMs <= oldest.ageMs) continue
    const stuckAfter = isNeverInterrupt(open.tool, b.neverInterruptTools) ? TOOL_WEDGED_CEILING_MS : b.stuckToolAgeMs
    oldest = { callID, tool: open.tool, ageMs, stuck: ageMs >= stuckAfter }
  }
  return oldest
}

export function assessBusySession(state: SessionState, now: number, b: WatchdogBudgets): Assessment {
  const budget = stallBudgetMs(b)
  // A retry the host has scheduled is its own wait: the silence counts from when it is due.
  if (state.hostRetryAt !== undefined && now < state.hostRetryAt) return { kind: "quiet", recheckInMs: state.hostRetryAt - now + budget }
  const silentMs = Math.max(0, now - Math.max(state.lastActivityAt, state.hostRetryAt ?? 0))
  if (silentMs < budget) {
    const progress = assessProgress(state, now, b, budget)
    if (progress.kind === "no-progress") return { kind: "stalled", phase: "no-progress", silentMs, sinceProgressMs: progress.sinceProgressMs }
    const recheck = progress.kind === "progressing" ? Math.min(budget - silentMs, progress.untilCeilingMs) : budget - silentMs
    return { kind: "quiet", recheckInMs: recheck }
  }

  const oldest = oldestOpenTool(state, now, b)
  if (!oldest) return { kind: "stalled", phase: "idle", silentMs }

  // The youngest open tool decides: one healthy tool is enough to protect the session.
  let youngestAge = Infinity
  for (const open of state.openTools.values()) youngestAge = Math.min(youngestAge, now - open.startedAt)
  if (youngestAge >= TOOL_WEDGED_CEILING_MS) return { kind: "stalled", phase: "tool-wedged", silentMs, tool: oldest }

  const untilWedged = TOOL_WEDGED_CEILING_MS - youngestAge
  return { kind: "tool-phase", silentMs, oldest, recheckInMs: Math.max(1, Math.min(b.checkIntervalMs, untilWedged)) }
}
