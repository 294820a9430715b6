/**
 * How a recovery path plugs into the engine without the engine knowing it: a module sees
 * every signal after the engine applied it, says when it next wants to wake (the engine runs
 * one timer per session for all of them), may state a hold on a session, and may
 * contribute finished-turn rules. Each path (failures, loops, subagents, saturation...)
 * is one module in its own file; the engine only iterates them.
 */
import type { Signal, SignalType } from "./port.ts"
import type { EngineContext } from "./context.ts"
import type { TurnRule } from "../runtime/turn-pass.ts"
import type { Intent } from "./run-effect.ts"
import type { Wake } from "./scheduler.ts"
import type { SessionState } from "./session-state.ts"

export type SessionLookup = {
  get(id: string): SessionState | undefined
  values(): Iterable<SessionState>
}

export type ModuleEnv = {
  ctx: EngineContext
  sessions: SessionLookup
  /**
   * When the module next wants `onWake` for a session (replacing its earlier wish; undefined
   * cancels it). The engine keeps one timer per session for all modules (scheduler.ts).
   */
  wakeAt(state: SessionState, at: number | undefined): void
}

export interface EngineModule {
  readonly name: string
  /**
   * The signal types `onSignal` wants; omitted means every type. The engine hands a module
   * only these, so a streaming delta never visits a module that ignores it (the hot path).
   * "modelOutput" (most of the traffic) goes only to sessions whose `outputWatched` a module
   * has set: a module sets it for the sessions it keeps state on.
   */
  readonly signals?: readonly SignalType[]
  /** What the module wants done is returned, and the engine carries it out (run-effect.ts). */
  onSignal?(state: SessionState, signal: Signal): Intent
  /** The wake asked for through `ModuleEnv.wakeAt` is due; `wake.hold` says whether the session may be touched. */
  onWake?(state: SessionState, wake: Wake): Intent
  /**
   * Why the module holds the session (a rate-limit wait, a full context...): a fact the runtime's
   * one answer weighs (runtime/may-act.ts), never an answer of its own.
   */
  hold?(state: SessionState): string | undefined
  /** Rules for a finished turn, run with the paths' in priority order (runtime/turn-pass.ts). */
  turnRules?: readonly TurnRule[]
  /**
   * True while the module still has something due for an idle session beyond a wake it asked
   * for (those keep it anyway), such as a lock that waits for the user: the idle sweep leaves
   * such a session in the table, or the wait would vanish with it. Sessions kept this way are
   * still bounded by the table's ceiling.
   */
  keepsSession?(state: SessionState): boolean
  /** The session left the table: drop whatever the module keeps for it. */
  forget?(state: SessionState): void
  dispose?(): void
}

export type ModuleFactory = (env: ModuleEnv) => EngineModule

