/**
 * A full context window (context-episode.ts decides): after an overflow no continue of any kind
 * goes out while the host compacts by itself, and every recovery is back once its compaction
 * ended. Where the host does not compact (or its compaction failed), and where our saturation
 * check found a parent's window nearly full, this module asks the host to compact, once per
 * episode, then sends one continue that says so; a compaction that fails, or a second overflow,
 * stands it down until the user writes (one log line, one history entry).
 */
import type { Signal } from "../port.ts"
import { contextCompactedReason } from "../../prompts/failures.ts"
import { CLEAR_CONTEXT, contextHolds, nextContextEpisode, type ContextEpisode, type ContextEvent } from "../context-episode.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { explainFailure } from "../provider-failure.ts"
import { planned, type Outcome, type Planned } from "../run-effect.ts"
import type { SessionState } from "../session-state.ts"

const TRIGGER = "full context"

/** How the saturation check (context-saturation.ts) hands a nearly full parent to this module. */
export type CompactionHandoff = {
  /** True when the module took the session on (no episode of its own was running). */
  saturated(state: SessionState, why: string): boolean
  bind(take: (state: SessionState, why: string) => boolean): void
}

export function compactionHandoff(): CompactionHandoff {
  let take: ((state: SessionState, why: string) => boolean) | undefined
  return {
    saturated: (state, why) => take?.(state, why) ?? false,
    bind: (fn) => {
      take = fn
    },
  }
}

export function contextWindowModule({ ctx, wakeAt }: ModuleEnv, handoff?: CompactionHandoff): EngineModule {
  /** Sessions in an episode only; a session that leaves the table takes its entry along. */
  const episodes = new Map<string, ContextEpisode>()

  function feed(state: SessionState, event: ContextEvent): Planned | undefined {
    if (state.dropped) return undefined
    const before = episodes.get(state.id) ?? CLEAR_CONTEXT
    const { episode, action } = nextContextEpisode(before, event, ctx.time.now(), !state.busy)
    if (episode.phase === "clear") episodes.delete(state.id)
    else {
      episodes.set(state.id, episode)
      // The resumed turn's output ends the episode: this module hears it from now on.
      state.outputWatched = true
    }
    // A wait for the session to be free (below) means nothing once the phase moved on.
    if (episode.phase !== before.phase) wakeAt(state, undefined)
    switch (action.kind) {
      case "none":
        return undefined
      case "released":
        if (before.phase !== "resumed") ctx.logger.log("info", `session ${state.id}: context window has room again (${action.why}); recoveries are back`)
        return undefined
      case "stand-down":
        ctx.logger.log("warn", `session ${state.id}: context recovery stands down: ${action.why}; no continues until the user writes`)
        ctx.journal?.refused(state, { trigger: TRIGGER, evidence: action.why }, "compact", "gave up", action.why)
        return undefined
      case "compact":
        return planned(
          { kind: "compact", feature: "context-window", reason: action.why },
          {
            label: "compact the context",
            announce: `session ${state.id}: context window full (${action.why}); asking the host to compact it`,
            journal: { trigger: TRIGGER, evidence: action.why },
            onSettled: (outcome) => settled(state, { type: "compactCalled", outcome: compactOutcome(outcome) }),
          },
        )
      case "continue": {
        const cause = episode.phase === "compacted" ? episode.cause : "overflow"
        const reason = contextCompactedReason(cause)
        return planned(
          { kind: "continue", reason, attempt: 1, maxAttempts: 1 },
          {
            label: "send context recovery",
            budget: { what: "context recovery", record: { kind: "continue", reason: `context compacted (${cause})` }, refundUnsent: true },
            announce: `session ${state.id}: the context was compacted; one continue`,
            journal: { trigger: TRIGGER, evidence: "compacted; one continue" },
            onSettled: (outcome) => settled(state, { type: "continueCalled", outcome: continueOutcome(outcome) }),
          },
        )
      }
    }
  }

  /** Our call settled; one that did not go out is tried again a check interval later, never at once. */
  function settled(state: SessionState, event: Extract<ContextEvent, { type: "compactCalled" | "continueCalled" }>): Planned | undefined {
    const plan = feed(state, event)
    if (event.outcome === "retry" && episodes.has(state.id)) wakeAt(state, ctx.time.now() + ctx.effective(state).checkIntervalMs)
    return plan
  }

  /**
   * The session is free: what is due at idle (our compaction, our continue). Our compaction is
   * not sent while the user holds the session (a pause, ESC, an open question): looked at again
   * a check interval later. It also waits one interval after the run ended, so a host that
   * compacts by itself (2.x builds that do) has begun before we would.
   */
  function whenFree(state: SessionState): Planned | undefined {
    const episode = episodes.get(state.id)
    if (!episode || state.busy) return undefined
    if (episode.phase === "full") {
      // Only the user's guards: the context's own hold is what this compaction ends.
      if (ctx.mayAct(state, "touch", ctx.time.now())?.by === "user") {
        wakeAt(state, ctx.time.now() + ctx.effective(state).checkIntervalMs)
        return undefined
      }
    }
    return feed(state, { type: "idle" })
  }

  function onIdle(state: SessionState): Planned | undefined {
    const episode = episodes.get(state.id)
    if (episode?.phase === "full" && !episode.hostCompacting) {
      wakeAt(state, ctx.time.now() + ctx.effective(state).checkIntervalMs)
      return undefined
    }
    return whenFree(state)
  }

  handoff?.bind((state, why) => {
    if (episodes.has(state.id) || state.dropped) return false
    feed(state, { type: "saturated" })
    ctx.logger.log("info", `session ${state.id}: ${why}; compacting it, then one continue`)
    wakeAt(state, ctx.time.now())
    return true
  })

  return {
    name: "context-window",
    signals: ["error", "compaction", "idle", "modelOutput", "toolStart", "userMessage"],
    onSignal(state, signal: Signal) {
      switch (signal.type) {
        case "error":
          if (explainFailure(signal, ctx.effective(state)).kind !== "context-overflow") return undefined
          if (!episodes.has(state.id)) ctx.logger.log("warn", `session ${state.id}: context window full (${signal.name}); no continues until the host compacts it or the user writes`)
          return feed(state, { type: "overflow" })
        case "compaction":
          return feed(state, { type: "compaction", phase: signal.phase })
        case "idle":
          return episodes.has(state.id) ? onIdle(state) : undefined
        case "modelOutput":
        case "toolStart":
          return episodes.has(state.id) ? feed(state, { type: "modelOutput" }) : undefined
        case "userMessage":
          return signal.genuine && episodes.has(state.id) ? feed(state, { type: "genuineUser" }) : undefined
      }
      return undefined
    },
    onWake(state) {
      return whenFree(state)
    },
    hold(state) {
      const episode = episodes.get(state.id)
      if (!episode || !contextHolds(episode)) return undefined
      if (episode.phase === "stood-down") return "the context window is full; waiting for the user"
      return "the context window is full; waiting for its compaction"
    },
    // An episode waits on the host or the user past the idle sweep.
    keepsSession(state) {
      return episodes.has(state.id)
    },
    forget(state) {
      episodes.delete(state.id)
    },
    dispose() {
      episodes.clear()
    },
  }
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
