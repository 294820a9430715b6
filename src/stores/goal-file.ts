/**
 * The goal file: `auto-resume.goals.json` in the state folder (atomic-file.ts), one goal per
 * session, shared by every OpenCode process of the user and the toggle CLI. Read without a lock;
 * changed by a locked read-modify-write that replaces the file atomically. What an entry holds
 * and how the list stays bounded is decided in src/core/goals.ts; here is only the I/O.
 *
 * `FileGoals` is what a running plugin keeps: the file in memory, read again when it changed
 * (a stat, at most every `recheckMs`), so a goal set from a terminal is honoured within a check
 * interval. The plugin's own changes (a continue counted, a goal ended) show in memory at once
 * and are written in the background, in order. A file that cannot be read is read as empty with
 * one warning; nothing here throws into the engine.
 */
import type { TimeSource } from "../core/clock.ts"
import {
  boundedGoals,
  goalOfSession,
  goalsFileText,
  parseGoals,
  withGoalChange,
  withGoalCleared,
  withGoalSet,
  withoutSession,
  type Goal,
  type GoalChange,
  type GoalRecord,
  type GoalSetter,
  type GoalSource,
} from "../core/goals.ts"
import type { LogLevel } from "../core/port.ts"
import { AtomicFile, StateFileError, describe, errorMessage, orElse, stateFilePath, type AtomicFileOptions } from "./atomic-file.ts"

export const GOAL_FILE_NAME = "auto-resume.goals.json"
/** Far more than MAX_GOALS entries of the longest goals take; a bigger file is not ours. */
export const MAX_GOAL_FILE_BYTES = 512 * 1024

export function goalFilePath(env: Record<string, string | undefined>): string {
  return stateFilePath(GOAL_FILE_NAME, env)
}

export type GoalRead = { goals: GoalRecord[]; skipped: string[]; problem?: string }

/** A fresh goal id: unique enough per session (time and randomness), printable. */
export function newGoalID(wallNow: number): string {
  return `g${Math.max(0, Math.floor(wallNow)).toString(36)}${Math.random().toString(36).slice(2, 8)}`
}

export class GoalFile {
  private readonly file: AtomicFile
  private readonly now: () => number

  constructor(filePath: string, options: AtomicFileOptions = {}) {
    this.file = new AtomicFile(filePath, MAX_GOAL_FILE_BYTES, options)
    this.now = options.now ?? Date.now
  }

  get path(): string {
    return this.file.path
  }

  /** A cheap fingerprint of the file (AtomicFile.signature). Throws StateFileError. */
  signature(): string {
    return this.file.signature()
  }

  /** The goals in the file; never throws (a missing file is an empty list, anything wrong a `problem`). */
  read(): GoalRead {
    let text: string | undefined
    try {
      const read = this.file.read()
      if (read.problem !== undefined) return { goals: [], skipped: [], problem: read.problem }
      text = read.text
    } catch (error) {
      return { goals: [], skipped: [], problem: `it cannot be read: ${describe(error instanceof StateFileError && error.cause !== undefined ? error.cause : error)}` }
    }
    if (text === undefined || text.trim() === "") return { goals: [], skipped: [] }
    try {
      return parseGoals(JSON.parse(text))
    } catch (error) {
      return { goals: [], skipped: [], problem: `it is not a goal list (${errorMessage(error)})` }
    }
  }

  /** Read-modify-write under the lock; returns what was read (for its problem) and what was written. Throws StateFileError. */
  update(change: (goals: GoalRecord[]) => GoalRecord[]): Promise<{ before: GoalRead; after: GoalRecord[] }> {
    return this.file.locked(() => {
      const before = this.read()
      const after = boundedGoals(change(before.goals), this.now())
      // Nothing to keep and nothing there: no file is created for it.
      if (after.length === 0 && before.goals.length === 0 && before.problem === undefined && !this.file.exists()) return { before, after }
      this.file.replace(goalsFileText(after))
      return { before, after }
    })
  }
}

/** What a change asked by the user did: the session's entry before and after it. */
export type GoalOutcome =
  | { ok: true; before?: GoalRecord; after?: GoalRecord; /** Kept in memory only: the file could not be written. */ memoryOnly?: string }
  | { ok: false; error: string }

/** What `/auto-resume goal` needs of the goal store (FileGoals, or a fake in tests). */
export interface GoalControl {
  /** The session's entry as last read (wall-clock times), or undefined. */
  recordOf(sessionID: string): GoalRecord | undefined
  set(sessionID: string, text: string, by: GoalSetter): Promise<GoalOutcome>
  clear(sessionID: string, by: GoalSetter): Promise<GoalOutcome>
}

export type FileGoalsOptions = {
  file: GoalFile | string
  /** Minimum time between two stats of the file; pass the watchdog's checkIntervalMs. */
  recheckMs: number
  /** The engine's clock (`now`) and the wall (`wall`): the file holds wall time, the engine compares its own. */
  time: Pick<TimeSource, "now" | "wall">
  log: (level: LogLevel, message: string) => void
}

/** Timers may fire a little early; a check this close counts as due. */
const RECHECK_SLACK = 0.9

