/**
 * What a recovery path wants done next: the one vocabulary every decision answers in (the
 * stall ladder, the failure chain, the subagent machine, the finished-turn judge, saturation,
 * task_complete) and the engine carries out (run-effect.ts). Decisions stay pure: they return
 * these as data, and never run them.
 */
import type { SendKind } from "./port.ts"

export type Effect =
  /** A continue prompt, its text built when it goes out from `reason` ("Attempt k/n" from `attempt`). */
  | { kind: "continue"; reason: string; attempt?: number; maxAttempts?: number }
  /**
   * Abort the run (marked as ours), then the continue once the host shows the run over (at most
   * ABORT_CONTINUE_DELAY_MS after the abort answered); with `text`,
   * that prompt instead of a continue (a loop's correction).
   */
  | { kind: "abort-continue"; reason: string; attempt?: number; maxAttempts?: number; text?: string; sendKind?: SendKind }
  /** A prompt with its own text, to this session or (`sessionID`) to a subagent of it. */
  | { kind: "nudge"; text: string; sendKind: SendKind; feature: string; reason: string; sessionID?: string }
  | { kind: "command"; name: string; args: string; feature: string; reason: string }
  | { kind: "compact"; feature: string; reason: string }
  /** Latch completion: no further nudges until the user writes. */
  | { kind: "complete"; reason: string; signal?: "celebration" | "stop-statement" | "done-claim" }
  /** Count a use of a feature's budget without sending anything. */
  | { kind: "charge"; feature: string; reason: string }
  /** Nothing more for this turn or incident: it is in the user's hands, or the path gave up. */
  | { kind: "stand-down"; reason: string }
  /** Nothing now, but look again at `at` (a nudge held only by the active-user window). */
  | { kind: "look-again"; at: number; reason: string }
  /** The answer to a tool call the plugin registered (task_complete); `ok: false` fails the call. */
  | { kind: "reply"; ok: boolean; text: string; reason: string }
  /** Nothing to do, and why (for the log). */
  | { kind: "none"; reason: string }

export type EffectOf<K extends Effect["kind"]> = Extract<Effect, { kind: K }>

export function none(reason: string): EffectOf<"none"> {
  return { kind: "none", reason }
}
