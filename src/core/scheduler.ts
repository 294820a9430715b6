/**
 * The one timer of each session. Every wake a recovery path asks for (the stall deadline, the
 * failure chain's next step, a parent's subagent wait, the next look at a finished turn, the
 * pause between an abort and its continue) is an entry under its owner's name; the session has
 * one platform timer, armed for the earliest entry. When it fires, the holds (pause, ESC,
 * completion, an open question, the paths' holds) are worked out once and handed to every
 * entry that is due, in the order they were asked for.
 */
import type { CancelTimer, TimeSource } from "./clock.ts"
import type { SessionState } from "./session-state.ts"

export type Wake = {
  now: number
  /** Why the session must be left alone as the timer fired (mayAct's answer to `touch`), or undefined when it may be touched. */
  readonly hold: string | undefined
}

type Entry = { at: number; run: (wake: Wake) => void }
type Timers = { entries: Map<string, Entry>; at: number; cancel?: CancelTimer }

export class WakeScheduler {
  private readonly sessions = new Map<SessionState, Timers>()

  constructor(
    private readonly time: TimeSource,
    private readonly holdOf: (state: SessionState, now: number) => string | undefined,
    private readonly fault: (owner: string, error: unknown) => void,
  ) {}

  /** Wakes `owner` at `at`, replacing its earlier wake; `undefined` cancels it. */
  set(state: SessionState, owner: string, at: number | undefined, run: (wake: Wake) => void): void {
    let timers = this.sessions.get(state)
    if (!timers && at === undefined) return
    if (!timers) this.sessions.set(state, (timers = { entries: new Map(), at: Infinity }))
    // Re-inserted, so that wakes due together run in the order they were asked for.
    if (!timers.entries.delete(owner) && at === undefined) return
    if (at !== undefined) timers.entries.set(owner, { at, run })
    this.arm(state, timers)
  }

  /** When anything next wakes for this session, if anything asked to (the idle sweep keeps such a session). */
  next(state: SessionState): number | undefined {
    const timers = this.sessions.get(state)
    return timers && timers.entries.size > 0 ? timers.at : undefined
  }

  clear(state: SessionState): void {
    this.sessions.get(state)?.cancel?.()
    this.sessions.delete(state)
  }

  dispose(): void {
    for (const timers of this.sessions.values()) timers.cancel?.()
    this.sessions.clear()
  }

  private arm(state: SessionState, timers: Timers): void {
    let earliest = Infinity
    for (const entry of timers.entries.values()) earliest = Math.min(earliest, entry.at)
    if (earliest === timers.at && timers.cancel) return
    timers.cancel?.()
    timers.cancel = undefined
    timers.at = earliest
    if (earliest === Infinity) {
      this.sessions.delete(state)
      return
    }
    timers.cancel = this.time.schedule(Math.max(0, earliest - this.time.now()), () => this.fire(state, timers))
  }

  private fire(state: SessionState, timers: Timers): void {
    timers.cancel = undefined
    timers.at = Infinity
    const now = this.time.now()
    const due = [...timers.entries].filter(([, entry]) => entry.at <= now)
    for (const [owner] of due) timers.entries.delete(owner)
    if (this.sessions.get(state) === timers) this.arm(state, timers)
    if (due.length === 0) return
    const wake: Wake = { now, hold: this.holdOf(state, now) }
    for (const [owner, entry] of due) {
      try {
        entry.run(wake)
      } catch (error) {
        this.fault(owner, error)
      }
    }
  }
}
