/**
 * The effects every recovery path shares: send a prompt, or abort the run and prompt once it
 * has ended. Each re-checks the safety holds at the last moment, runs through the bounded,
 * one-at-a-time host call, and reports failures once per kind.
 */
import type { SendKind } from "./port.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../options/index.ts"
import { buildContinuePrompt } from "../prompts/continue.ts"
import { abortVeto } from "./abort-veto.ts"
import type { EngineContext } from "./context.ts"
import { exclusiveHostCall, reporter } from "./host-calls.ts"
import { abortSettled, cancelRecovery, endRecovery, holdRecovery, lateLandingHoldMs, note, type CallOutcome, type OpenCallException } from "./intervention.ts"
import { stallBudgetMs } from "./watchdog.ts"
import { promptSetup } from "./fallback.ts"
import { promptSpacing, recoveryRecord, type RecoveryKind, type SessionState } from "./session-state.ts"

export type { OpenCallException }

/** The pause between an abort and its prompt, as the session's timer names it. */
const ABORT_PAUSE = "abort-pause"

/**
 * Starts one recovery of any path: refused (one log line) at the lifetime cap, otherwise
 * counted against it and, with `record`, remembered as the session's last recovery, the one
 * the stall ladder escalates from.
 */
export function beginRecovery(ctx: EngineContext, state: SessionState, what: string, record?: { kind: RecoveryKind; reason: string }): boolean {
  const cap = ctx.effective(state).lifetimeMaxContinues
  if (state.lifetimeContinues >= cap) {
    ctx.logger.log("info", `session ${state.id}: ${what} not sent: lifetime cap reached (${state.lifetimeContinues}/${cap}); waiting for the user`)
    return false
  }
  state.lifetimeContinues++
  if (record) state.lastRecovery = recoveryRecord(state, record.kind, record.reason, ctx.time.now())
  return true
}

export type PromptRequest = { text: string | (() => string); kind: SendKind; label: string }

/**
 * For a port that awaits something before its host call (SendRequest.stillWanted): mayAct
 * again, with the moment the prompt was decided at, since a turn the session took meanwhile
 * (the user wrote, the model produced something, the run ended or started) makes it an answer
 * to a moment that is over. The same rule as the stall path's re-check before it acts.
 */
function stillWanted(ctx: EngineContext, state: SessionState): () => string | undefined {
  const { lastGenuineUserAt, lastModelOutputAt, idleEpoch } = state
  const act = { kind: "send", decided: { lastGenuineUserAt, lastModelOutputAt, idleEpoch } } as const
  return () => ctx.mayAct(state, act, ctx.time.now())?.reason
}

/** Sends one prompt unless the session must be left alone right now. */
export async function sendPrompt(ctx: EngineContext, state: SessionState, request: PromptRequest): Promise<CallOutcome | "held"> {
  const held = ctx.mayAct(state, "send", ctx.time.now())?.reason
  if (held) {
    ctx.logger.log("debug", `session ${state.id}: ${request.label} not sent: ${held}`)
    return "held"
  }
  const text = typeof request.text === "function" ? request.text() : request.text
  const options = ctx.effective(state)
  const outcome = await exclusiveHostCall(state, ctx.time, options.sendTimeoutMs, request.label, () => {
    note(state.intervention, { type: "promptCalling" }, ctx.time.now())
    // While a fallback model has taken over, every prompt of ours goes on with it (fallback.ts).
    return ctx.port.send({ sessionID: state.id, text, kind: request.kind, setup: promptSetup(state.setup, state.fallback), onFallback: state.fallback !== undefined, stillWanted: stillWanted(ctx, state), path: request.label, attempt: state.lifetimeContinues })
  }, reporter(ctx, state))
  const now = ctx.time.now()
  note(state.intervention, { type: "promptSettled", outcome, holdUntil: now + lateLandingHoldMs(stallBudgetMs(options)) }, now)
  return outcome
}

