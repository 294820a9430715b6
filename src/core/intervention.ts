/**
 * One record per session of what the plugin itself has in flight: the host call out, a recovery
 * under way, our last prompt (called, accepted, overdue, shown) and our last abort until its
 * interruption is accounted for. It answers what of ours holds an act back (a fact of mayAct's,
 * runtime/may-act.ts), and whether an interruption was ours. No clock, no I/O: transitions take `now`.
 *
 * Our abort and the user's ESC reach the core as the same `interrupted`, so the evidence is a
 * count: an abort the host accepts ends one run, reported as one interruption, usually just
 * before the call returns; one the count cannot account for is the user's. In doubt the user
 * wins: an echo taken for ESC costs one recovery, an ESC taken for an echo talks over the user.
 */
import { ECHO_GRACE_MS } from "../options/constants.ts"
import type { OpenTool } from "./session-state.ts"

/** How long before answering an abort the host may report it (1.18: a few ms; the margin is for load). */
export const ABORT_REPORT_SKEW_MS = 1_000


/** However short the stall budget, a host gets this long to carry out or report a call of ours. */
export const MIN_LATE_LANDING_HOLD_MS = 60_000

/**
 * How long a call of ours that may still take effect (an abort accepted but not reported, a call
 * answered past sendTimeoutMs) holds back the next: two stall budgets (the host may be late by
 * one), at least a minute. Past it the call is presumed lost: a host that lost one cannot leave
 * a session without recovery for good.
 */
export function lateLandingHoldMs(stallBudgetMs: number): number {
  return Math.max(MIN_LATE_LANDING_HOLD_MS, 2 * stallBudgetMs)
}

/** How a host call went; "busy": not made, another call of the session was out. */
export type CallOutcome = "ok" | "failed" | "timeout" | "busy"

/**
 * One host call at a time per session. An object of its own: a session dropped while its call
 * is out hands it to the state a later event creates for the id (session-table.ts).
 */
export type CallSlot = { busy: boolean }

/** Our latest abort until its interruption is accounted for; `overdue`: timed out, may still land. */
export type OwnAbort = { phase: "calling" | "accepted" | "overdue"; until: number; interruptedAt?: number; holdUntil?: number; settledAt?: number }

/** Our prompts: the last call, the last one accepted (the send spacing counts from it), the last sighting, the last timed out. */
export type OwnPrompt = { calledAt?: number; acceptedAt?: number; shownAt?: number; overdueCalledAt?: number; overdueUntil?: number }

export type Intervention = {
  call: CallSlot
  /** A recovery under way (a backoff, a question to the host, an abort and the pause after it). */
  underWay?: UnderWay
  prompt: OwnPrompt
  abort?: OwnAbort
  /** Idle nudges sent since the last run began: never the same one twice without a turn between. */
  sentThisTurn: ReadonlySet<string>
}

/** Shared by every record that sent no nudge this turn (most of them): written only through markSent. */
const NONE_SENT: ReadonlySet<string> = new Set()

export function newIntervention(): Intervention {
  return { call: { busy: false }, underWay: undefined, prompt: {}, abort: undefined, sentThisTurn: NONE_SENT }
}

/** `feature` was sent this turn: the record's own set, made on the first one. */
export function markSent(rec: Intervention, feature: string): void {
  if (rec.sentThisTurn === NONE_SENT) rec.sentThisTurn = new Set([feature])
  else (rec.sentThisTurn as Set<string>).add(feature)
}

/**
 * What of ours holds an act back (a fact runtime/may-act.ts weighs; the answer is mayAct's):
 * for a `prompt`, one of ours still on its way (the same recovery would land right behind it);
 * for an `abort`, one of ours accepted or overdue and not reported (a second hits a run that is
 * over); for a `recovery`, one under way; for the stall `ladder`, anything under way, a call out,
 * or an abort landing.
 */
export type OwnAct = "prompt" | "abort" | "recovery" | "ladder"

/** Why not now, and until when (undefined: look again later). */
export type OwnHold = { reason: string; until?: number }

const UNDER_WAY: OwnHold = { reason: "a recovery is already under way" }

