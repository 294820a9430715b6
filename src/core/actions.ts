/**
 * The effects every recovery path shares: send a prompt, or abort the run and prompt after a
 * short pause. Each re-checks the safety holds at the last moment, runs through the bounded,
 * one-at-a-time host call, and reports failures once per kind.
 */
import type { SendKind } from "../host/port.ts"
import { ABORT_CONTINUE_DELAY_MS, TOOL_WEDGED_CEILING_MS } from "../options/index.ts"
import { buildContinuePrompt } from "../prompts/continue.ts"
import { holdReason, type EngineContext } from "./context.ts"
import { exclusiveHostCall, lateLandingHoldMs, type CallOutcome, type CallReporter } from "./host-calls.ts"
import { errorText } from "./logger.ts"
import { openOwnAbort, ownAbortLanding, settleOwnAbort } from "./own-abort.ts"
import { promptCallOverdue, promptCallStarted } from "./own-prompt.ts"
import { stallBudgetMs } from "./watchdog.ts"
import { recoveryRecord, type RecoveryKind, type SessionState } from "./session-state.ts"

export function reporter(ctx: EngineContext, state: SessionState): CallReporter {
  return (label, outcome, error) => {
    if (outcome === "ok") return
    ctx.logger.fault(`${label}:${outcome}`, `session ${state.id}: ${label} ${outcome}${error ? `: ${errorText(error)}` : ""}`)
  }
}

/** False (and one log line) when the user episode's continue budget is spent. */
function withinLifetimeCap(ctx: EngineContext, state: SessionState, what: string): boolean {
  const cap = ctx.effective(state).lifetimeMaxContinues
  if (state.lifetimeContinues < cap) return true
  ctx.logger.log("info", `session ${state.id}: ${what} not sent: lifetime cap reached (${state.lifetimeContinues}/${cap}); waiting for the user`)
  return false
}

/**
 * Starts one recovery of any path: refused (one log line) at the lifetime cap, otherwise
 * counted against it and, with `record`, remembered as the session's last recovery, the one
 * the stall ladder escalates from.
 */
export function beginRecovery(ctx: EngineContext, state: SessionState, what: string, record?: { kind: RecoveryKind; reason: string }): boolean {
  if (!withinLifetimeCap(ctx, state, what)) return false
  state.lifetimeContinues++
  if (record) state.lastRecovery = recoveryRecord(state, record.kind, record.reason, ctx.time.now())
  return true
}

export type PromptRequest = { text: string | (() => string); kind: SendKind; label: string }

/**
 * A tool call younger than the wedged ceiling is running: no prompt and no abort may reach the
 * session, whatever decided it earlier (a recovery decided before the tool started must not be
 * carried out while it runs). The one exception, a proven live tool loop, passes `allowOpenTools`.
 */
function runningTool(ctx: EngineContext, state: SessionState): string | undefined {
  const now = ctx.time.now()
  for (const open of state.openTools.values()) {
    if (now - open.startedAt < TOOL_WEDGED_CEILING_MS) return `tool "${open.tool}" is running`
  }
  return undefined
}

function actionHold(ctx: EngineContext, state: SessionState, allowOpenTools: boolean): string | undefined {
  if (state.dropped) return "the session is no longer tracked"
  return holdReason(ctx, state) ?? (allowOpenTools ? undefined : runningTool(ctx, state))
}

/**
 * For a port that awaits something before its host call (SendRequest.stillWanted): the holds
 * again, and whether the session took a turn since the prompt was decided (the user wrote, the
 * model produced something, the run ended or started), which makes it an answer to a moment
 * that is over. The same rule as the stall path's re-check before it acts.
 */
function stillWanted(ctx: EngineContext, state: SessionState): () => string | undefined {
  const { lastGenuineUserAt, lastModelOutputAt, idleEpoch } = state
  return () => {
    const held = actionHold(ctx, state, false)
    if (held) return held
    if (state.lastGenuineUserAt !== lastGenuineUserAt) return "the user wrote"
    if (state.lastModelOutputAt !== lastModelOutputAt) return "the model produced output"
    if (state.idleEpoch !== idleEpoch) return "the run ended or started"
    return undefined
  }
}

/** Sends one prompt unless the session must be left alone right now. */
export async function sendPrompt(ctx: EngineContext, state: SessionState, request: PromptRequest): Promise<CallOutcome | "held"> {
  const held = actionHold(ctx, state, false)
  if (held) {
    ctx.logger.log("debug", `session ${state.id}: ${request.label} not sent: ${held}`)
    return "held"
  }
  const text = typeof request.text === "function" ? request.text() : request.text
  const options = ctx.effective(state)
  const outcome = await exclusiveHostCall(state, ctx.time, options.sendTimeoutMs, request.label, () => {
    promptCallStarted(state, ctx.time.now())
    return ctx.port.send({ sessionID: state.id, text, kind: request.kind, setup: state.setup, stillWanted: stillWanted(ctx, state) })
  }, reporter(ctx, state))
  if (outcome === "ok") state.lastSendAt = ctx.time.now()
  else if (outcome === "timeout") promptCallOverdue(state, ctx.time.now() + lateLandingHoldMs(stallBudgetMs(options)))
  return outcome
}

