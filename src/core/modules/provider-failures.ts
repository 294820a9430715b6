/**
 * Provider failures the host gave up on (OpenCode retries 429/5xx and dropped streams itself;
 * we only see the `session.error` it emits when it stops): the streaming-failure chain, the
 * rate-limit wait (rate-limit-wait.ts), fed by signals, returning what to send to the engine's
 * effect runner (run-effect.ts). Decisions live in provider-failure.ts, failure-chain.ts and
 * rate-limit.ts; this file sequences them in time. A context overflow is the context path's (paths/context/).
 */
import type { Signal } from "../port.ts"
import { abortResumeReason, streamingFailureReason } from "../../prompts/failures.ts"
import { formatLocalTime } from "../../prompts/format.ts"
import { spacingWait } from "../actions.ts"
import type { EngineContext } from "../context.ts"
import { INITIAL_FAILURE_STATE, chainPending, nextFailureStep, type FailureEvent, type FailureState } from "../failure-chain.ts"
import type { EffectOf } from "../effect.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { planned, type Outcome, type Planned } from "../run-effect.ts"
import type { Wake } from "../scheduler.ts"
import { explainFailure } from "../provider-failure.ts"
import { isPermanent, type HostRetryDecision, type HostRetryProposal } from "../host-retry.ts"
import { INITIAL_RATE_LIMIT_STATE, rateLimitGate } from "../rate-limit.ts"
import type { SessionState } from "../session-state.ts"
import { NO_MIRROR } from "../rate-wait-mirror.ts"
import { rateLimitWaits, type RateTracked } from "./rate-limit-wait.ts"

type Tracked = RateTracked & { failure: FailureState }