export function ownHold(rec: Intervention, now: number, act: OwnAct): OwnHold | undefined {
  if (act === "prompt") {
    const until = promptLandingUntil(rec.prompt, now)
    return until === undefined ? undefined : { reason: "a prompt of ours may still land", until }
  }
  if (act === "recovery") return rec.underWay ? UNDER_WAY : undefined
  if (act === "ladder" && inFlight(rec)) return UNDER_WAY
  return abortLanding(rec, now) ? { reason: "our abort is not reported by the host yet", until: rec.abort?.holdUntil } : undefined
}

/**
 * Until when a prompt of ours may still be on its way: the last one the host accepted, for the
 * echo grace, and the last one whose call timed out, for its hold. Each counts until a sighting
 * at or after its call started (the host may show a prompt before it answers); the later wins.
 */
function promptLandingUntil(p: OwnPrompt, now: number): number | undefined {
  const shownAt = p.shownAt ?? -Infinity
  const unseen = (calledAt: number | undefined): calledAt is number => calledAt !== undefined && shownAt < calledAt
  let until: number | undefined
  if (p.overdueUntil !== undefined && now < p.overdueUntil && unseen(p.overdueCalledAt)) until = p.overdueUntil
  // Accepted: the last call is the one the host answered (a refused or pending one is not).
  if (p.acceptedAt !== undefined && unseen(p.calledAt) && p.acceptedAt >= p.calledAt) {
    const graceEnd = p.acceptedAt + ECHO_GRACE_MS
    if (now < graceEnd) until = Math.max(until ?? graceEnd, graceEnd)
  }
  return until
}

/**
 * An abort of ours was accepted (or may still land) and the host has shown nothing since. Past
 * the hold given when it settled the report is presumed lost and the abort forgotten.
 */
function abortLanding(rec: Intervention, now: number): boolean {
  const own = rec.abort
  if (own === undefined || own.phase === "calling") return false
  if (own.holdUntil !== undefined && now > own.holdUntil) {
    rec.abort = undefined
    return false
  }
  return true
}

/** A recovery under way, or a host call out (the table never sweeps such a session). */
export const inFlight = (rec: Intervention): boolean => rec.underWay !== undefined || rec.call.busy

/**
 * `cancelled` once the user, ESC or a newer recovery ended it; `cancel` stops its timer (none
 * while a call of it is out). `runEndedAt`: when the host last showed the run over while this
 * recovery was under way (an idle), and `onRunEnded` the step that waited for it (the continue
 * after our abort goes out then, not after a fixed pause).
 */
export type UnderWay = { cancelled: boolean; cancel?: () => void; runEndedAt?: number; onRunEnded?: () => void }

export function holdRecovery(rec: Intervention, cancel?: () => void): UnderWay {
  return (rec.underWay = { cancelled: false, cancel })
}

/** The recovery under way is over; with `mine`, only if it is still that one. */
export function endRecovery(rec: Intervention, mine?: UnderWay): void {
  if (mine === undefined || rec.underWay === mine) rec.underWay = undefined
}

export function cancelRecovery(rec: Intervention): void {
  const underWay = rec.underWay
  if (underWay) underWay.cancelled = true
  underWay?.cancel?.()
  rec.underWay = undefined
}

export type Event =
  | { type: "promptCalling" }
  | { type: "promptSettled"; outcome: CallOutcome; holdUntil: number }
  | { type: "ownPromptShown" }
  | { type: "abortCalling"; until: number }
  /** The session moved on (a run began or ended, the model or a tool spoke): stop awaiting. */
  | { type: "runMovedOn" }
  /** The host shows the session's run over (idle): a recovery under way that waits for it goes on. */
  | { type: "runEnded" }
  /** The user wrote: an interruption from now on ends the user's own turn. */
  | { type: "userTookOver" }
  | { type: "runStarted" }
  | { type: "nudgeSent"; feature: string }

