/**
 * Repetition: a model that streams the same sentence or paragraph again and again keeps every
 * liveness watchdog happy until its output limit is spent. The adapters hand the growing text
 * of each text and reasoning part on `modelOutput` (`part` with `delta` or `text`), which the
 * engine hands to `onStreamedText` of every session; the detector (detect/repetition.ts) looks at a part once per KB of new text. A repetition found
 * aborts the run and sends the repetition prompt, through the shared abort path and its guards
 * (never with a tool open, never after ESC or while paused), within the lifetime cap and at
 * most `loopMaxContinues` times per `loopWindowMs`.
 */
import { StreamedParts, type Repetition } from "../../detect/repetition.ts"
import { buildRepetitionPrompt } from "../../prompts/repetition.ts"
import { isGuard } from "../../runtime/may-act.ts"
import { continuesInWindow } from "../ladder.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { planned } from "../run-effect.ts"
import type { SessionState } from "../session-state.ts"

const MAX_REMEMBERED_ABORTS = 16

export function repetitionModule({ ctx }: ModuleEnv): EngineModule {
  const parts = new Map<string, StreamedParts>()
  /** When this module aborted a repeating run, per session: its loop-window budget. */
  const aborts = new Map<string, number[]>()

  let last: SessionState | undefined
  let lastTails: StreamedParts | undefined

  function drop(state: SessionState): void {
    parts.delete(state.id)
    if (state === last) last = lastTails = undefined
  }

  function act(state: SessionState, found: Repetition) {
    const what = `repetition (${found.copies} copies of ${found.period} characters)`
    const journal = { trigger: "repetition", evidence: `${found.copies} copies of ${found.period} characters` }
    const held = ctx.mayAct(state, "recovery", ctx.time.now())
    if (isGuard(held)) ctx.journal?.refused(state, journal, "abort + correction", "held", held.reason)
    if (held) {
      ctx.logger.log("info", `session ${state.id}: ${what} left alone: ${held.reason}`)
      return undefined
    }
    const options = ctx.effective(state)
    const now = ctx.time.now()
    const recent = (aborts.get(state.id) ?? []).filter((t) => now - t < options.loopWindowMs)
    if (continuesInWindow(recent, now, options.loopWindowMs) >= options.loopMaxContinues) {
      ctx.logger.log("info", `session ${state.id}: ${what} left alone: ${recent.length} repetition recoveries in the loop window`)
      return undefined
    }
    return planned(
      { kind: "abort-continue", reason: "repetition", text: buildRepetitionPrompt(found), sendKind: "correction" },
      {
        label: "send repetition recovery",
        budget: { what: "repetition recovery", record: { kind: "abort+continue", reason: "repetition" } },
        announce: `session ${state.id}: streamed output repeats itself: ${what}; aborting the run`,
        journal,
        onCommit: () => {
          recent.push(ctx.time.now())
          aborts.set(state.id, recent.slice(-MAX_REMEMBERED_ABORTS))
        },
      },
    )
  }

  return {
    name: "repetition",
    signals: ["userMessage", "idle", "interrupted"],
    onSignal(state, signal) {
      if (signal.type === "userMessage") parts.get(state.id)?.reset()
      else drop(state)
    },
    onStreamedText(state, part, delta, text) {
      // Deltas come in runs for one session: the last one's parts are at hand without a lookup.
      let tails = state === last ? lastTails : undefined
      if (tails === undefined) {
        tails = parts.get(state.id)
        if (!tails) parts.set(state.id, (tails = new StreamedParts()))
        last = state
        lastTails = tails
      }
      const found = tails.feed(part, delta, text)
      if (!found) return
      // Once answered, the repetition must form again from new text.
      tails.reset()
      return act(state, found)
    },
    forget(state) {
      drop(state)
      aborts.delete(state.id)
    },
    dispose() {
      last = lastTails = undefined
      parts.clear()
      aborts.clear()
    },
  }
}