export function providerFailuresModule({ ctx, wakeAt: wakeSessionAt }: ModuleEnv): EngineModule {
  const tracked = new Map<string, Tracked>()
  /**
   * A session gets an entry at its first provider error, not before: until then every chain,
   * gate and lock is in its initial state and nothing needs feeding, so a healthy session
   * costs this module neither memory nor time. The chain starts from the session's busy state,
   * the one fact it would otherwise have learnt from earlier signals.
   */
  const trackFailure = (state: SessionState): Tracked => {
    let t = tracked.get(state.id)
    if (!t) {
      t = { failure: { ...INITIAL_FAILURE_STATE, busy: state.busy }, rate: INITIAL_RATE_LIMIT_STATE, rateHitAt: 0, mirror: NO_MIRROR }
      tracked.set(state.id, t)
      // From now on the chain hears this session's model output (it lifts a give-up, ends an incident).
      state.outputWatched = true
    }
    return t
  }

  /**
   * (Re)asks for the module's wake. The chain and the rate-limit wait share it: a chain wake
   * never pushes back the end of a running rate-limit wait (tick() looks at both).
   */
  function wakeAt(state: SessionState, t: RateTracked, at: number | undefined): void {
    if (at === undefined) return
    const gate = rateLimitGate(t.rate, ctx.time.now())
    wakeSessionAt(state, gate.kind === "wait" ? Math.min(at, gate.allowedAt) : at)
  }

  const waits = rateLimitWaits({ ctx, wakeAt, continueOf: (state, reason) => failureContinue(ctx, state, reason), label: FAILURE_LABEL })

  function tick(state: SessionState, t: Tracked, wake: Wake): Planned | undefined {
    const gate = rateLimitGate(t.rate, wake.now)
    if (gate.kind === "wait" || gate.kind === "resume") {
      // A pause or the user's ESC ends the wait (and its entry in the wait file), not just holds it.
      const ender = ctx.pauses.isPaused(state.id) ? "a pause" : state.cancelledByUser ? "the user's ESC" : undefined
      if (ender) {
        waits.end(state, t, ender)
        return feed(state, t, { type: "tick" })
      }
      // Looked at every check interval, so a pause is seen while the wait runs.
      if (gate.kind === "wait") wakeSessionAt(state, Math.min(gate.allowedAt, wake.now + ctx.effective(state).checkIntervalMs))
    }
    if (gate.kind === "resume") return waits.resume(state, t, wake.hold)
    return feed(state, t, { type: "tick" })
  }

  /**
   * Feeds the streaming chain. A tick or idle, the events that can make it act, waits while a
   * hold says the session must be left alone, or while a prompt of ours (any path's) is still
   * on its way: a recovery prompt now would land behind it. The chain still learns that the
   * session went idle, and looks again when the wait may be over. A recovery prompt due before
   * the send spacing (injectIntervalMs) allows is not taken yet either, but scheduled for when
   * it does: the host would refuse it (a dead endpoint fails our prompt about a second after it
   * went out, so the next one is always due too early).
   */
  function feed(state: SessionState, t: Tracked, event: FailureEvent): Planned | undefined {
    if (event.type === "tick" || event.type === "idle") {
      const now = ctx.time.now()
      // A guard is looked at again a check interval later; a prompt of ours, once it may have landed.
      const held = ctx.mayAct(state, "prompt", now)
      const wait = held && (held.until ?? now + ctx.effective(state).checkIntervalMs)
      if (wait !== undefined) {
        if (event.type === "idle") t.failure = { ...t.failure, busy: false }
        if (chainPending(t.failure)) wakeAt(state, t, wait)
        return undefined
      }
    }
    const now = ctx.time.now()
    let step = nextFailureStep(t.failure, event, now, ctx.effective(state))
    const spacing = step.effect.kind === "continue" ? spacingWait(ctx, state) : 0
    // Handed back before it goes out, as the host would refuse it: due again once spacing allows.
    if (spacing > 0) step = nextFailureStep(step.state, { type: "refused", retryAt: now + spacing }, now, ctx.effective(state))
    const action = step.effect
    t.failure = step.state
    wakeAt(state, t, step.wakeAt)
    if (action.kind === "none") return undefined
    if (action.kind === "stand-down") {
      const latched = t.failure
      const gaveUp = () => {
        ctx.logger.log("warn", `session ${state.id}: streaming-failure recovery gave up: ${action.reason}`)
        ctx.journal?.refused(state, { trigger: "provider failure", evidence: latched.reason || "the endpoint keeps failing" }, "continue", "gave up", action.reason)
      }
      // When the switch does not happen after all, the give-up stands as it would have.
      const stillGaveUp = () => {
        if (t.failure.phase === "clear" && t.failure.attempts === 0) t.failure = { ...latched, busy: t.failure.busy }
        gaveUp()
      }
      // A fallback model may take over instead; the next model's failures get a chain of their own.
      if (ctx.offerTakeOver(state, { why: `the endpoint keeps failing: ${action.reason}`, waitMs: Infinity, hostRetrying: false, otherwise: stillGaveUp, instead: "the failure recovery gives up as usual" })) {
        t.failure = { ...INITIAL_FAILURE_STATE, busy: t.failure.busy }
        return undefined
      }
      gaveUp()
      return undefined
    }
    const kind = action.kind === "continue" ? "continue" : "abort+continue"
    // The chain's watchdog starts when the host has taken the prompt (or refused it), not now:
    // for abort + resume that is the continue sent seconds after the abort.
    const settled = (outcome: Outcome): Planned | undefined => {
      if (tracked.get(state.id) !== t) return undefined
      if (action.kind === "continue" && (outcome === "held" || outcome === "busy")) {
        // It never reached the host: not an attempt; the same prompt again once it may go.
        const now = ctx.time.now()
        return feed(state, t, { type: "refused", retryAt: now + Math.max(ctx.effective(state).checkIntervalMs, spacingWait(ctx, state)) })
      }
      // Past sendTimeoutMs the host may still carry the prompt out: not judged before it could
      // land (sendPrompt noted until when).
      return feed(state, t, { type: "sent", mayLandUntil: outcome === "timeout" ? state.intervention.prompt.overdueUntil : undefined })
    }
    // Only a prompt that reached the session counts against lifetimeMaxContinues.
    const budget = { what: "failure recovery", record: { kind, reason: `provider failure (${t.failure.reason})` }, refundUnsent: true } as const
    // The continue quotes the incident's recovery number ("Attempt k/n"), capped at the budget
    // for abort + resume after every prompt was spent.
    const attempt = Math.min(action.attempt, action.maxAttempts)
    if (action.kind === "continue") {
      const reason = streamingFailureReason(action.reason, action.attempt, action.maxAttempts)
      return planned(failureContinue(ctx, state, reason, attempt), {
        label: FAILURE_LABEL,
        budget,
        announce: `session ${state.id}: streaming failure ${action.reason}: recovery prompt ${action.attempt}/${action.maxAttempts}`,
        onSettled: settled,
      })
    }
    const rung = action.attempt <= action.maxAttempts ? `recovery ${action.attempt}/${action.maxAttempts}` : "after the last prompt"
    const reason = abortResumeReason(t.failure.reason, action.attempt, action.maxAttempts)
    return planned(
      { ...failureContinue(ctx, state, reason, attempt), kind: "abort-continue" },
      { label: FAILURE_LABEL, budget, announce: `session ${state.id}: ${action.reason}; abort + resume (${rung})`, onSettled: settled },
    )
  }

  function onError(state: SessionState, t: Tracked, signal: Extract<Signal, { type: "error" }>): Planned | undefined {
    const options = ctx.effective(state)
    const verdict = explainFailure(signal, options)
    switch (verdict.kind) {
      case "rate-limit":
        waits.hit(state, t, signal, verdict.why)
        return undefined
      case "context-overflow":
        // the context path's: held while the host compacts, compacted by us where it does not.
        return undefined
      case "streaming": {
        const before = t.failure.consecutive
        const plan = feed(state, t, { type: "failure", name: signal.name })
        const again = t.failure.consecutive > before
        const next = again ? `our recovery ended in it with no model output (${t.failure.consecutive} in a row); same incident` : "recovery armed"
        ctx.logger.log("info", `session ${state.id}: streaming failure (${verdict.why}); ${next}`)
        return plan
      }
      default: {
        const notRecovered = () => ctx.logger.log("debug", `session ${state.id}: error not recovered (${verdict.kind}: ${verdict.why})`)
        // The model itself cannot serve the session (it is gone, or its provider refuses us): a
        // fallback model, where one is listed, takes over now; waiting would change nothing.
        if (verdict.modelBound && ctx.offerTakeOver(state, { why: verdict.why, waitMs: Infinity, hostRetrying: false, otherwise: notRecovered, instead: "nothing is sent (a retry fails the same way)" })) return undefined
        notRecovered()
        return undefined
      }
    }
  }

  /**
   * The host's own retry of a failure (host-retry.ts): a rate limit keeps the host's delay (or
   * the provider's longer Retry-After) as its one wait, a permanent failure is not retried (the
   * run fails now and onError answers it as usual).
   */
  function hostRetry(state: SessionState, proposal: HostRetryProposal): HostRetryDecision | undefined {
    const verdict = explainFailure(proposal, ctx.effective(state))
    if (verdict.kind === "rate-limit") return waits.hostRetry(state, proposal, verdict.why)
    if (!isPermanent(verdict)) return undefined
    ctx.logger.log("info", `session ${state.id}: the host's retry ${proposal.attempt} is cancelled: ${verdict.why}; a retry fails the same way`)
    return { retry: false }
  }

  return {
    name: "provider-failures",
    hostRetry,
    /**
     * Not `interrupted`: after the user's ESC, mayAct refuses everything on cancelledByUser
     * before it asks this module (every tick, idle and send here is gated by it), and only a
     * genuine user message lifts that latch: the message that resets the gate and the
     * chain below. A wake timer left running meanwhile fires into those holds or resets: a no-op.
     */
    signals: ["error", "idle", "busy", "modelOutput", "toolStart", "usage", "userMessage", "interrupted"],
    onSignal(state, signal) {
      if (signal.type === "error") return onError(state, trackFailure(state), signal)
      const t = tracked.get(state.id)
      if (!t) return undefined
      switch (signal.type) {
        case "idle":
          return feed(state, t, { type: "idle" })
        case "busy":
          return feed(state, t, { type: "busy" })
        case "modelOutput":
        case "toolStart":
          waits.end(state, t, "the model answered")
          return feed(state, t, { type: "modelOutput" })
        case "interrupted":
          // Only the user's stop ends a wait here; the holds still refuse everything after it.
          if (signal.byUser) waits.end(state, t, "the user's ESC")
          return undefined
        case "usage":
          // This very signal grew the token total (apply-signal stamped it with the time the engine was handed).
          if (state.lastModelOutputAt === state.lastSeenAt) {
            waits.end(state, t, "the model answered")
            return feed(state, t, { type: "modelOutput" })
          }
          return undefined
        case "userMessage":
          // Our own prompt showing up: the chain's watchdog waits for it (K16).
          if (!signal.genuine) return feed(state, t, { type: "ownPromptSeen" })
          waits.end(state, t, "the user wrote")
          return feed(state, t, { type: "genuineUser" })
      }
    },
    onWake(state, wake) {
      const t = tracked.get(state.id)
      return t && tick(state, t, wake)
    },
    hold(state) {
      const t = tracked.get(state.id)
      if (!t) return undefined
      const gate = rateLimitGate(t.rate, ctx.time.now())
      if (gate.kind === "wait") return `rate limited until ${formatLocalTime(gate.allowedAt)}`
      if (gate.kind === "silent-until-user") return "rate limited past the cooldown ladder; waiting for the user"
      return undefined
    },
    // A rate-limit wait (the default first rung is 15 minutes, past the idle sweep) must outlive
    // the sweep, or the continue or the hold is lost (a pending wake keeps the session anyway).
    keepsSession(state) {
      const t = tracked.get(state.id)
      if (!t) return false
      return rateLimitGate(t.rate, ctx.time.now()).kind !== "none"
    },
    adoptWait(state, wait) {
      waits.adopt(state, trackFailure(state), wait)
      return true
    },
    rateWait(state) {
      const t = tracked.get(state.id)
      if (!t || t.rate.phase !== "waiting") return undefined
      return { until: t.rate.allowedAt, rung: t.rate.hits, carriedOver: t.mirror.carriedOver }
    },
    forget(state) {
      const t = tracked.get(state.id)
      if (t) waits.end(state, t, "the session left the table")
      tracked.delete(state.id)
    },
    dispose() {
      tracked.clear()
    },
  }
}

const FAILURE_LABEL = "send failure recovery"

function failureContinue(ctx: EngineContext, state: SessionState, reason: string, attempt = 1): EffectOf<"continue"> {
  return { kind: "continue", reason, attempt, maxAttempts: ctx.effective(state).streamingFailureMaxPrompts }
}
