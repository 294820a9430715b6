/**
 * A stream that goes silent (and a long tool that is not a stall): what happens when a busy
 * session's deadline passes. The decisions are pure (watchdog.ts: the deadlines; ladder.ts: the
 * rung); this module sequences them in time on the session's one timer and hands the effects
 * to the engine's effect runner (run-effect.ts).
 *
 * The deadline hears about the session through EngineModule.onLiveness, not onSignal: any event
 * of a busy session is liveness, the streaming deltas included, which onSignal deliberately
 * keeps away from modules; onLiveness is one cheap call per such event.
 */
import { formatDuration } from "../../prompts/format.ts"
import type { Wake } from "../scheduler.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { holdReason, type EngineContext } from "../context.ts"
import { UNREAD_HISTORY_MAX_LOOK_GAP_MS } from "../../options/index.ts"
import { UNREAD_HISTORY_VETO } from "../abort-veto.ts"
import { askHostRun } from "../host-run.ts"
import { decideStallRecovery, recoveryKindOf, stallActionFor, type StallRung } from "../ladder.ts"
import { endRecovery, holdRecovery, mayIntervene } from "../intervention.ts"
import { runEffect, type Delivery } from "../run-effect.ts"
import { recoveryRecord, type RecoveryKind, type SessionState } from "../session-state.ts"
import { assessBusySession, stallBudgetMs } from "../watchdog.ts"
import { describeQuietEvents, progressBaseline, progressCeilingMs } from "../progress-ceiling.ts"
import { stallTag } from "../journal-stall.ts"
import type { JournalTag } from "../journal.ts"

/** How many continue timestamps to keep: enough to judge any loop window. */
const MAX_RECENT_CONTINUES = 32

/** The wakes this path asks for on the session's one timer: the deadline, and the backoff before a rung. */
const DEADLINE = "silent-stream"
const BACKOFF = "silent-stream:backoff"
const nothing = () => undefined

/** The engine always runs this one, whatever other modules it is given. */
export function silentStreamModule({ ctx }: ModuleEnv): EngineModule {
  return {
    name: "silent-stream",
    onLiveness(state, liveness) {
      if (liveness !== "live") cancelWatchdog(ctx, state)
      // ensureWatchdog's check written out: this runs on every streamed event.
      else if (state.busy && !state.dropped && ctx.nextWake(state, DEADLINE) === undefined) ensureWatchdog(ctx, state)
    },
  }
}

/** Arms the session's deadline if it has none (cheap: called on every event). */
export function ensureWatchdog(ctx: EngineContext, state: SessionState, delayMs?: number): void {
  if (!state.busy || state.dropped || ctx.nextWake(state, DEADLINE) !== undefined) return
  const wait = delayMs ?? firstLookMs(ctx.effective(state))
  ctx.wake(state, DEADLINE, ctx.time.now() + Math.max(0, wait), (wake) => onDeadline(ctx, state, wake))
}

/** The stall budget, or a progress ceiling set below it: whichever could run out first. */
function firstLookMs(options: ReturnType<EngineContext["effective"]>): number {
  const budget = stallBudgetMs(options)
  const ceiling = progressCeilingMs(options, budget)
  return ceiling > 0 ? Math.min(budget, ceiling) : budget
}

export function cancelWatchdog(ctx: EngineContext, state: SessionState): void {
  ctx.wake(state, DEADLINE, undefined, nothing)
}

/** Logs a held stall once per reason; `key` names the reason when its text changes (an age). */
function logHeld(ctx: EngineContext, state: SessionState, reason: string, key = reason): void {
  if (state.lastHeldReason === key) return
  state.lastHeldReason = key
  ctx.logger.log("info", `session ${state.id}: stall recovery held: ${reason}`)
}

