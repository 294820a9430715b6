/**
 * The one place an effect that reaches the host is carried out: a continue, an abort and
 * continue, a nudge, a command or a compaction, for every recovery path. What differs between
 * the paths (which budget a recovery counts against, whether an unsent prompt gives its count
 * back) travels with the effect as data (`Delivery`), so this code is the same for all of them.
 * The few hooks a Delivery may carry (the abort committed or vetoed, the prompt sent) are the
 * runtime's own (runtime/effects.ts), which turns them into the path's `effectSettled` inputs:
 * a path never hands a callback here.
 */
import type { EffectOf } from "./effect.ts"
import { abortThenPrompt, beginRecovery, continueRequest, sendPrompt, uncountUnsent, type OpenCallException, type PromptRequest } from "./actions.ts"
import type { EngineContext } from "./context.ts"
import { exclusiveHostCall, reporter } from "./host-calls.ts"
import { note, type CallOutcome } from "./intervention.ts"
import { errorText } from "./logger.ts"
import type { JournalTag } from "./journal.ts"
import { journalGaveUp, journalOutcome, watchedDelivery, type AbortSeen } from "./journal-effects.ts"
import { countFeature, type RecoveryKind, type SessionState } from "./session-state.ts"

/** How an action ended: the prompt's (or call's) outcome, "held" at the last moment, or undefined when nothing went out. */
export type Outcome = CallOutcome | "held" | undefined

export type Delivery = {
  /** The host call's label in the log ("send continue"). */
  label: string
  /**
   * Counted as a recovery first (actions.ts beginRecovery): refused at the lifetime cap, and
   * then nothing goes out and no hook runs. `record` makes it the session's last recovery;
   * `refundUnsent` gives the count back when the prompt never reached the session; `charge`
   * counts a use of a feature; `oncePerTurn` marks a feature sent until the next turn.
   */
  budget?: { what: string; record?: { kind: RecoveryKind; reason: string }; refundUnsent?: boolean; charge?: string; oncePerTurn?: string }
  /** One info line once the budget allowed the action. */
  announce?: string
  /** Lets the abort end an open call (see OpenCallException). */
  exception?: OpenCallException
  /** The continue's "Attempt k" read at send time (defaults to the effect's `attempt`). */
  attempt?: () => number
  /** How long the session was silent, quoted by the continue. */
  silentMs?: number
  /** Every check and the abort veto passed; the abort goes out next. */
  onCommit?: () => void
  /** The abort was stopped at its last look. */
  onVetoed?: (why: string) => void
  /** The prompt reached the session. */
  onSent?: () => void
  /** What the history says this was (journal.ts); default: the budget's name and the effect's reason. */
  journal?: JournalTag
}

export type HostEffect = EffectOf<"continue" | "abort-continue" | "nudge" | "command" | "compact">

function continueFor(ctx: EngineContext, target: SessionState, effect: EffectOf<"continue" | "abort-continue">, via: Delivery): PromptRequest {
  if (effect.kind === "abort-continue" && effect.text !== undefined) return { text: effect.text, kind: effect.sendKind ?? "correction", label: via.label }
  const fixed = effect.attempt
  return continueRequest(ctx, target, {
    reason: effect.reason,
    label: via.label,
    silentMs: via.silentMs,
    attempt: via.attempt ?? (fixed === undefined ? undefined : () => fixed),
    maxAttempts: effect.maxAttempts,
  })
}

async function carryOut(ctx: EngineContext, target: SessionState, effect: HostEffect, via: Delivery): Promise<Outcome> {
  switch (effect.kind) {
    case "continue": {
      const sent = await sendPrompt(ctx, target, continueFor(ctx, target, effect, via))
      if (sent === "ok") via.onSent?.()
      return sent
    }
    case "nudge": {
      const sent = await sendPrompt(ctx, target, { text: effect.text, kind: effect.sendKind, label: via.label })
      if (sent === "ok") via.onSent?.()
      return sent
    }
    case "abort-continue":
      return await abortThenPrompt(ctx, target, continueFor(ctx, target, effect, via), via.onSent, via.exception, { commit: via.onCommit, vetoed: via.onVetoed })
    case "command":
      return await exclusiveHostCall(target, ctx.time, ctx.effective(target).sendTimeoutMs, via.label, () => ctx.port.command(target.id, effect.name, effect.args), reporter(ctx, target))
    case "compact":
      return await exclusiveHostCall(target, ctx.time, ctx.effective(target).sendTimeoutMs, via.label, () => ctx.port.compact(target.id, target.setup), reporter(ctx, target))
  }
}

/** Carries out one effect on `target`, delivered as `via` says. Never throws; settles when the action is decided. */
export async function runEffect(ctx: EngineContext, target: SessionState, effect: HostEffect, via: Delivery): Promise<Outcome> {
  const budget = via.budget
  try {
    if (budget) {
      if (!beginRecovery(ctx, target, budget.what, budget.record)) return void journalGaveUp(ctx, target, effect, via)
      if (budget.charge) countFeature(target, budget.charge)
      if (budget.oncePerTurn) note(target.intervention, { type: "nudgeSent", feature: budget.oncePerTurn }, ctx.time.now())
    }
    if (via.announce) ctx.logger.log("info", via.announce)
  } catch (error) {
    ctx.logger.fault("effect", `session ${target.id}: ${effect.kind} failed: ${errorText(error)}`)
    return undefined
  }
  let outcome: Outcome
  const seen: AbortSeen = { committed: false }
  try {
    outcome = await carryOut(ctx, target, effect, watchedDelivery(via, seen))
  } catch {
    outcome = undefined
  }
  try {
    journalOutcome(ctx, target, effect, via, outcome, seen)
    // Only a prompt that reached the session counts against lifetimeMaxContinues.
    if (budget?.refundUnsent && uncountUnsent(target, outcome)) ctx.logger.log("debug", `session ${target.id}: ${budget.what} not sent (${outcome ?? "no continue"}); not counted`)
  } catch (error) {
    // Runs after a host call settled: nothing must reach the host as an unhandled rejection.
    ctx.logger.fault("effect", `session ${target.id}: after ${via.label}: ${errorText(error)}`)
  }
  return outcome
}