/** How long a prompt must wait so that it keeps `injectIntervalMs` from the previous one. */
function spacingWait(ctx: EngineContext, state: SessionState): number {
  if (state.lastSendAt === undefined) return 0
  return Math.max(0, state.lastSendAt + ctx.effective(state).injectIntervalMs - ctx.time.now())
}

/**
 * Aborts the running turn (marked as ours, so it is never read as ESC), then prompts after
 * ABORT_CONTINUE_DELAY_MS unless a new run started by itself meanwhile. `onSent` runs after
 * a successful prompt. Settles when the whole action is over: with the prompt's outcome once
 * its host call settled, or with undefined once it is known that no prompt will go out (held,
 * abort refused or failed, the pause cancelled, a run started by itself), so a caller can time
 * what follows from the prompt.
 */
export async function abortThenPrompt(
  ctx: EngineContext,
  state: SessionState,
  request: PromptRequest,
  onSent?: () => void,
  allowOpenTools = false,
): Promise<CallOutcome | "held" | undefined> {
  const held = actionHold(ctx, state, allowOpenTools)
  if (held) {
    ctx.logger.log("debug", `session ${state.id}: abort for ${request.label} not done: ${held}`)
    return undefined
  }
  if (ownAbortLanding(state, ctx.time.now())) {
    ctx.logger.log("debug", `session ${state.id}: abort for ${request.label} not done: our previous abort is not reported yet`)
    return undefined
  }
  const options = ctx.effective(state)
  const abortAt = ctx.time.now()
  // The host reports the abort (interrupted, idle) before the abort call returns: mark the
  // recovery as under way first, so that idle is not judged as a finished turn meanwhile.
  state.pendingAction?.()
  state.pendingAction = () => undefined
  // Opened only when the call really goes out: a refused one must not touch another's count.
  let called = false
  const abort = () => {
    called = true
    openOwnAbort(state, abortAt + options.sendTimeoutMs + options.gracePeriodMs + ABORT_CONTINUE_DELAY_MS)
    return ctx.port.abort(state.id)
  }
  const outcome = await exclusiveHostCall(state, ctx.time, options.sendTimeoutMs, "abort", abort, reporter(ctx, state))
  if (called && settleOwnAbort(state, outcome, ctx.time.now(), lateLandingHoldMs(stallBudgetMs(options))) === "user") {
    // The interruption that came while the call was out was not our abort's: the user's ESC.
    state.pendingAction = undefined
    ctx.logger.log("info", `session ${state.id}: the run was stopped while our abort was out (abort ${outcome}): that was the user`)
    ctx.userStopped(state)
    return undefined
  }
  if (outcome !== "ok" || !state.pendingAction) {
    state.pendingAction = undefined
    return undefined
  }
  // The prompt after the abort must also respect the send spacing, or the host refuses it and
  // the aborted session is left idle with nothing on its way.
  const delay = Math.max(ABORT_CONTINUE_DELAY_MS, spacingWait(ctx, state))
  ctx.logger.log("info", `session ${state.id}: aborted the run (${request.label}); prompting in ${delay}ms`)
  return await new Promise<CallOutcome | "held" | undefined>((done) => {
    const cancel = ctx.time.schedule(delay, () => {
      state.pendingAction = undefined
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
    })
    // Whoever cancels the pause (a user turn, ESC, another recovery) also ends the action.
    state.pendingAction = () => {
      cancel()
      done(undefined)
    }
  })
}

/**
 * A continue prompt for any recovery path: built at send time, so the counts it quotes are the
 * ones in force when it goes out. `attempt` defaults to 1 (paths without an episode ladder).
 */
export function continueRequest(
  ctx: EngineContext,
  state: SessionState,
  c: { reason: string; label: string; silentMs?: number; attempt?: () => number },
): PromptRequest {
  return {
    kind: "continue",
    label: c.label,
    text: () => {
      const options = ctx.effective(state)
      return buildContinuePrompt(
        {
          reason: c.reason,
          attempt: c.attempt?.() ?? 1,
          maxRetries: options.maxRetries,
          episodeContinue: state.lifetimeContinues,
          silentMs: c.silentMs ?? 0,
          now: ctx.time.now(),
        },
        options,
      )
    },
  }
}
