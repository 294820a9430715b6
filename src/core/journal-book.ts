/**
 * Keeps the journal (journal.ts) as interventions happen. An action's outcome is known only
 * later: the book holds the action until the session answers it with output (revived) or the
 * path's window passes without any (no effect), and only then hands the whole entry to the port.
 * A refusal (held) or a spent budget (gave up) is settled at once, once per run and reason, so a
 * guard asked again on every check does not fill the history.
 *
 * Nothing here runs on the streaming path: whether output came is read from the session's
 * output stamp when the book looks (one wake per pending action and check interval).
 */
import type { EngineContext } from "./context.ts"
import { cappedEntry, type JournalEntry, type JournalOutcome, type JournalTag } from "./journal.ts"
import { errorText } from "./logger.ts"
import type { SessionState } from "./session-state.ts"
import { stallBudgetMs } from "./watchdog.ts"

/** The book's wake on the session's one timer. */
const WAKE = "journal"
/** Sessions whose last refusal is remembered (it is forgotten with the session anyway). */
const MAX_REMEMBERED_REFUSALS = 1024

/** `since`: output stamped from then on answers the action (its host call began then). */
type Pending = { entry: Omit<JournalEntry, "outcome">; since: number; deadline: number; state: SessionState }

export class JournalBook {
  private readonly pending = new Map<string, Pending>()
  private readonly lastRefusal = new Map<string, string>()

  /** `listener`: told of every entry as it is made (`acted`: its outcome is still to come); the notices (notices.ts) hear here. */
  constructor(
    private readonly context: () => EngineContext,
    private readonly listener?: (state: SessionState, entry: Omit<JournalEntry, "outcome" | "time" | "sessionID">, outcome: JournalOutcome | "acted") => void,
  ) {}

  /**
   * An action reached the host: settled once the session answers or the window passes. `since`:
   * when its host call began (a host may answer a prompt before the call returns); default now.
   */
  acted(state: SessionState, tag: JournalTag, action: string, since?: number): void {
    const ctx = this.context()
    this.settle(state.id)
    this.lastRefusal.delete(state.id)
    const now = ctx.time.now()
    const windowMs = tag.windowMs ?? stallBudgetMs(ctx.effective(state))
    const entry = { ...this.base(state, tag), action: tag.action ?? action }
    this.tell(state, entry, "acted")
    this.pending.set(state.id, { entry, since: Math.min(now, since ?? now), deadline: now + Math.max(0, windowMs), state })
    this.look(state)
  }

  /** The action was refused by a guard (`why`), or the host refused it: settled now. */
  refused(state: SessionState, tag: JournalTag, action: string, outcome: Exclude<JournalOutcome, "revived">, why: string): void {
    // Asked again on every check while the guard stands: one entry per run, trigger and reason.
    const key = `${state.runEpoch}|${tag.trigger}|${outcome}|${why}`
    if (this.lastRefusal.get(state.id) === key) return
    if (this.lastRefusal.size >= MAX_REMEMBERED_REFUSALS) this.lastRefusal.clear()
    this.lastRefusal.set(state.id, key)
    const note = [tag.note, why].filter(Boolean).join("; ")
    const entry = { ...this.base(state, tag), action: tag.action ?? action, note: note || undefined }
    this.tell(state, entry, outcome)
    this.emit({ ...entry, outcome })
  }

  private tell(state: SessionState, entry: Omit<JournalEntry, "outcome">, outcome: JournalOutcome | "acted"): void {
    try {
      this.listener?.(state, entry, outcome)
    } catch (error) {
      this.context().logger.fault("journal", `the listener of session ${state.id}'s history failed: ${errorText(error)}`)
    }
  }

  /** The session leaves the table: what it answered so far decides. */
  forget(state: SessionState): void {
    this.settle(state.id, "settled early: the session left the plugin's table")
    this.lastRefusal.delete(state.id)
  }

  /** The engine stops: every pending action is settled on what is known now. */
  flush(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, "settled early: the plugin stopped")
  }

  private base(state: SessionState, tag: JournalTag): Omit<JournalEntry, "action" | "outcome"> {
    const time = this.context().time
    const entry: Omit<JournalEntry, "action" | "outcome"> = { time: time.wall?.() ?? time.now(), sessionID: state.id, trigger: tag.trigger, evidence: tag.evidence }
    if (tag.note) entry.note = tag.note
    return entry
  }

  /** Looks again each check interval until output came or the window is over. */
  private look(state: SessionState): void {
    const ctx = this.context()
    const p = this.pending.get(state.id)
    if (!p || p.state !== state) return
    const now = ctx.time.now()
    if (this.revived(p) || now >= p.deadline) {
      this.settle(state.id)
      return
    }
    const next = Math.min(p.deadline, now + Math.max(1000, ctx.effective(state).checkIntervalMs))
    ctx.wake(state, WAKE, next, () => this.look(state))
  }

  private revived(p: Pending): boolean {
    return p.state.lastModelOutputAt >= p.since
  }

  /** The window is over, the session is gone, or a newer action of ours supersedes this one. */
  private settle(sessionID: string, early?: string): void {
    const p = this.pending.get(sessionID)
    if (!p) return
    this.pending.delete(sessionID)
    if (!p.state.dropped) this.context().wake(p.state, WAKE, undefined, () => undefined)
    const revived = this.revived(p)
    // An early verdict matters only when it is "no effect": the window might still have brought output.
    const note = !revived && early && this.context().time.now() < p.deadline ? [p.entry.note, early].filter(Boolean).join("; ") : p.entry.note
    this.emit({ ...p.entry, outcome: revived ? "revived" : "no effect", ...(note ? { note } : {}) })
  }

  private emit(entry: JournalEntry): void {
    const ctx = this.context()
    try {
      ctx.port.journal?.(cappedEntry(entry))
    } catch (error) {
      ctx.logger.fault("journal", `the history entry for session ${entry.sessionID} could not be handed over: ${errorText(error)}`)
    }
  }
}
