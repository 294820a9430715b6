/**
 * A goal a session is kept going toward (`/auto-resume goal <text>`): what the goal file holds,
 * the few changes it takes, and how the list stays bounded. Pure: the file itself is read and
 * written in src/stores/goal-file.ts; what a goal makes the plugin do is the goal path's
 * (src/paths/goal/).
 *
 * A goal is one entry per session. It is active until it is met (task_complete with evidence),
 * stood down (its budget or time is spent, or the model makes no progress) or cleared (by the
 * user, or because the session was deleted). An ended goal stays in the file for a day so that
 * `/auto-resume goal` can say how the last one ended; a newer goal for the session replaces it.
 */

export type GoalStatus = "active" | "met" | "stood down" | "cleared"

export const GOAL_STATUSES: readonly GoalStatus[] = ["active", "met", "stood down", "cleared"]

/** Who set the goal: the slash command in the session, or auto-resume-toggle from outside. */
export type GoalSetter = "command" | "cli"

/** One entry of the goal file; times are wall-clock epoch milliseconds (the file is shared). */
export type GoalRecord = {
  sessionID: string
  /** Unique per goal set: a change aimed at an older goal of the session never lands on a newer one. */
  id: string
  text: string
  setAt: number
  by: GoalSetter
  /** Continues of this goal that reached the session. */
  continues: number
  status: GoalStatus
  endedAt?: number
  /** Why it ended, in a few words (the history's note). */
  why?: string
}

/** The session's goal as the engine reads it: `startedAt` on the engine's clock. */
export type Goal = {
  id: string
  text: string
  startedAt: number
  continues: number
  status: GoalStatus
  why?: string
}

/** What the plugin changes of a goal once it was set. */
export type GoalChange =
  /** A continue of the goal reached the session: `continues` is the count now. */
  | { kind: "continued"; goalID: string; continues: number }
  /** The goal is over. */
  | { kind: "ended"; goalID: string; status: Exclude<GoalStatus, "active">; why: string }

/** Where the engine reads a session's goal and records what happened to it (stores/goal-file.ts). */
export interface GoalSource {
  /** The session's goal, active or how it last ended; undefined when it has none. Never throws. */
  goalOf(sessionID: string): Goal | undefined
  /** Records a change, in the background; the next `goalOf` already shows it. Never throws. */
  change(sessionID: string, change: GoalChange): void
}

/** Longest goal kept, in characters: a goal is a sentence or two, restated in every continue. */
export const MAX_GOAL_TEXT = 1000
/** Entries kept at most; past it the ended ones go first, oldest first. */
export const MAX_GOALS = 200
/** An ended goal is dropped this long after it ended. */
export const ENDED_GOAL_KEPT_MS = 86_400_000

/** The goal as it is kept: whitespace runs (newlines too) made one space, control characters dropped, capped. */
export function goalText(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = raw.slice(0, MAX_GOAL_TEXT * 4).replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, " ").trim()
  return flat.length > MAX_GOAL_TEXT ? flat.slice(0, MAX_GOAL_TEXT).trimEnd() : flat
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0
const isText = (v: unknown, max: number): v is string => typeof v === "string" && v.trim() !== "" && v.length <= max

/** One entry of the file, or why it is not one. */
export function goalRecordOf(v: unknown): GoalRecord | string {
  if (!isObj(v)) return "not an object"
  if (!isText(v.sessionID, 200)) return "no session id"
  if (!isText(v.id, 100)) return `session ${v.sessionID}: no goal id`
  if (!isText(v.text, MAX_GOAL_TEXT)) return `session ${v.sessionID}: no goal text`
  if (!isTime(v.setAt)) return `session ${v.sessionID}: no time it was set`
  if (!GOAL_STATUSES.includes(v.status as GoalStatus)) return `session ${v.sessionID}: no known status`
  const continues = typeof v.continues === "number" && Number.isSafeInteger(v.continues) && v.continues >= 0 ? v.continues : 0
  const record: GoalRecord = { sessionID: v.sessionID, id: v.id, text: v.text, setAt: v.setAt, by: v.by === "cli" ? "cli" : "command", continues, status: v.status as GoalStatus }
  if (record.status !== "active") {
    record.endedAt = isTime(v.endedAt) ? v.endedAt : record.setAt
    if (isText(v.why, 200)) record.why = v.why
  }
  return record
}

