/**
 * Provider failures the host gave up on (OpenCode retries 429/5xx and dropped streams itself;
 * we see the `session.error` it emits when it stops, and on 2.x its proposals to retry): one
 * path for a failing provider, which waits (a rate limit), retries (a broken stream: the
 * failure chain), gives up, or moves the session to a fallback model instead of either.
 * The failure's kind is core/provider-failure.ts's; a context overflow is the context path's.
 */
import { explainFailure } from "../../core/provider-failure.ts"
import { isPermanent, type HostRetryDecision, type HostRetryProposal } from "../../core/host-retry.ts"
import { rateLimitGate } from "../../core/rate-limit.ts"
import type { Signal } from "../../core/port.ts"
import type { EffectOutcome, PathInput, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"
import { Draft, INITIAL_FAILING_PROVIDER, type FailingProvider, type Otherwise } from "./failing-provider.ts"
import { backToUserModel, configuredFallbackModels, dropSwitchAtIdle, retryScheduled, switchAtIdle, switchSettled, takeOver, userWrote } from "./fallback-switch.ts"
import { adoptWait, armWait, endWait, rateLimitHit, rateLimitRetry, resumeAfterWait, resumeSettled, waitHold, waitRuns, waitStatus } from "./rate-wait.ts"
import { chainSettled, feedChain, stillGaveUp, track } from "./streaming-chain.ts"

export const providerFailuresPath: RecoveryPath<FailingProvider> = {
  name: "provider-failures",
  /**
   * Not `interrupted` for the chain: after the user's ESC, mayAct refuses everything on
   * cancelledByUser (every tick, idle and send here asks it), and only a genuine user message
   * lifts that latch: the message that resets the chain. A wake left running meanwhile fires
   * into those holds or resets: a no-op.
   */
  signals: ["error", "idle", "busy", "modelOutput", "toolStart", "usage", "userMessage", "interrupted", "retryScheduled"],
  hears: ["retryProposed", "waitRestored", "dropped"],
  namesModels: (resolved) => ({ option: "fallbackModels", entries: configuredFallbackModels(resolved) }),
  initial: () => INITIAL_FAILING_PROVIDER,
  holds: waitHold,
  // A rate-limit wait must outlive the idle sweep, or its continue or its hold is lost.
  keeps: (state) => waitRuns(state) || state.back !== undefined,
  status(state) {
    const wait = waitStatus(state)
    return wait && { rateLimitWait: wait }
  },
  step(state, input, ctx) {
    return stepOf(state, input, ctx)
  },
}

function stepOf(state: FailingProvider, input: PathInput, ctx: StepContext): StepResult<FailingProvider> | undefined {
  const result = stepped(state, input, ctx)
  if (!(result?.state ?? state).back) return result
  // A return to the user's model is planned: every input is a chance to see the turn boundary.
  const d = new Draft(result?.state ?? state, ctx)
  d.effects.push(...(result?.effects ?? []))
  if (result?.retry) d.retry = result.retry
  backToUserModel(d)
  return d.result()
}

function stepped(state: FailingProvider, input: PathInput, ctx: StepContext): StepResult<FailingProvider> | undefined {
  switch (input.type) {
    case "signal":
      return onSignal(state, input.signal, ctx)
    case "wake": {
      const d = new Draft(state, ctx)
      d.wakeExactlyAt(undefined)
      tick(d)
      return d.result()
    }
    case "effectSettled": {
      const d = new Draft(state, ctx)
      settled(d, input.id, input.outcome)
      return d.result()
    }
    case "retryProposed": {
      const d = new Draft(state, ctx)
      d.retry = hostRetry(d, input.proposal)
      return d.result()
    }
    case "waitRestored": {
      const d = new Draft(state, ctx)
      track(d)
      adoptWait(d, input.wait)
      return d.result()
    }
    case "dropped": {
      if (!state.tracked) return undefined
      const d = new Draft(state, ctx)
      endWait(d, "the session left the table")
      return d.result()
    }
    default:
      return undefined
  }
}

function onSignal(state: FailingProvider, signal: Signal, ctx: StepContext): StepResult<FailingProvider> | undefined {
  // A healthy session costs nothing: only an error, or what the fallback part hears, starts a draft.
  const heard = state.tracked || state.switching !== undefined || ctx.session.fallback !== undefined || signal.type === "error" || signal.type === "retryScheduled"
  if (!heard) return undefined
  const d = new Draft(state, ctx)
  if (signal.type === "error") {
    track(d)
    onError(d, signal)
  } else if (state.tracked) {
    chainHeard(d, signal)
  }
  switch (signal.type) {
    case "retryScheduled":
      retryScheduled(d, signal)
      break
    case "idle":
      switchAtIdle(d)
      break
    case "interrupted":
      if (signal.byUser) dropSwitchAtIdle(d)
      break
    case "userMessage":
      if (signal.genuine) userWrote(d, signal.setup)
      break
  }
  return d.result()
}

/** What the chain and the wait make of a signal once the session had a provider error. */
function chainHeard(d: Draft, signal: Signal): void {
  switch (signal.type) {
    case "idle":
      return feedChain(d, { type: "idle" })
    case "busy":
      return feedChain(d, { type: "busy" })
    case "modelOutput":
    case "toolStart":
      endWait(d, "the model answered")
      return feedChain(d, { type: "modelOutput" })
    case "interrupted":
      // Only the user's stop ends a wait here; the holds still refuse everything after it.
      if (signal.byUser) endWait(d, "the user's ESC")
      return
    case "usage":
      // This very signal grew the token total (apply-signal stamped it with the time the engine was handed).
      if (d.session.lastModelOutputAt === d.session.lastSeenAt) {
        endWait(d, "the model answered")
        feedChain(d, { type: "modelOutput" })
      }
      return
    case "userMessage":
      // Our own prompt showing up: the chain's watchdog waits for it (K16).
      if (!signal.genuine) return feedChain(d, { type: "ownPromptSeen" })
      endWait(d, "the user wrote")
      return feedChain(d, { type: "genuineUser" })
  }
}

function onError(d: Draft, signal: Extract<Signal, { type: "error" }>): void {
  const verdict = explainFailure(signal, d.options())
  switch (verdict.kind) {
    case "rate-limit":
      return rateLimitHit(d, signal, verdict.why)
    case "context-overflow":
      // the context path's: held while the host compacts, compacted by us where it does not.
      return
    case "streaming": {
      const before = d.state.failure.consecutive
      feedChain(d, { type: "failure", name: signal.name })
      const consecutive = d.state.failure.consecutive
      const next = consecutive > before ? `our recovery ended in it with no model output (${consecutive} in a row); same incident` : "recovery armed"
      d.log("info", `session ${d.session.id}: streaming failure (${verdict.why}); ${next}`)
      return
    }
    default: {
      const notRecovered: Otherwise = { kind: "not-recovered", text: `session ${d.session.id}: error not recovered (${verdict.kind}: ${verdict.why})` }
      // The model itself cannot serve the session (it is gone, or its provider refuses us): a
      // fallback model, where one is listed, takes over now; waiting would change nothing.
      if (verdict.modelBound && takeOver(d, { why: verdict.why, waitMs: Infinity, hostRetrying: false, otherwise: notRecovered, instead: "nothing is sent (a retry fails the same way)" })) return
      otherwise(d, notRecovered)
    }
  }
}

/**
 * The host's own retry of a failure (core/host-retry.ts): a rate limit keeps the host's delay
 * (or the provider's longer Retry-After) as its one wait, a permanent failure is not retried
 * (the run fails now and onError answers it as usual).
 */
function hostRetry(d: Draft, proposal: HostRetryProposal): HostRetryDecision | undefined {
  const verdict = explainFailure(proposal, d.options())
  if (verdict.kind === "rate-limit") return rateLimitRetry(d, proposal, verdict.why)
  if (!isPermanent(verdict)) return undefined
  d.log("info", `session ${d.session.id}: the host's retry ${proposal.attempt} is cancelled: ${verdict.why}; a retry fails the same way`)
  return { retry: false }
}

/** The path's wake: the end of a rate-limit wait, or the chain's next look. */
function tick(d: Draft): void {
  const gate = rateLimitGate(d.state.rate, d.now)
  if (gate.kind === "wait" || gate.kind === "resume") {
    // A pause or the user's ESC ends the wait (and its entry in the wait file), not just holds it.
    const ender = d.ctx.paused() ? "a pause" : d.session.cancelledByUser ? "the user's ESC" : undefined
    if (ender) {
      endWait(d, ender)
      return feedChain(d, { type: "tick" })
    }
    // Looked at every check interval, so a pause is seen while the wait runs.
    if (gate.kind === "wait") d.wakeExactlyAt(Math.min(gate.allowedAt, d.now + d.options().checkIntervalMs))
  }
  if (gate.kind === "resume") return resumeAfterWait(d, d.ctx.mayAct("touch")?.reason)
  if (d.state.tracked) feedChain(d, { type: "tick" })
}

/** An effect of the path's is over: a prompt of the chain or the wait, or a step of a switch. */
function settled(d: Draft, id: number, outcome: EffectOutcome): void {
  if (switchSettled(d, id, outcome, (o) => otherwise(d, o))) return
  if (outcome.kind !== "delivered") return
  const sent = d.takeSent(id)
  if (sent?.what === "chain") chainSettled(d, sent.kind, outcome.outcome)
  else if (sent?.what === "resume") resumeSettled(d, sent.resumed, outcome.outcome)
}

/** What an offering part does when no fallback model took the session after all. */
function otherwise(d: Draft, o: Otherwise): void {
  switch (o.kind) {
    case "give-up":
      return stillGaveUp(d, o.latched, o.reason)
    case "not-recovered":
      return d.log("debug", o.text)
    case "wait":
      if (d.state.rate === o.before) armWait(d, o.registered, o.at, o.why)
      return
  }
}