/**
 * The prompt a counted recovery (beginRecovery) meant to send never reached the session: held
 * at the last moment, another call in flight, refused or failed. It gives its count back, since
 * only prompts the plugin really sends count against lifetimeMaxContinues. A call that timed
 * out may still be carried out and keeps its count. True when the count was given back.
 */
export function uncountUnsent(state: SessionState, outcome: CallOutcome | "held" | undefined): boolean {
  if (outcome === "ok" || outcome === "timeout") return false
  state.lifetimeContinues = Math.max(0, state.lifetimeContinues - 1)
  return true
}

/** How long a prompt must wait so that it keeps `injectIntervalMs` from the previous one. */
export function spacingWait(ctx: EngineContext, state: SessionState): number {
  return promptSpacing(state, ctx.effective(state).injectIntervalMs, ctx.time.now())
}

/** `commit`: every hold and the abort veto passed, the abort call goes out next (what a caller counts
 * as an attempt). `vetoed`: the last look (abort-veto.ts), or a hold that came up during it, stopped it. */
export type AbortHooks = { commit?: () => void; vetoed?: (why: string) => void }

/**
 * Aborts the running turn (marked as ours, so it is never read as ESC), then prompts as soon as
 * the host shows the run over (an `idle`), at the latest ABORT_CONTINUE_DELAY_MS after the abort
 * answered, unless a new run started by itself meanwhile. `onSent` runs after
 * a successful prompt; `exception` lets the abort end an open call (see OpenCallException);
 * `hooks` hear when the abort is committed (every check and the history veto passed) or vetoed.
 * Settles when the whole action is over: with the prompt's outcome once its host call settled,
 * or with undefined once it is known that no prompt will go out (held, abort refused or
 * failed, the pause cancelled, a run started by itself), so a caller can time what follows
 * from the prompt.
 */
