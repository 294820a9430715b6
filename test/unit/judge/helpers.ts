/** Builds judge inputs with quiet defaults: a warm session, the user away, nothing open. */
import type { JudgeInput } from "../../../src/paths/judge/judge.ts"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { OPTION_DEFAULTS } from "../../../src/options/index.ts"
import { user } from "../../fixtures/transcript-builders.ts"

export const NOW = 50_000_000
export const WINDOW = OPTION_DEFAULTS.activeUserWindowMs

export function input(turn: TranscriptMessage, overrides: Partial<JudgeInput> = {}): JudgeInput {
  return {
    messages: [user("please do the thing"), turn],
    todos: "none",
    options: { ...OPTION_DEFAULTS },
    now: NOW,
    sessionStartedAt: NOW - 3_600_000,
    // The user spoke long ago: outside activeUserWindowMs.
    lastGenuineUserAt: NOW - WINDOW - 60_000,
    awaitingUser: false,
    toolsInFlightAtIdle: 0,
    budgets: {},
    ...overrides,
  }
}