export class FileGoals implements GoalSource, GoalControl {
  private readonly file: GoalFile
  private goals: GoalRecord[] = []
  private signature: string | undefined
  private lastCheckAt = Number.NEGATIVE_INFINITY
  private queue: Promise<void> = Promise.resolve()
  /** Changes of ours not on disk yet: a read meanwhile would show the file without them. */
  private pendingWrites = 0
  private warned = false

  constructor(private readonly options: FileGoalsOptions) {
    this.file = typeof options.file === "string" ? new GoalFile(options.file, { now: () => this.wall() }) : options.file
  }

  get path(): string {
    return this.file.path
  }

  goalOf(sessionID: string): Goal | undefined {
    try {
      this.refresh()
      const record = goalOfSession(this.goals, sessionID)
      if (!record) return undefined
      const goal: Goal = { id: record.id, text: record.text, startedAt: this.engineTime(record.setAt), continues: record.continues, status: record.status }
      if (record.why !== undefined) goal.why = record.why
      return goal
    } catch {
      return undefined
    }
  }

  recordOf(sessionID: string): GoalRecord | undefined {
    this.refresh()
    return goalOfSession(this.goals, sessionID)
  }

  change(sessionID: string, change: GoalChange): void {
    this.edit(`record a change of the goal of session ${sessionID}`, (goals) => withGoalChange(goals, sessionID, change, this.wall()))
  }

  /** The session was deleted: its goal goes from the file. */
  forget(sessionID: string): void {
    if (!goalOfSession(this.goals, sessionID)) return
    this.edit(`remove the goal of deleted session ${sessionID}`, (goals) => withoutSession(goals, sessionID))
  }

  set(sessionID: string, text: string, by: GoalSetter): Promise<GoalOutcome> {
    const wall = this.wall()
    const id = newGoalID(wall)
    return this.userChange(sessionID, (goals) => withGoalSet(goals, sessionID, text, id, by, wall))
  }

  clear(sessionID: string, by: GoalSetter): Promise<GoalOutcome> {
    const why = by === "cli" ? "cleared by auto-resume-toggle" : "cleared by /auto-resume goal off"
    return this.userChange(sessionID, (goals) => withGoalCleared(goals, sessionID, why, this.wall()))
  }

  /** Every write queued so far has been tried (tests, and a stop that wants the file settled). */
  settled(): Promise<void> {
    return this.queue
  }

  /** Re-reads the file when it is due (or `force`) and changed, unless a change of ours is still on its way. Never throws. */
  refresh(force = false): void {
    const now = this.options.time.now()
    if (this.pendingWrites > 0) return
    if (!force && now - this.lastCheckAt < this.options.recheckMs * RECHECK_SLACK) return
    this.lastCheckAt = now
    try {
      const signature = this.file.signature()
      if (signature === this.signature) return
      const read = this.file.read()
      this.goals = read.goals
      this.signature = signature
      if (read.problem) this.warn(`goals: ${this.file.path} was read as empty: ${read.problem}`)
      for (const why of read.skipped.slice(0, 20)) this.log("debug", `goals: skipped an entry of ${this.file.path}: ${why}`)
    } catch (error) {
      this.warn(`goals: cannot read ${this.file.path}; no goals are known: ${errorMessage(error)}`)
      this.goals = []
    }
  }

  /** A change the user asked for: written now (awaited), the memory taking what the file holds after it. */
  private async userChange(sessionID: string, edit: (goals: GoalRecord[]) => GoalRecord[]): Promise<GoalOutcome> {
    this.refresh(true)
    const before = goalOfSession(this.goals, sessionID)
    try {
      await this.queue
      const { after } = await this.file.update(edit)
      this.goals = after
      this.signature = orElse(() => this.file.signature(), undefined)
      return { ok: true, before, after: goalOfSession(after, sessionID) }
    } catch (error) {
      const why = errorMessage(error)
      this.warn(`goals: cannot write ${this.file.path}: ${why}`)
      // Kept for this run all the same: the user's intent holds while the file cannot take it.
      this.goals = boundedGoals(edit(this.goals), this.wall())
      return { ok: true, before, after: goalOfSession(this.goals, sessionID), memoryOnly: why }
    }
  }

  /** A change of the plugin's own: in memory now, on disk in the background, in order. */
  private edit(what: string, edit: (goals: GoalRecord[]) => GoalRecord[]): void {
    try {
      this.goals = boundedGoals(edit(this.goals), this.wall())
    } catch (error) {
      this.log("debug", `goals: could not ${what}: ${errorMessage(error)}`)
      return
    }
    this.pendingWrites++
    this.queue = this.queue.then(async () => {
      try {
        const { after } = await this.file.update(edit)
        this.goals = after
        this.signature = orElse(() => this.file.signature(), undefined)
      } catch (error) {
        this.warn(`goals: could not ${what} in ${this.file.path}: ${errorMessage(error)}`)
      } finally {
        this.pendingWrites--
      }
    })
  }

  private wall(): number {
    return this.options.time.wall ? this.options.time.wall() : this.options.time.now()
  }

  /** Wall time `at` on the engine's clock (the production clock may run ahead of the wall). */
  private engineTime(at: number): number {
    return at + (this.options.time.now() - this.wall())
  }

  private warn(message: string): void {
    this.log(this.warned ? "debug" : "warn", message)
    this.warned = true
  }

  private log(level: LogLevel, message: string): void {
    orElse(() => this.options.log(level, message), undefined)
  }
}