function onDeadline(ctx: EngineContext, state: SessionState, wake: Wake): void {
  if (!state.busy) return
  const options = ctx.effective(state)
  const now = wake.now
  const assessment = assessBusySession(state, now, options)

  if (assessment.kind === "quiet") {
    ensureWatchdog(ctx, state, assessment.recheckInMs)
    return
  }
  if (assessment.kind === "tool-phase") {
    const t = assessment.oldest
    const note = t.stuck ? "looks stuck, still not interrupted" : "not interrupting"
    logHeld(ctx, state, `tool phase: tool "${t.tool}" (${t.callID}) in flight for ${formatDuration(t.ageMs)}, ${note}`, `tool:${t.callID}:${t.stuck}`)
    ensureWatchdog(ctx, state, assessment.recheckInMs)
    return
  }

  const tag = stallTag(state, assessment)
  // Only a guard's refusal goes to the history; a recovery of ours under way is not a refusal.
  if (wake.hold) ctx.journal?.refused(state, tag, "continue", "held", wake.hold)
  const held = wake.hold ?? mayIntervene(state.intervention, now, "ladder")?.reason
  if (held) {
    logHeld(ctx, state, held)
    ensureWatchdog(ctx, state, options.checkIntervalMs)
    return
  }

  const { effect: decision, delayMs } = decideStallRecovery(
    {
      now,
      busyEpoch: state.runEpoch,
      episodeRetries: state.episodeRetries,
      recentContinues: state.recentContinues,
      lifetimeContinues: state.lifetimeContinues,
      lastRecovery: state.lastRecovery,
      lastModelOutputAt: state.lastModelOutputAt,
    },
    options,
  )
  const toolNote = assessment.tool ? ` tool="${assessment.tool.tool}" wedged for ${formatDuration(assessment.tool.ageMs)}` : " no tool in flight"
  const progressNote =
    assessment.phase === "no-progress"
      ? `; no progress for ${formatDuration(assessment.sinceProgressMs)}, alive only through: ${describeQuietEvents(state)}`
      : ""
  const head = `session ${state.id}: stall detected phase=${assessment.phase} silent=${formatDuration(assessment.silentMs)}${toolNote}${progressNote}`
  const detectedAt = now
  // Heartbeats go on arriving through a no-progress stall: only progress means it moved on.
  const movedOn = assessment.phase === "no-progress" ? () => progressBaseline(state) > detectedAt : () => state.lastActivityAt > detectedAt
  const stalledForMs = assessment.phase === "no-progress" ? assessment.sinceProgressMs : assessment.silentMs
  if (decision.kind === "none" || decision.kind === "stand-down") {
    if (decision.kind === "stand-down") ctx.journal?.refused(state, tag, "continue", "gave up", decision.reason)
    // Standing down: no timer. The next event re-arms the watchdog (ensureWatchdog on touch).
    logHeld(ctx, state, `${decision.reason}`)
    ctx.logger.log("debug", `${head}; no action: ${decision.reason}`)
    return
  }
  state.lastHeldReason = undefined
  ctx.logger.log(
    "info",
    `${head} -> ${recoveryKindOf(decision.kind)} (${decision.reason}), attempt ${state.episodeRetries + 1}/${options.stallEpisodeMaxContinues} in ${formatDuration(delayMs)}`,
  )
  ctx.wake(state, BACKOFF, now + delayMs, (backoff) => {
    endRecovery(state.intervention)
    // The stream may have come back while we waited out the backoff.
    if (!state.busy || movedOn() || state.dropped) {
      ctx.logger.log("info", `session ${state.id}: activity resumed before recovery; nothing sent`)
      ensureWatchdog(ctx, state)
      return
    }
    void runRecovery(ctx, state, decision.kind, decision.reason, stalledForMs + delayMs, movedOn, backoff.hold, tag)
  })
  holdRecovery(state.intervention, () => ctx.wake(state, BACKOFF, undefined, nothing))
}

function recordContinue(ctx: EngineContext, state: SessionState, kind: RecoveryKind, reason: string): void {
  const now = ctx.time.now()
  const window = ctx.effective(state).loopWindowMs
  state.episodeRetries++
  state.lifetimeContinues++
  state.recentContinues = state.recentContinues.filter((t) => now - t < window).slice(-(MAX_RECENT_CONTINUES - 1))
  state.recentContinues.push(now)
  state.lastRecovery = recoveryRecord(state, kind, reason, now)
  // Our own action restarts the silence clock; otherwise the next deadline would fire at once.
  state.lastActivityAt = now
}

/**
 * A plain continue rung asks the host first whether the run is live (host-run.ts), which
 * decides between the continue and abort-first. While the answer is out the recovery counts
 * as under way; a user turn or ESC cancels it. Resolves to undefined when it was cancelled.
 */
async function actionForHost(ctx: EngineContext, state: SessionState, rung: StallRung["kind"]): Promise<{ kind: StallRung["kind"]; note: string } | undefined> {
  if (rung !== "continue") return { kind: rung, note: "" }
  const asking = holdRecovery(state.intervention)
  const host = await askHostRun(ctx, state)
  if (asking.cancelled) return undefined
  endRecovery(state.intervention, asking)
  const action = stallActionFor(rung, host.state)
  return { kind: action.kind, note: host.detail ? `${action.note} (${host.detail})` : action.note }
}