export type ParsedGoals = { goals: GoalRecord[]; skipped: string[] }

/** The file's parsed JSON: `{ version: 1, goals: [...] }`. Anything else throws; a malformed entry is skipped and named. */
export function parseGoals(data: unknown): ParsedGoals {
  if (!isObj(data) || !Array.isArray(data.goals)) throw new Error("it holds no list of goals")
  if (data.version !== 1) throw new Error(`it is of version ${String(data.version)}, not 1`)
  const goals: GoalRecord[] = []
  const skipped: string[] = []
  const seen = new Set<string>()
  for (const entry of data.goals.slice(0, MAX_GOALS * 2)) {
    const goal = goalRecordOf(entry)
    if (typeof goal === "string") skipped.push(goal)
    else if (seen.has(goal.sessionID)) skipped.push(`session ${goal.sessionID}: a second goal`)
    else {
      seen.add(goal.sessionID)
      goals.push(goal)
    }
  }
  return { goals, skipped }
}

export function goalsFileText(goals: readonly GoalRecord[]): string {
  return `${JSON.stringify({ version: 1, goals })}\n`
}

/** At most MAX_GOALS entries, ended ones older than a day dropped; the ended ones go first, oldest first. */
export function boundedGoals(goals: readonly GoalRecord[], wallNow: number): GoalRecord[] {
  const kept = goals.filter((g) => g.status === "active" || wallNow - (g.endedAt ?? g.setAt) < ENDED_GOAL_KEPT_MS)
  if (kept.length <= MAX_GOALS) return kept
  const order = [...kept].sort((a, b) => rank(a) - rank(b))
  const dropped = new Set(order.slice(0, kept.length - MAX_GOALS))
  return kept.filter((g) => !dropped.has(g))
}

/** Which entries go first when the list is full: ended before active, older before newer. */
function rank(g: GoalRecord): number {
  return (g.status === "active" ? 1e15 : 0) + (g.endedAt ?? g.setAt)
}

export function goalOfSession(goals: readonly GoalRecord[], sessionID: string): GoalRecord | undefined {
  return goals.find((g) => g.sessionID === sessionID)
}

/** The list with the session's goal set to `text` (a new goal: a new id, no continues), replacing whatever it had. */
export function withGoalSet(goals: readonly GoalRecord[], sessionID: string, text: string, id: string, by: GoalSetter, wallNow: number): GoalRecord[] {
  const goal: GoalRecord = { sessionID, id, text, setAt: wallNow, by, continues: 0, status: "active" }
  return [...goals.filter((g) => g.sessionID !== sessionID), goal]
}

/** The list with the session's active goal cleared (`why`: by whom); unchanged when it has none. */
export function withGoalCleared(goals: readonly GoalRecord[], sessionID: string, why: string, wallNow: number): GoalRecord[] {
  return goals.map((g) => (g.sessionID === sessionID && g.status === "active" ? { ...g, status: "cleared", endedAt: wallNow, why } : g))
}

/** The list without any entry of the session (it was deleted: nothing of it is kept). */
export function withoutSession(goals: readonly GoalRecord[], sessionID: string): GoalRecord[] {
  return goals.filter((g) => g.sessionID !== sessionID)
}

/** The change applied, when it is aimed at the session's goal as it is now (its id) and that goal is still active. */
export function withGoalChange(goals: readonly GoalRecord[], sessionID: string, change: GoalChange, wallNow: number): GoalRecord[] {
  return goals.map((g) => {
    if (g.sessionID !== sessionID || g.id !== change.goalID || g.status !== "active") return g
    if (change.kind === "continued") return { ...g, continues: Math.max(g.continues, change.continues) }
    return { ...g, status: change.status, endedAt: wallNow, why: change.why.slice(0, 200) }
  })
}
