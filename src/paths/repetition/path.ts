/**
 * Repetition: a model that streams the same sentence or paragraph again and again keeps every
 * liveness watchdog happy until its output limit is spent. The step reads the growing text of
 * each text and reasoning part (the `text` input, every delta of every session); the detector
 * (detect/repetition.ts) looks at a part once per KB of new text. A repetition found aborts the
 * run and sends the repetition prompt, through the shared abort and its guards (never with a
 * tool open, never after ESC or while paused), within the lifetime cap and at most
 * `loopMaxContinues` times per `loopWindowMs`.
 *
 * The one thing the step changes in place is the detector's buffer of the session's parts
 * (StreamedParts, a class of detect/): fed on every delta, a copy per delta would cost the hot
 * path more than the detection. The step creates it for the session at its first text, so the
 * initial state every session starts from never holds one; the rest of the state is replaced.
 */
import { StreamedParts, type Repetition } from "../../detect/repetition.ts"
import { continuesInWindow } from "../../core/ladder.ts"
import { isGuard } from "../../runtime/may-act.ts"
import type { PathEffect, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"
import { buildRepetitionPrompt } from "./prompt.ts"

const MAX_REMEMBERED_ABORTS = 16
/** The path's one kind of effect, the abort then correction: each one committed counts. */
const ABORT = 0

export type RepetitionState = {
  /** The detector's buffer of the session's streamed parts (see above); none until the first text or after the run. */
  parts?: StreamedParts
  /** When this path's aborts went out: its loop-window budget. */
  aborts: readonly number[]
}

const INITIAL: RepetitionState = { aborts: [] }

export const repetitionPath: RecoveryPath<RepetitionState> = {
  name: "repetition",
  signals: ["userMessage", "idle", "interrupted"],
  streams: ["text"],
  initial: () => INITIAL,
  step(state, input, ctx) {
    switch (input.type) {
      case "text": {
        // Written for the hot path: every delta of every session comes here.
        const parts = state.parts ?? new StreamedParts()
        const found = parts.feed(input.part, input.delta, input.text)
        const next = parts === state.parts ? state : { ...state, parts }
        if (!found) return next === state ? undefined : { state: next, effects: [] }
        // Once answered, the repetition must form again from new text.
        parts.reset()
        return answer(next, found, ctx)
      }
      case "signal":
        // A new turn of the user's (or ours) starts the parts afresh; the run's end drops them.
        if (input.signal.type === "userMessage") {
          state.parts?.reset()
          return undefined
        }
        // With no abort of its own to remember, the session goes back to the shared initial state.
        if (!state.parts) return undefined
        return { state: state.aborts.length === 0 ? INITIAL : { ...state, parts: undefined }, effects: [] }
      case "effectSettled": {
        if (input.id !== ABORT || input.outcome.kind !== "committed") return undefined
        const window = ctx.options().loopWindowMs
        const aborts = [...state.aborts.filter((t) => ctx.now - t < window), ctx.now].slice(-MAX_REMEMBERED_ABORTS)
        return { state: { ...state, aborts }, effects: [] }
      }
      default:
        return undefined
    }
  },
}

/** Abort the run and send the repetition prompt, unless the session must be left alone or the window's budget is spent. */
function answer(state: RepetitionState, found: Repetition, ctx: StepContext): StepResult<RepetitionState> {
  const id = ctx.session.id
  const what = `repetition (${found.copies} copies of ${found.period} characters)`
  const journal = { trigger: "repetition", evidence: `${found.copies} copies of ${found.period} characters` }
  const effects: PathEffect[] = []
  const leftAlone = (why: string) => {
    effects.push({ kind: "log", level: "info", text: `session ${id}: ${what} left alone: ${why}` })
    return { state, effects }
  }
  // ESC, a pause or an open question win over a repetition; so does a recovery already under way.
  const held = ctx.mayAct("recovery")
  if (isGuard(held)) effects.push({ kind: "journal-refused", tag: journal, action: "abort + correction", why: "held", reason: held.reason })
  if (held) return leftAlone(held.reason)
  const options = ctx.options()
  const recent = continuesInWindow(state.aborts, ctx.now, options.loopWindowMs)
  if (recent >= options.loopMaxContinues) return leftAlone(`${recent} repetition recoveries in the loop window`)
  effects.push({
    kind: "act",
    id: ABORT,
    effect: { kind: "abort-continue", reason: "repetition", text: buildRepetitionPrompt(found), sendKind: "correction" },
    via: {
      label: "send repetition recovery",
      budget: { what: "repetition recovery", record: { kind: "abort+continue", reason: "repetition" } },
      announce: `session ${id}: streamed output repeats itself: ${what}; aborting the run`,
      journal,
    },
  })
  return { state, effects }
}