export async function abortThenPrompt(
  ctx: EngineContext,
  state: SessionState,
  request: PromptRequest,
  onSent?: () => void,
  exception?: OpenCallException,
  hooks: AbortHooks = {},
): Promise<CallOutcome | "held" | undefined> {
  const rec = state.intervention
  const refusal = (veto?: string) => ctx.mayAct(state, { kind: "abort", exception, veto }, ctx.time.now())?.reason
  const notDone = (why: string): undefined => {
    ctx.logger.log("debug", `session ${state.id}: abort for ${request.label} not done: ${why}`)
  }
  const held = refusal()
  if (held) return notDone(held)
  // The host's record of the newest turn, read once: a tool call our events missed vetoes the
  // abort (abort-veto.ts). The read takes time: meanwhile the action counts as under way (a user
  // turn or ESC cancels it like the pause below), and the holds are asked again after it.
  const wasBusy = state.busy
  cancelRecovery(rec)
  const reading = holdRecovery(rec)
  const veto = await abortVeto(ctx, state)
  if (reading.cancelled || (wasBusy && !state.busy)) {
    if (!reading.cancelled) endRecovery(rec)
    return notDone("the session moved on while its history was read")
  }
  const blocked = refusal(veto)
  if (blocked) {
    endRecovery(rec)
    notDone(blocked)
    hooks.vetoed?.(blocked)
    return undefined
  }
  // Every check passed: what the caller counts as an attempt is counted now, before the call.
  hooks.commit?.()
  const options = ctx.effective(state)
  const abortAt = ctx.time.now()
  // The host reports the abort (interrupted, idle) before the abort call returns: the recovery
  // stays marked as under way, so that idle is not judged as a finished turn meanwhile, and the
  // idle is kept as the run's end (runEndedAt) for the continue.
  const calling = holdRecovery(rec)
  // Opened only when the call really goes out: a refused one must not touch another's count.
  let called = false
  const abort = () => {
    called = true
    // Its report counts as ours until the longest the continue may wait for it (the ceiling).
    note(rec, { type: "abortCalling", until: abortAt + options.sendTimeoutMs + options.gracePeriodMs + ABORT_CONTINUE_DELAY_MS }, abortAt)
    return ctx.port.abort(state.id)
  }
  const outcome = await exclusiveHostCall(state, ctx.time, options.sendTimeoutMs, "abort", abort, reporter(ctx, state))
  if (called && abortSettled(rec, outcome, ctx.time.now(), lateLandingHoldMs(stallBudgetMs(options))) === "user") {
    // The interruption that came while the call was out was not our abort's: the user's ESC.
    endRecovery(rec)
    ctx.logger.log("info", `session ${state.id}: the run was stopped while our abort was out (abort ${outcome}): that was the user`)
    ctx.userStopped(state)
    return undefined
  }
  // An abort refused while the session is idle had nothing to stop (2.x answers an interrupt of
  // an idle session with `interrupted: false`): the resume half still applies, as to any idle
  // session. A refusal while the run is live leaves the run alone, and so does a timeout.
  const nothingToStop = outcome === "failed" && !state.busy
  if ((outcome !== "ok" && !nothingToStop) || !rec.underWay) {
    endRecovery(rec)
    return undefined
  }
  // The continue goes out once the host shows the run over (an idle since the call went out, often
  // before it answered), or at the ceiling when it shows nothing. Either way it keeps the send
  // spacing, or the host refuses it and the aborted session is left idle with nothing on its way.
  const ended = calling.runEndedAt !== undefined
  const ceiling = ctx.time.now() + ABORT_CONTINUE_DELAY_MS
  const dueAt = (runEnded: boolean) => Math.max(runEnded ? ctx.time.now() : ceiling, ctx.time.now() + spacingWait(ctx, state))
  const delay = dueAt(ended) - ctx.time.now()
  const what = nothingToStop ? "nothing was running to abort" : "aborted the run"
  const when = ended ? "the run has ended" : "or as soon as the run has ended"
  ctx.logger.log("info", `session ${state.id}: ${what} (${request.label}); prompting in ${delay}ms (${when})`)
  return await new Promise<CallOutcome | "held" | undefined>((done) => {
    // On the session's one timer; its wake's holds are not read here: sendPrompt asks at the last moment.
    const prompt = () => {
      endRecovery(rec)
      // The abort ended the run; a busy period that began since then is a run the host started by
      // itself (for example a prompt that was waiting in its inbox): ours would only queue behind it.
      if (state.busy && state.busySince >= abortAt) {
        ctx.logger.log("info", `session ${state.id}: a new run started by itself after the abort; nothing sent`)
        return done(undefined)
      }
      void sendPrompt(ctx, state, request).then((sent) => {
        done(sent)
        if (sent === "ok") onSent?.()
      }, () => done("failed"))
    }
    ctx.wake(state, ABORT_PAUSE, dueAt(ended), prompt)
    // Whoever cancels the pause (a user turn, ESC, another recovery) also ends the action.
    const pause = holdRecovery(rec, () => {
      ctx.wake(state, ABORT_PAUSE, undefined, () => undefined)
      done(undefined)
    })
    // The host shows the run over while we wait: the continue goes out now (spacing allowing).
    if (!ended) pause.onRunEnded = () => ctx.wake(state, ABORT_PAUSE, dueAt(true), prompt)
  })
}

/**
 * A continue prompt for any recovery path: built at send time, so the counts it quotes are the
 * ones in force when it goes out. `attempt` defaults to 1 (paths without an episode ladder).
 */
export function continueRequest(
  ctx: EngineContext,
  state: SessionState,
  c: { reason: string; label: string; silentMs?: number; attempt?: () => number; maxAttempts?: number },
): PromptRequest {
  return {
    kind: "continue",
    label: c.label,
    text: () => {
      const options = ctx.effective(state)
      const attempt = c.attempt?.() ?? 1
      const maxAttempts = c.maxAttempts ?? options.stallEpisodeMaxContinues
      const facts = { reason: c.reason, attempt, maxAttempts, episodeContinue: state.lifetimeContinues, silentMs: c.silentMs ?? 0, now: ctx.time.now() }
      return buildContinuePrompt(facts, options)
    },
  }
}
