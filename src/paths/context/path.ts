/**
 * The context window, full or nearly full, as one path.
 *
 * A full window (episode.ts decides): after an overflow no continue of any kind goes out while
 * the host compacts by itself, and every recovery is back once its compaction ended. Where the
 * host does not compact (or its compaction failed), and where the saturation rule found a
 * parent's window nearly full, the path asks the host to compact, once per episode, then sends
 * one continue that says so; a compaction that fails, or a second overflow, stands it down
 * until the user writes (one log line, one history entry).
 *
 * Saturation (saturation.ts decides): a session that keeps working until its window is full.
 * At the end of a turn above `contextSaturationThreshold`, a parent gets magic-context's
 * `ctx-wrapup` command when magic-context is loaded, else the episode above (our compaction
 * and one continue); a subagent native compaction (only when `subagentNativeCompactionEnabled`).
 * Unknown limits or failed look-ups mean no intervention.
 */
import { JUDGE_PRIORITY } from "../judge/path.ts"
import { explainFailure } from "../../core/provider-failure.ts"
import type { Outcome } from "../../core/run-effect.ts"
import { saturationRatio } from "../../core/saturation.ts"
import type { PathEffect, PathTurnRule, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"
import { CLEAR_CONTEXT, contextHolds, nextContextEpisode, type ContextEpisode, type ContextEvent } from "./episode.ts"
import { contextCompactedReason } from "./prompt.ts"
import { decideSaturation } from "./saturation.ts"

const TRIGGER = "full context"
/** The path's two effects that settle: ours to compact, and the one continue after it. */
const COMPACT = 0
const CONTINUE = 1

export type ContextState = {
  episode: ContextEpisode
  /** What the session's last usage report put in the window; none since a compaction ended (the window then holds the summary). */
  tokens?: number
  /** The look again the path asked for (the session free, a call not sent): kept across steps, dropped once the phase moved on. */
  wakeAt?: number
}

const INITIAL: ContextState = { episode: CLEAR_CONTEXT }

/** Where a step stands: the session and the moment, as a step or a turn rule sees them. */
type At = Pick<StepContext, "session" | "now">

const saturationRule: PathTurnRule<ContextState> = {
  name: "context-saturation",
  pass: "first",
  priority: JUDGE_PRIORITY + 5,
  // Nothing to look up without a measured usage or a model to look it up for.
  readsContext: (facts, state) => state.tokens !== undefined && facts.state.setup.model !== undefined,
  decide(facts, { state, context }) {
    const session = facts.state
    if (state.tokens === undefined || !session.setup.model || !context) return undefined
    const decision = decideSaturation({
      ratio: saturationRatio(state.tokens, context.limit),
      threshold: facts.options.contextSaturationThreshold,
      isSubagent: session.parentID !== undefined,
      magicContextLoaded: context.magicContext,
      subagentNativeCompactionEnabled: facts.options.subagentNativeCompactionEnabled,
      alreadyIntervenedThisBusyCycle: session.intervention.sentThisTurn.has("context-saturation"),
      cancelled: session.cancelledByUser,
      completed: session.completed,
      limitsKnown: context.limit !== undefined,
    })
    if (decision.kind !== "compact" || session.parentID !== undefined) return { effect: decision }
    // A parent's compaction is followed by one continue: the episode runs both, from a look at once.
    if (state.episode.phase !== "clear" || session.dropped) return undefined
    const at = { session, now: facts.now }
    const next = feed(state, { type: "saturated" }, at, [])
    if (!next) return undefined
    next.effects.push({ kind: "log", level: "info", text: `session ${session.id}: ${decision.reason}; compacting it, then one continue` })
    return { effect: { kind: "stand-down", reason: decision.reason }, state: { ...next.state, wakeAt: facts.now }, effects: next.effects, wakeAt: facts.now }
  },
}

export const contextPath: RecoveryPath<ContextState> = {
  name: "context",
  signals: ["error", "compaction", "idle", "modelOutput", "toolStart", "userMessage", "usage"],
  turnRules: [saturationRule],
  initial: () => INITIAL,
  holds({ episode }) {
    if (!contextHolds(episode)) return undefined
    if (episode.phase === "stood-down") return "the context window is full; waiting for the user"
    return "the context window is full; waiting for its compaction"
  },
  // An episode waits on the host or the user past the idle sweep.
  keeps: ({ episode }) => episode.phase !== "clear",
  step(state, input, ctx) {
    const inEpisode = state.episode.phase !== "clear"
    switch (input.type) {
      case "wake": {
        const woken = { ...state, wakeAt: undefined }
        return whenFree(woken, ctx) ?? result(woken, [])
      }
      case "effectSettled":
        return input.outcome.kind === "delivered" ? settled(state, input.id, input.outcome.outcome, ctx) : undefined
      case "signal": {
        const signal = input.signal
        switch (signal.type) {
          case "usage":
            if (signal.contextTokens === undefined || !Number.isFinite(signal.contextTokens)) return undefined
            return result({ ...state, tokens: signal.contextTokens }, [])
          case "error": {
            if (explainFailure(signal, ctx.options()).kind !== "context-overflow") return undefined
            const lead: PathEffect[] = inEpisode
              ? []
              : [{ kind: "log", level: "warn", text: `session ${ctx.session.id}: context window full (${signal.name}); no continues until the host compacts it or the user writes` }]
            return feed(state, { type: "overflow" }, ctx, lead)
          }
          case "compaction": {
            // The window now holds the summary: the figure measured before it (or of the summary's own request) is gone.
            const measured = signal.phase === "ended" && state.tokens !== undefined ? { ...state, tokens: undefined } : state
            return feed(measured, { type: "compaction", phase: signal.phase }, ctx, []) ?? (measured === state ? undefined : result(measured, []))
          }
          case "idle":
            return inEpisode ? onIdle(state, ctx) : undefined
          case "modelOutput":
          case "toolStart":
            return inEpisode ? feed(state, { type: "modelOutput" }, ctx, []) : undefined
          case "userMessage":
            return signal.genuine && inEpisode ? feed(state, { type: "genuineUser" }, ctx, []) : undefined
        }
        return undefined
      }
      default:
        return undefined
    }
  },
}

/** The state with no other change: the wake it asked for stays. */
function result(state: ContextState, effects: PathEffect[]): StepResult<ContextState> & { effects: PathEffect[] } {
  return { state, effects, wakeAt: state.wakeAt }
}

/** One event to the episode, and what its answer asks for; `lead`: effects that go first. */
function feed(state: ContextState, event: ContextEvent, at: At, lead: PathEffect[]): (StepResult<ContextState> & { effects: PathEffect[] }) | undefined {
  const session = at.session
  if (session.dropped) return lead.length > 0 ? result(state, lead) : undefined
  const before = state.episode
  const { episode, action } = nextContextEpisode(before, event, at.now, !session.busy)
  const effects = lead
  // The resumed turn's output ends the episode: the path hears it from now on.
  if (episode.phase !== "clear" && !session.outputWatched) effects.push({ kind: "watch-output" })
  // A wait for the session to be free (whenFree) means nothing once the phase moved on.
  const next = { ...state, episode, wakeAt: episode.phase !== before.phase ? undefined : state.wakeAt }
  const id = session.id
  switch (action.kind) {
    case "none":
      break
    case "released":
      if (before.phase !== "resumed") effects.push({ kind: "log", level: "info", text: `session ${id}: context window has room again (${action.why}); recoveries are back` })
      break
    case "stand-down":
      effects.push({ kind: "log", level: "warn", text: `session ${id}: context recovery stands down: ${action.why}; no continues until the user writes` })
      effects.push({ kind: "journal-refused", tag: { trigger: TRIGGER, evidence: action.why }, action: "compact", why: "gave up", reason: action.why })
      break
    case "compact":
      effects.push({
        kind: "act",
        id: COMPACT,
        effect: { kind: "compact", feature: "context-window", reason: action.why },
        via: {
          label: "compact the context",
          announce: `session ${id}: context window full (${action.why}); asking the host to compact it`,
          journal: { trigger: TRIGGER, evidence: action.why },
        },
      })
      break
    case "continue": {
      const cause = episode.phase === "compacted" ? episode.cause : "overflow"
      effects.push({
        kind: "act",
        id: CONTINUE,
        effect: { kind: "continue", reason: contextCompactedReason(cause), attempt: 1, maxAttempts: 1 },
        via: {
          label: "send context recovery",
          budget: { what: "context recovery", record: { kind: "continue", reason: `context compacted (${cause})` }, refundUnsent: true },
          announce: `session ${id}: the context was compacted; one continue`,
          journal: { trigger: TRIGGER, evidence: "compacted; one continue" },
        },
      })
      break
    }
  }
  return result(next, effects)
}

/** Our call settled; one that did not go out is tried again a check interval later, never at once. */
function settled(state: ContextState, id: number, outcome: Outcome, ctx: StepContext): StepResult<ContextState> | undefined {
  const event: ContextEvent = id === COMPACT ? { type: "compactCalled", outcome: compactOutcome(outcome) } : { type: "continueCalled", outcome: continueOutcome(outcome) }
  const next = feed(state, event, ctx, [])
  if (!next || event.outcome !== "retry" || next.state.episode.phase === "clear") return next
  const wakeAt = ctx.now + ctx.options().checkIntervalMs
  return { ...next, state: { ...next.state, wakeAt }, wakeAt }
}

/** A look again a check interval from now. */
function lookAgain(state: ContextState, ctx: StepContext): StepResult<ContextState> {
  return result({ ...state, wakeAt: ctx.now + ctx.options().checkIntervalMs }, [])
}

/**
 * The session is free: what is due at idle (our compaction, our continue). Our compaction is
 * not sent while the user holds the session (a pause, ESC, an open question): looked at again
 * a check interval later. It also waits one interval after the run ended, so a host that
 * compacts by itself (2.x builds that do) has begun before we would.
 */
function whenFree(state: ContextState, ctx: StepContext): StepResult<ContextState> | undefined {
  if (state.episode.phase === "clear" || ctx.session.busy) return undefined
  // Only the user's guards: the context's own hold is what this compaction ends.
  if (state.episode.phase === "full" && ctx.mayAct("touch")?.by === "user") return lookAgain(state, ctx)
  return feed(state, { type: "idle" }, ctx, [])
}

function onIdle(state: ContextState, ctx: StepContext): StepResult<ContextState> | undefined {
  if (state.episode.phase === "full" && !state.episode.hostCompacting) return lookAgain(state, ctx)
  return whenFree(state, ctx)
}

/** A call that timed out may still be carried out: its signals decide. */
function compactOutcome(outcome: Outcome): "ok" | "refused" | "retry" {
  if (outcome === "ok" || outcome === "timeout") return "ok"
  if (outcome === "busy" || outcome === "held") return "retry"
  return "refused"
}

function continueOutcome(outcome: Outcome): "sent" | "failed" | "retry" {
  if (outcome === "ok" || outcome === "timeout") return "sent"
  if (outcome === "busy" || outcome === "held") return "retry"
  return "failed"
}
