/**
 * What the user is told at once, beside the history, because nobody may be reading it: the
 * plugin gave up on a session, a fallback model took over from theirs, or a recovery is held
 * because the session waits on their answer while nobody answers. Never an ordinary recovery.
 *
 * The journal book (journal-book.ts) hands this every entry as it is made, whichever path made
 * it: the one place that knows. It decides whether the entry is one of those events, tells each
 * at most once per session and event, keeps the last for the status, and hands the toast (data)
 * to the port, bounded in time. Only the 1.x port shows one (`tui.showToast`, a no-op without a
 * terminal UI); 2.x has no toast API, and there the history and the status say it (declared
 * inert there, options/inert.ts).
 */
import type { EngineContext } from "./context.ts"
import { withTimeout } from "./host-calls.ts"
import type { JournalEntry, JournalOutcome } from "./journal.ts"
import { errorText } from "./logger.ts"
import type { Toast } from "./port.ts"
import type { SessionState } from "./session-state.ts"
import { BoundedMap } from "./bounded.ts"
import { AWAITING_USER } from "../runtime/may-act.ts"

type NoticeKind = "gave up" | "fallback" | "waits on the user"

/** The last notice of a session, for its status. */
export type Notice = { kind: NoticeKind; message: string; at: number }

/** An entry as the book has it when it is made: an action (`acted`, its outcome still to come) or settled at once. */
type Made = Pick<JournalEntry, "trigger" | "evidence" | "action" | "note">

/** How long a toast stays up. */
const TOAST_DURATION_MS = 10_000
/** A toast's call is bounded by this, or the session's sendTimeoutMs when shorter. */
const TOAST_CALL_MS = 5_000
/** Sessions whose notices are remembered; the oldest is forgotten first (the table drops sessions anyway). */
const MAX_SESSIONS = 1024
/** Events told per session since the user's last message; fallbacks are the only kind that repeats (one per model). */
const MAX_TOLD_PER_SESSION = 16
const MAX_MESSAGE = 300

/** The history's trigger for a fallback model taking over (paths/provider-failures/fallback-switch.ts). */
const FALLBACK_TRIGGER = "fallback"
/** The model a fallback's action names ("model switch to <model> + continue"). */
const FALLBACK_MODEL = /^model switch to (\S+)/

/** Which event an entry is, and its identity within the user's turn; undefined: an ordinary one. */
function noticeOf(entry: Made, outcome: JournalOutcome | "acted"): { kind: NoticeKind; key: string } | undefined {
  if (outcome === "gave up") return { kind: "gave up", key: "gave up" }
  if (outcome === "acted" && entry.trigger === FALLBACK_TRIGGER) return { kind: "fallback", key: `fallback|${entry.action}` }
  if (outcome === "held" && entry.note !== undefined && entry.note.endsWith(AWAITING_USER)) return { kind: "waits on the user", key: "waits" }
  return undefined
}

/** The toast's text: the session, what happened, and what the user can do. */
function noticeText(kind: NoticeKind, sessionID: string, entry: Made, returnsByItself: boolean): string {
  const why = entry.note ?? entry.evidence
  const text =
    kind === "gave up"
      ? `auto-resume gave up on session ${sessionID} (${entry.trigger}: ${why}). Nothing more is sent until you write.`
      : kind === "fallback"
        ? `auto-resume switched session ${sessionID} to ${FALLBACK_MODEL.exec(entry.action)?.[1] ?? "a fallback model"} (${entry.evidence}). ${returnsByItself ? "It goes back to your own model once that model's wait is over, or as soon as you write." : "Your next message goes back to your own model."}`
        : `Session ${sessionID} waits for your answer (a question or permission is open): auto-resume holds its ${entry.action} until you answer.`
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text
}

export class Notices {
  /** Per session: the user's turn the events belong to (their last message), the events told, the last notice. */
  private readonly sessions = new BoundedMap<string, { era: number; told: Set<string>; last?: Notice }>(MAX_SESSIONS)

  constructor(private readonly context: () => EngineContext) {}

  /** An entry the book made for the session (`acted`: an action whose outcome is still to come). Never throws. */
  heard(state: SessionState, entry: Made, outcome: JournalOutcome | "acted"): void {
    const notice = noticeOf(entry, outcome)
    if (!notice) return
    const ctx = this.context()
    // A new message of the user starts afresh: what was told before concerned their last turn.
    const era = state.lastGenuineUserAt
    let kept = this.sessions.get(state.id)
    if (!kept || kept.era !== era) this.sessions.set(state.id, (kept = { era, told: new Set() }))
    // A question that opens in a later run is a new wait; the run is part of its identity.
    const key = notice.kind === "waits on the user" ? `${notice.key}|${state.runEpoch}` : notice.key
    if (kept.told.has(key) || kept.told.size >= MAX_TOLD_PER_SESSION) return
    kept.told.add(key)
    // fallbackReturnToModel: the session goes back by itself after the wait, not only when the user writes.
    const message = noticeText(notice.kind, state.id, entry, ctx.effective(state).fallbackReturnToModel)
    kept.last = { kind: notice.kind, message, at: ctx.time.now() }
    ctx.logger.log("debug", `session ${state.id}: told the user: ${message}`)
    this.show(state, { title: "auto-resume", message, variant: "warning", durationMs: TOAST_DURATION_MS })
  }

  /** The session's last notice since the user's last message, for its status. */
  last(state: SessionState): Notice | undefined {
    const kept = this.sessions.get(state.id)
    return kept && kept.era === state.lastGenuineUserAt ? kept.last : undefined
  }

  forget(state: SessionState): void {
    this.sessions.delete(state.id)
  }

  private show(state: SessionState, toast: Toast): void {
    const ctx = this.context()
    const port = ctx.port
    if (!port.toast) return
    const ms = Math.min(TOAST_CALL_MS, ctx.effective(state).sendTimeoutMs)
    void withTimeout(ctx.time, ms, "toast", () => port.toast!(toast)).catch((error: unknown) => {
      ctx.logger.log("debug", `session ${state.id}: the toast was not shown: ${errorText(error)}`)
    })
  }
}