/** `held`: the holds as the engine found them when the backoff ended; `movedOn`: the session got past the stall since. */
async function runRecovery(ctx: EngineContext, state: SessionState, rung: StallRung["kind"], reason: string, silentMs: number, movedOn: () => boolean, held: string | undefined, journal: JournalTag) {
  if (held) {
    ctx.journal?.refused(state, journal, recoveryKindOf(rung), "held", held)
    logHeld(ctx, state, held)
    return
  }
  const action = await actionForHost(ctx, state, rung)
  if (!action || !state.busy || state.dropped || movedOn()) {
    ctx.logger.log("info", `session ${state.id}: the session moved on while the host was asked; nothing sent`)
    ensureWatchdog(ctx, state)
    return
  }
  const kind = recoveryKindOf(action.kind)
  if (action.note) ctx.logger.log("info", `session ${state.id}: stall recovery: ${kind === "continue" ? "plain continue" : "abort first, then continue"}; ${action.note}`)
  // The attempt the prompt quotes is fixed when it is counted: output of the run being aborted
  // (or of a prompt the host picks up meanwhile) resets the episode, and must not make the
  // continue read "Attempt 0/3".
  let attempt = state.episodeRetries + 1
  // The stall continue quotes the episode's attempt number as it was counted.
  const via: Delivery = { label: "send continue", silentMs, attempt: () => attempt, journal }
  if (kind === "continue") {
    recordContinue(ctx, state, kind, reason)
    attempt = state.episodeRetries
    await runEffect(ctx, state, {
      effect: { kind: "continue", reason },
      via: {
        ...via,
        onSent: () => afterContinue(ctx, state),
        onSettled: (sent) => {
          if (sent === "held") logHeld(ctx, state, holdReason(ctx, state) ?? "held")
          ensureWatchdog(ctx, state)
        },
      },
    })
    return
  }
  let record: SessionState["lastRecovery"]
  await runEffect(ctx, state, {
    effect: { kind: "abort-continue", reason },
    via: {
      ...via,
      onSent: () => {
        // The continue went out seconds after the decision: output of the run being aborted in
        // between does not answer it, so the record takes the output stamp as of now. Its run stays
        // the decision's: if the abort ended that run, the continue starts a fresh one.
        if (record && state.lastRecovery === record) state.lastRecovery = { ...record, outputAt: state.lastModelOutputAt }
        afterContinue(ctx, state)
      },
      onCommit: () => {
        recordContinue(ctx, state, kind, reason)
        attempt = state.episodeRetries
        record = state.lastRecovery
      },
      onVetoed: (why) => {
        // Not counted as an attempt: the stall is looked at again on the next check.
        logHeld(ctx, state, `not aborting: ${why}`)
        ensureWatchdog(ctx, state, vetoedLookAgainMs(ctx.effective(state), state, why, ctx.time.now()))
      },
    },
  })
}

/** Per session: since when the looks at one stall (one progress baseline) keep finding its history unreadable. */
const unreadStreaks = new WeakMap<SessionState, { baseline: number; since: number }>()

/**
 * When to look again at a stall whose abort was vetoed. Each look asks the host twice (is it
 * running, its newest message): a host that cannot show its history must not be asked that every
 * check for as long as it fails, so then the wait grows with how long the looks at this stall have
 * been failing (about doubling each time), from checkIntervalMs up to UNREAD_HISTORY_MAX_LOOK_GAP_MS
 * (or one stall budget, if longer). Progress, or a recovery going out, starts a new stall. A history
 * that reads (a tool still running in it) is looked at every check, as checkIntervalMs says.
 */
function vetoedLookAgainMs(options: ReturnType<EngineContext["effective"]>, state: SessionState, why: string, now: number): number {
  if (!why.startsWith(UNREAD_HISTORY_VETO)) {
    unreadStreaks.delete(state)
    return options.checkIntervalMs
  }
  const baseline = progressBaseline(state)
  let streak = unreadStreaks.get(state)
  if (!streak || streak.baseline !== baseline) unreadStreaks.set(state, (streak = { baseline, since: now }))
  const longest = Math.max(stallBudgetMs(options), UNREAD_HISTORY_MAX_LOOK_GAP_MS)
  return Math.max(options.checkIntervalMs, Math.min(now - streak.since, longest))
}

function afterContinue(ctx: EngineContext, state: SessionState): void {
  state.lastActivityAt = Math.max(state.lastActivityAt, ctx.time.now())
  ctx.logger.log("info", `session ${state.id}: continue sent (${state.lifetimeContinues}/${ctx.effective(state).lifetimeMaxContinues} this user episode)`)
  ensureWatchdog(ctx, state)
}
