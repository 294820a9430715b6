/**
 * The recovery ladder for a stalled busy session, as a pure decision.
 *
 * Three budgets answer three different questions:
 *  - `stallEpisodeMaxContinues`: how many continues one episode may take; an episode restarts when the
 *    model produces output again, so a stall that keeps coming back gets fresh tries;
 *  - `loopMaxContinues` within `loopWindowMs`: continues that arrive too fast mean the
 *    continues themselves are not helping (a hallucination loop): abort, then continue fresh;
 *  - `lifetimeMaxContinues`: a ceiling per genuine user episode that model output never
 *    resets, so a model that "finishes" forever is stopped and waits for the user.
 */
import type { EffectOf } from "../../core/effect.ts"
import { backoffDelay, continuesInWindow } from "../../core/ladder.ts"
import type { RecoveryKind, RecoveryRecord } from "../../core/session-state.ts"

export type StallStrategy = "continue" | "abort" | "off"

export type LadderBudgets = {
  busyStallStrategy: StallStrategy
  stallEpisodeMaxContinues: number
  baseBackoffMs: number
  maxBackoffMs: number
  loopMaxContinues: number
  loopWindowMs: number
  lifetimeMaxContinues: number
}

export type LadderInput = {
  now: number
  /** The session's runEpoch: identifies the current run (as the host reported it). */
  busyEpoch: number
  episodeRetries: number
  recentContinues: readonly number[]
  lifetimeContinues: number
  lastRecovery?: RecoveryRecord
  lastModelOutputAt: number
}

export type StallRung = EffectOf<"continue" | "abort-continue">

/** `stand-down`: a budget is spent, nothing until output or the user. */
export type LadderStep = { effect: StallRung | EffectOf<"stand-down" | "none">; delayMs: number }

export function recoveryKindOf(rung: StallRung["kind"]): RecoveryKind {
  return rung === "continue" ? "continue" : "abort+continue"
}

function step(kind: LadderStep["effect"]["kind"], reason: string, delayMs = 0): LadderStep {
  return { effect: { kind, reason }, delayMs }
}

export function decideStallRecovery(input: LadderInput, budgets: LadderBudgets): LadderStep {
  if (budgets.busyStallStrategy === "off") return step("none", "busyStallStrategy is off")
  if (input.lifetimeContinues >= budgets.lifetimeMaxContinues) {
    return step("stand-down", `lifetime cap reached (${input.lifetimeContinues}/${budgets.lifetimeMaxContinues}); waiting for the user`)
  }
  if (input.episodeRetries >= budgets.stallEpisodeMaxContinues) {
    return step("stand-down", `retries exhausted (${input.episodeRetries}/${budgets.stallEpisodeMaxContinues}) with no model output since`)
  }
  const delayMs = backoffDelay(input.episodeRetries, budgets.baseBackoffMs, budgets.maxBackoffMs)
  const inWindow = continuesInWindow(input.recentContinues, input.now, budgets.loopWindowMs)
  if (inWindow >= budgets.loopMaxContinues) return step("abort-continue", `hallucination loop (${inWindow} continues in window)`, delayMs)
  if (budgets.busyStallStrategy === "abort") return step("abort-continue", "abort-first strategy", delayMs)
  // A continue into a live runner only joins its inbox: after one that brought no output, abort
  // first. Judged by identity (epoch, output stamp), not clock order: a clock stepped back must
  // not make the same continue look new.
  const last = input.lastRecovery
  if (last && last.epoch === input.busyEpoch && last.outputAt === input.lastModelOutputAt) {
    return step("abort-continue", "previous continue did not revive the run", delayMs)
  }
  return step("continue", "stream stalled", delayMs)
}

export type HostRunState = "live" | "stopped" | "unknown"

/**
 * A live run is aborted first: a prompt would wait in its inbox for a step boundary a hung
 * stream never reaches. With no answer from the host, no abort on a guess.
 */
export function stallActionFor(rung: StallRung["kind"], host: HostRunState): { kind: StallRung["kind"]; note: string } {
  if (rung !== "continue") return { kind: rung, note: "" }
  if (host === "live") return { kind: "abort-continue", note: "the host still runs it: a prompt would only wait in its inbox" }
  if (host === "stopped") return { kind: "continue", note: "the host no longer runs it" }
  return { kind: "continue", note: "the host did not say whether it still runs it: no abort on a guess" }
}
