/**
 * The streaming-failure chain of a failing provider (failure-chain.ts decides it) sequenced in
 * time: fed by the session's signals and by the outcomes of its own prompts, held while the
 * session may not be prompted, and given to a fallback model instead of giving up.
 */
import { promptSpacing } from "../../core/session-state.ts"
import type { EffectOf } from "../../core/effect.ts"
import type { Outcome } from "../../core/run-effect.ts"
import type { Options } from "../../options/index.ts"
import { INITIAL_FAILURE_STATE, chainPending, nextFailureStep, type FailureEvent, type FailureState } from "./failure-chain.ts"
import type { Draft } from "./failing-provider.ts"
import { takeOver } from "./fallback-switch.ts"
import { abortResumeReason, streamingFailureReason } from "./prompts.ts"

export const FAILURE_LABEL = "send failure recovery"

/** The continue a failure recovery (or the rate-limit wait's end) sends: "Attempt k/n" of the prompt budget. */
export function failureContinue(options: Options, reason: string, attempt = 1): EffectOf<"continue"> {
  return { kind: "continue", reason, attempt, maxAttempts: options.streamingFailureMaxPrompts }
}

/**
 * The session's first provider error: from now on the path follows it. The chain starts from the
 * session's busy state, the one fact it would otherwise have learnt from earlier signals.
 */
export function track(d: Draft): void {
  if (d.state.tracked) return
  d.state.tracked = true
  d.state.failure = { ...INITIAL_FAILURE_STATE, busy: d.session.busy }
  // From now on the chain hears the session's model output (it lifts a give-up, ends an incident).
  d.effects.push({ kind: "watch-output" })
}

/**
 * Feeds the chain. A tick or idle, the events that can make it act, waits while a hold says
 * the session must be left alone, or while a prompt of ours (any path's) is still on its way: a
 * recovery prompt now would land behind it. The chain still learns that the session went idle,
 * and looks again when the wait may be over. A recovery prompt due before the send spacing
 * (injectIntervalMs) allows is not taken yet either, but scheduled for when it does: the host
 * would refuse it (a dead endpoint fails our prompt about a second after it went out, so the
 * next one is always due too early).
 */
export function feedChain(d: Draft, event: FailureEvent): void {
  const s = d.state
  const now = d.now
  const options = d.options()
  if (event.type === "tick" || event.type === "idle") {
    // A guard is looked at again a check interval later; a prompt of ours, once it may have landed.
    const held = d.ctx.mayAct("prompt")
    if (held) {
      if (event.type === "idle") s.failure = { ...s.failure, busy: false }
      if (chainPending(s.failure)) d.wakeAt(held.until ?? now + options.checkIntervalMs)
      return
    }
  }
  let step = nextFailureStep(s.failure, event, now, options)
  const spacing = step.effect.kind === "continue" ? promptSpacing(d.session, options.injectIntervalMs, now) : 0
  // Handed back before it goes out, as the host would refuse it: due again once spacing allows.
  if (spacing > 0) step = nextFailureStep(step.state, { type: "refused", retryAt: now + spacing }, now, options)
  const action = step.effect
  s.failure = step.state
  d.wakeAt(step.wakeAt)
  if (action.kind === "none") return
  if (action.kind === "stand-down") return standDown(d, action.reason)
  const kind = action.kind === "continue" ? "continue" : "abort+continue"
  // Only a prompt that reached the session counts against lifetimeMaxContinues.
  const budget = { what: "failure recovery", record: { kind, reason: `provider failure (${s.failure.reason})` }, refundUnsent: true } as const
  // The continue quotes the incident's recovery number ("Attempt k/n"), capped at the budget
  // for abort + resume after every prompt was spent.
  const attempt = Math.min(action.attempt, action.maxAttempts)
  const id = d.nextId()
  if (action.kind === "continue") {
    d.remember({ id, what: "chain", kind: "continue" })
    const reason = streamingFailureReason(action.reason, action.attempt, action.maxAttempts)
    d.effects.push({
      kind: "act",
      id,
      effect: failureContinue(options, reason, attempt),
      via: { label: FAILURE_LABEL, budget, announce: `session ${d.session.id}: streaming failure ${action.reason}: recovery prompt ${action.attempt}/${action.maxAttempts}` },
    })
    return
  }
  d.remember({ id, what: "chain", kind: "abort-continue" })
  const rung = action.attempt <= action.maxAttempts ? `recovery ${action.attempt}/${action.maxAttempts}` : "after the last prompt"
  const reason = abortResumeReason(s.failure.reason, action.attempt, action.maxAttempts)
  d.effects.push({
    kind: "act",
    id,
    effect: { ...failureContinue(options, reason, attempt), kind: "abort-continue" },
    via: { label: FAILURE_LABEL, budget, announce: `session ${d.session.id}: ${action.reason}; abort + resume (${rung})` },
  })
}

/**
 * A recovery prompt of the chain is over. Its watchdog starts when the host has taken the prompt
 * (or refused it), not when it was decided: for abort + resume that is the continue sent seconds
 * after the abort.
 */
export function chainSettled(d: Draft, kind: "continue" | "abort-continue", outcome: Outcome): void {
  if (kind === "continue" && (outcome === "held" || outcome === "busy")) {
    // It never reached the host: not an attempt; the same prompt again once it may go.
    const options = d.options()
    return feedChain(d, { type: "refused", retryAt: d.now + Math.max(options.checkIntervalMs, promptSpacing(d.session, options.injectIntervalMs, d.now)) })
  }
  // Past sendTimeoutMs the host may still carry the prompt out: not judged before it could
  // land (sendPrompt noted until when).
  feedChain(d, { type: "sent", mayLandUntil: outcome === "timeout" ? d.session.intervention.prompt.overdueUntil : undefined })
}

/** The chain gives up: a fallback model may take over instead; the next model's failures get a chain of their own. */
function standDown(d: Draft, reason: string): void {
  const latched = d.state.failure
  const offer = { why: `the endpoint keeps failing: ${reason}`, waitMs: Infinity, hostRetrying: false, instead: "the failure recovery gives up as usual" }
  if (takeOver(d, { ...offer, otherwise: { kind: "give-up", latched, reason } })) {
    d.state.failure = { ...INITIAL_FAILURE_STATE, busy: d.state.failure.busy }
    return
  }
  gaveUp(d, latched, reason)
}

/** The switch a give-up was handed to did not happen after all: the give-up stands as it would have. */
export function stillGaveUp(d: Draft, latched: FailureState, reason: string): void {
  const failure = d.state.failure
  if (failure.phase === "clear" && failure.attempts === 0) d.state.failure = { ...latched, busy: failure.busy }
  gaveUp(d, latched, reason)
}

function gaveUp(d: Draft, latched: FailureState, reason: string): void {
  d.log("warn", `session ${d.session.id}: streaming-failure recovery gave up: ${reason}`)
  d.effects.push({ kind: "journal-refused", tag: { trigger: "provider failure", evidence: latched.reason || "the endpoint keeps failing" }, action: "continue", why: "gave up", reason })
}
