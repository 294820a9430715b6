/**
 * A stream that goes silent (and a long tool that is not a stall): what happens when a busy
 * session's deadline passes, as one pure step. The decisions are pure too (watchdog.ts: the
 * deadlines; ladder.ts: the rung); this step sequences them in time through the one wake it
 * asks for, and names what it wants done as effects the runtime carries out.
 *
 * The deadline hears about the session through the `liveness` input, not through signals: any
 * event of a busy session is liveness, the streaming deltas included, so the step answers it at
 * once when a deadline is already armed.
 *
 * A recovery goes: the deadline passes -> a backoff (held as a recovery under way) -> for a plain
 * continue, the host is asked whether it still runs the session (held too) -> the continue, or
 * the abort then continue, goes out -> its outcome re-arms the deadline.
 */
import { formatDuration } from "../../prompts/format.ts"
import type { JournalTag } from "../../core/journal.ts"
import type { RecoveryKind } from "../../core/session-state.ts"
import { assessBusySession, stallBudgetMs } from "../../core/watchdog.ts"
import { describeQuietEvents, progressBaseline, progressCeilingMs } from "../../core/progress-ceiling.ts"
import type { Options } from "../../options/index.ts"
import { AWAITING_USER, isGuard } from "../../runtime/may-act.ts"
import type { EffectOutcome, PathEffect, PathInput, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"
import { decideStallRecovery, recoveryKindOf, stallActionFor, type StallRung } from "./ladder.ts"
import { stallTag } from "./journal-tag.ts"
import { vetoedLookAgain, type UnreadStreak } from "./look-again.ts"

/** What the recovery decided at the deadline needs again when it acts. */
type Decided = {
  reason: string
  /** How long the session had been stalled when the continue goes out (quoted by the prompt). */
  stalledForMs: number
  /** The moment the stall was found, and which stamp shows the session got past it since. */
  detectedAt: number
  noProgress: boolean
  tag: JournalTag
}

/** The wait before a rung (the ladder's backoff). */
type Backoff = Decided & { at: number; rung: StallRung["kind"] }
/** A plain continue asks the host first whether the run is live; `cancelled`: the user or ESC ended it meanwhile. */
type Asking = Decided & { id: number; cancelled: boolean }
/** A continue (or abort then continue) that is out. */
type Acting = { id: number; kind: RecoveryKind }

export type StallState = {
  /** When the silence deadline passes; undefined: none armed (the next event of a busy session arms it). */
  deadlineAt?: number
  backoff?: Backoff
  asking?: Asking
  acting: readonly Acting[]
  unread?: UnreadStreak
  /** The id the next effect gets. */
  seq: number
}

const UNDER_WAY_BACKOFF = "stall recovery: waiting out the backoff"
const UNDER_WAY_ASKING = "stall recovery: asking the host whether it still runs the session"

/** The stall budget, or a progress ceiling set below it: whichever could run out first. */
function firstLookMs(options: Options): number {
  const budget = stallBudgetMs(options)
  const ceiling = progressCeilingMs(options, budget)
  return ceiling > 0 ? Math.min(budget, ceiling) : budget
}

/** One step's draft: the state as it goes, the effects in order, and the log-once memory as it stands. */
class Draft {
  readonly effects: PathEffect[] = []
  private heldKey: string | undefined

  constructor(
    public state: StallState,
    private readonly ctx: StepContext,
  ) {
    this.heldKey = ctx.session.lastHeldReason
  }

  log(level: "info" | "debug", text: string): void {
    this.effects.push({ kind: "log", level, text })
  }

  /** Logs a held stall once per reason; `key` names the reason when its text changes (an age). */
  held(reason: string, key = reason): void {
    if (this.heldKey === key) return
    this.setHeldKey(key)
    this.log("info", `session ${this.ctx.session.id}: stall recovery held: ${reason}`)
  }

  setHeldKey(key: string | undefined): void {
    this.heldKey = key
    this.effects.push({ kind: "note-held", key })
  }

  /** Arms the deadline if none is armed (and the session is busy and tracked). */
  ensureDeadline(delayMs?: number): void {
    const s = this.ctx.session
    if (!s.busy || s.dropped || this.state.deadlineAt !== undefined) return
    const wait = delayMs ?? firstLookMs(this.ctx.options())
    this.state = { ...this.state, deadlineAt: this.ctx.now + Math.max(0, wait) }
  }

  nextId(): number {
    const id = this.state.seq
    this.state = { ...this.state, seq: id + 1 }
    return id
  }

  result(): StepResult<StallState> {
    const { deadlineAt, backoff, asking } = this.state
    const wakes = [deadlineAt, backoff?.at].filter((at): at is number => at !== undefined)
    const hold = backoff ? UNDER_WAY_BACKOFF : asking && !asking.cancelled ? UNDER_WAY_ASKING : undefined
    return { state: this.state, effects: this.effects, wakeAt: wakes.length > 0 ? Math.min(...wakes) : undefined, hold }
  }
}

export const stallPath: RecoveryPath<StallState> = {
  name: "stall",
  streams: ["liveness"],
  initial: () => ({ acting: [], seq: 0 }),
  step(state, input, ctx) {
    if (input.type === "liveness") {
      // Written for the hot path: every streamed event of a watched session comes here.
      if (input.liveness === "live") {
        if (!ctx.session.busy || ctx.session.dropped || state.deadlineAt !== undefined) return undefined
        const draft = new Draft(state, ctx)
        draft.ensureDeadline()
        return draft.result()
      }
      if (state.deadlineAt === undefined) return undefined
      return new Draft({ ...state, deadlineAt: undefined }, ctx).result()
    }
    return stepOther(state, input, ctx)
  },
}

function stepOther(state: StallState, input: Exclude<PathInput, { type: "liveness" }>, ctx: StepContext): StepResult<StallState> {
  const draft = new Draft(state, ctx)
  switch (input.type) {
    case "standDown":
      draft.state = { ...draft.state, deadlineAt: undefined }
      break
    case "adopted": {
      // A taken-over busy session keeps what was left of its budget, not a fresh one.
      const s = ctx.session
      if (s.busy) draft.ensureDeadline(stallBudgetMs(ctx.options()) - Math.max(0, ctx.now - s.lastActivityAt))
      break
    }
    case "holdCancelled":
      // The user, ESC or another recovery ended ours: a backoff just ends; a question out to the
      // host is answered anyway, and then comes to nothing.
      if (draft.state.backoff) draft.state = { ...draft.state, backoff: undefined }
      else if (draft.state.asking) draft.state = { ...draft.state, asking: { ...draft.state.asking, cancelled: true } }
      break
    case "wake":
      // Due together: the backoff was asked for before a deadline re-armed while it ran.
      if (draft.state.backoff && draft.state.backoff.at <= ctx.now) onBackoff(draft, ctx, draft.state.backoff)
      if (draft.state.deadlineAt !== undefined && draft.state.deadlineAt <= ctx.now) onDeadline(draft, ctx)
      break
    case "effectSettled":
      onSettled(draft, ctx, input.id, input.outcome)
      break
  }
  return draft.result()
}

/** Heartbeats go on arriving through a no-progress stall: only progress means it moved on. */
function movedOn(ctx: StepContext, d: Decided): boolean {
  return d.noProgress ? progressBaseline(ctx.session) > d.detectedAt : ctx.session.lastActivityAt > d.detectedAt
}

function onDeadline(draft: Draft, ctx: StepContext): void {
  draft.state = { ...draft.state, deadlineAt: undefined }
  const s = ctx.session
  if (!s.busy) return
  const options = ctx.options()
  const now = ctx.now
  const assessment = assessBusySession(s, now, options)

  if (assessment.kind === "quiet") {
    draft.ensureDeadline(assessment.recheckInMs)
    return
  }
  if (assessment.kind === "tool-phase") {
    const t = assessment.oldest
    // 1.18 asks its questions and permissions inside a tool call: silent past the budget with one
    // open, the session waits on the user, which the history says (and the user is told, notices.ts).
    const held = ctx.mayAct("touch")
    if (held?.reason === AWAITING_USER) {
      const tag = { trigger: "stall", evidence: `silent for ${formatDuration(assessment.silentMs)}; tool \`${t.tool}\` open for ${formatDuration(t.ageMs)}` }
      draft.effects.push({ kind: "journal-refused", tag, action: "continue", why: "held", reason: held.reason })
    }
    const note = t.stuck ? "looks stuck, still not interrupted" : "not interrupting"
    draft.held(`tool phase: tool "${t.tool}" (${t.callID}) in flight for ${formatDuration(t.ageMs)}, ${note}`, `tool:${t.callID}:${t.stuck}`)
    draft.ensureDeadline(assessment.recheckInMs)
    return
  }

  const tag = stallTag(s, assessment)
  // Only a guard's refusal goes to the history; a recovery of ours under way is not a refusal.
  const held = ctx.mayAct("ladder")
  if (isGuard(held)) draft.effects.push({ kind: "journal-refused", tag, action: "continue", why: "held", reason: held.reason })
  if (held) {
    draft.held(held.reason)
    draft.ensureDeadline(options.checkIntervalMs)
    return
  }

  const { effect: decision, delayMs } = decideStallRecovery(
    {
      now,
      busyEpoch: s.runEpoch,
      episodeRetries: s.episodeRetries,
      recentContinues: s.recentContinues,
      lifetimeContinues: s.lifetimeContinues,
      lastRecovery: s.lastRecovery,
      lastModelOutputAt: s.lastModelOutputAt,
    },
    options,
  )
  const toolNote = assessment.tool ? ` tool="${assessment.tool.tool}" wedged for ${formatDuration(assessment.tool.ageMs)}` : " no tool in flight"
  const progressNote =
    assessment.phase === "no-progress"
      ? `; no progress for ${formatDuration(assessment.sinceProgressMs)}, alive only through: ${describeQuietEvents(s)}`
      : ""
  const head = `session ${s.id}: stall detected phase=${assessment.phase} silent=${formatDuration(assessment.silentMs)}${toolNote}${progressNote}`
  const noProgress = assessment.phase === "no-progress"
  const stalledForMs = noProgress ? assessment.sinceProgressMs : assessment.silentMs
  if (decision.kind === "none" || decision.kind === "stand-down") {
    if (decision.kind === "stand-down") draft.effects.push({ kind: "journal-refused", tag, action: "continue", why: "gave up", reason: decision.reason })
    // Standing down: no deadline. The next event re-arms it (the liveness input).
    draft.held(`${decision.reason}`)
    draft.log("debug", `${head}; no action: ${decision.reason}`)
    return
  }
  draft.setHeldKey(undefined)
  draft.log(
    "info",
    `${head} -> ${recoveryKindOf(decision.kind)} (${decision.reason}), attempt ${s.episodeRetries + 1}/${options.stallEpisodeMaxContinues} in ${formatDuration(delayMs)}`,
  )
  const backoff: Backoff = { at: now + delayMs, rung: decision.kind, reason: decision.reason, stalledForMs: stalledForMs + delayMs, detectedAt: now, noProgress, tag }
  draft.state = { ...draft.state, backoff }
}

function onBackoff(draft: Draft, ctx: StepContext, backoff: Backoff): void {
  draft.state = { ...draft.state, backoff: undefined }
  const s = ctx.session
  // The stream may have come back while we waited out the backoff.
  if (!s.busy || movedOn(ctx, backoff) || s.dropped) {
    draft.log("info", `session ${s.id}: activity resumed before recovery; nothing sent`)
    draft.ensureDeadline()
    return
  }
  const held = ctx.mayAct("touch")
  if (held) {
    draft.effects.push({ kind: "journal-refused", tag: backoff.tag, action: recoveryKindOf(backoff.rung), why: "held", reason: held.reason })
    draft.held(held.reason)
    return
  }
  // A plain continue asks the host first whether the run is live, which decides between the
  // continue and abort-first. While the answer is out the recovery counts as under way.
  if (backoff.rung === "continue") {
    const { at: _at, rung: _rung, ...decided } = backoff
    const id = draft.nextId()
    draft.state = { ...draft.state, asking: { ...decided, id, cancelled: false } }
    draft.effects.push({ kind: "ask-host-run", id })
    return
  }
  act(draft, ctx, backoff, backoff.rung, "")
}

function onSettled(draft: Draft, ctx: StepContext, id: number, outcome: EffectOutcome): void {
  const asking = draft.state.asking
  if (outcome.kind === "host-run") {
    if (!asking || asking.id !== id) return
    draft.state = { ...draft.state, asking: undefined }
    const s = ctx.session
    if (asking.cancelled || !s.busy || s.dropped || movedOn(ctx, asking)) {
      draft.log("info", `session ${s.id}: the session moved on while the host was asked; nothing sent`)
      draft.ensureDeadline()
      return
    }
    const action = stallActionFor("continue", outcome.run.state)
    act(draft, ctx, asking, action.kind, outcome.run.detail ? `${action.note} (${outcome.run.detail})` : action.note)
    return
  }
  if (outcome.kind !== "delivered") return
  const acting = draft.state.acting.find((a) => a.id === id)
  if (!acting) return
  draft.state = { ...draft.state, acting: draft.state.acting.filter((a) => a !== acting) }
  if (outcome.outcome === "ok") {
    const options = ctx.options()
    draft.log("info", `session ${ctx.session.id}: continue sent (${ctx.session.lifetimeContinues}/${options.lifetimeMaxContinues} this user episode)`)
    draft.ensureDeadline()
  }
  if (acting.kind === "continue") {
    if (outcome.outcome === "held") draft.held(outcome.heldBy ?? "held")
    draft.ensureDeadline()
    return
  }
  if (outcome.vetoed !== undefined) {
    // Not counted as an attempt: the stall is looked at again on the next check.
    draft.held(`not aborting: ${outcome.vetoed}`)
    const next = vetoedLookAgain(ctx.options(), draft.state.unread, progressBaseline(ctx.session), outcome.vetoed, ctx.now)
    draft.state = { ...draft.state, unread: next.streak }
    draft.ensureDeadline(next.delayMs)
  }
}

function act(draft: Draft, ctx: StepContext, decided: Decided, rung: StallRung["kind"], note: string): void {
  const kind = recoveryKindOf(rung)
  if (note) draft.log("info", `session ${ctx.session.id}: stall recovery: ${kind === "continue" ? "plain continue" : "abort first, then continue"}; ${note}`)
  const id = draft.nextId()
  draft.state = { ...draft.state, acting: [...draft.state.acting, { id, kind }] }
  draft.effects.push({ kind: "episode-continue", id, effect: { kind: rung, reason: decided.reason }, recovery: kind, label: "send continue", silentMs: decided.stalledForMs, tag: decided.tag })
}