/** Every transition but those that answer a question (`abortSettled`, `interruptionWasOurs`). */
export function note(rec: Intervention, event: Event, now: number): void {
  switch (event.type) {
    case "promptCalling":
      rec.prompt.calledAt = now
      return
    case "promptSettled":
      if (event.outcome === "ok") rec.prompt.acceptedAt = now
      else if (event.outcome === "timeout") {
        rec.prompt.overdueCalledAt = rec.prompt.calledAt
        rec.prompt.overdueUntil = event.holdUntil
      }
      return
    case "ownPromptShown": {
      // A prompt that went out after our abort was answered (the continue that follows it) shows
      // the aborted run is over: a later interruption is the user's ESC, no late report of it. One
      // sent before the abort proves nothing (it may show just before the host reports the abort).
      const answeredAt = rec.abort?.settledAt
      if (answeredAt !== undefined && rec.prompt.calledAt !== undefined && rec.prompt.calledAt >= answeredAt) rec.abort = undefined
      rec.prompt.shownAt = now
      return
    }
    case "abortCalling":
      rec.abort = { phase: "calling", until: event.until }
      return
    case "runMovedOn":
      if (rec.abort !== undefined && rec.abort.phase !== "calling") rec.abort = undefined
      return
    case "runEnded": {
      const underWay = rec.underWay
      if (!underWay) return
      underWay.runEndedAt = now
      underWay.onRunEnded?.()
      return
    }
    case "userTookOver":
      note(rec, { type: "runMovedOn" }, now)
      // Our abort aimed at the run before: even answered promptly, an interruption now is theirs.
      if (rec.abort?.phase === "calling") rec.abort.until = -Infinity
      return
    case "runStarted":
      rec.sentThisTurn = NONE_SENT
      return
    case "nudgeSent":
      markSent(rec, event.feature)
      return
  }
}

/**
 * The abort call answered. Returns "user" when an interruption held as undecided turns out to
 * be the user's (the host refused our abort, or it is overdue and may never be carried out).
 */
export function abortSettled(rec: Intervention, outcome: CallOutcome, now: number, holdMs: number): "user" | undefined {
  const own = rec.abort
  if (own?.phase !== "calling") return undefined
  if (own.interruptedAt !== undefined) {
    rec.abort = undefined
    // The host reports our abort just before answering it: an interruption long before the
    // answer was something else stopping the run while our call waited.
    return outcome === "ok" && now - own.interruptedAt <= ABORT_REPORT_SKEW_MS ? undefined : "user"
  }
  if (outcome === "ok") own.phase = "accepted"
  // Past sendTimeoutMs it may still be carried out: awaited like an accepted one, but its
  // interruption, should it come, is not presumed ours.
  else if (outcome === "timeout") own.phase = "overdue"
  else {
    rec.abort = undefined
    return undefined
  }
  own.settledAt = now
  own.holdUntil = now + holdMs
  return undefined
}

/** Whose an interruption is; "undecided" waits for the answer to our abort call. */
export type Attribution = "ours" | "user" | "undecided" | "other"

/**
 * Counts an interruption against our abort. While the call is unanswered the first one is
 * undecided: ours if the host then accepts the abort promptly, the user's if it refuses, never
 * answers or answers long after. After acceptance the first one inside the window is ours (a
 * host that reports late). Any other is the user's. `byUser: false`: shutdown, superseded...:
 * the run ended, but neither we nor the user asked for it.
 */
export function interruptionWasOurs(rec: Intervention, byUser: boolean | undefined, now: number): Attribution {
  const own = rec.abort
  if (byUser === false) {
    note(rec, { type: "runMovedOn" }, now)
    return "other"
  }
  if (own?.phase === "calling" && byUser === undefined && now <= own.until && own.interruptedAt === undefined) {
    own.interruptedAt = now
    return "undecided"
  }
  rec.abort = undefined
  return own?.phase === "accepted" && byUser === undefined && now <= own.until ? "ours" : "user"
}

/**
 * The exceptions to the open-call guard, for an abort only, where the open call is itself what
 * is stuck: a proven live tool loop (every open call is the loop's), and an orphan parent (only
 * its subagent calls that wait on a child, and only while every child has settled).
 * `childrenSettled`: whether every child has, asked at the abort's last moment (a fact of the
 * paths', RecoveryPath.waitedOnSettled), and only when an orphan parent's call is open.
 */
export type OpenCallException = { kind: "live-tool-loop" } | { kind: "orphan-parent" }

export function abortMayEnd(exception: OpenCallException | undefined, open: OpenTool, childrenSettled: () => boolean): boolean {
  if (!exception) return false
  if (exception.kind === "live-tool-loop") return true
  return open.subagent === "wait" && childrenSettled()
}
