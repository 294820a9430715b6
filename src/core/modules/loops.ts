/**
 * Loops: the same tool or a cycle of calls repeated, at idle over the recent history and live
 * on every tool start. Detection is in detect/tool-loop.ts and detect/tool-loop-live.ts; this
 * module decides when to act and what to send.
 */
import { ToolFingerprints } from "../../detect/tool-loop-live.ts"
import { detectIdleToolLoop } from "../../detect/tool-loop.ts"
import { buildToolLoopPrompt } from "../../prompts/loops.ts"
import { holdReason } from "../context.ts"
import { mayIntervene } from "../intervention.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { planned } from "../run-effect.ts"
import { JUDGE_PRIORITY } from "./finished-turn.ts"

/** After the judge: its guards (the user's turn, an open question) have had their say. */
export const TOOL_RULES_PRIORITY = JUDGE_PRIORITY + 10
const MAX_REMEMBERED_CALLS = 256

export function loopsModule({ ctx }: ModuleEnv): EngineModule {
  const fingerprints = new Map<string, ToolFingerprints>()
  /** Call ids already fingerprinted, per session. */
  const recorded = new Map<string, Set<string>>()

  return {
    name: "loops",
    signals: ["userMessage", "toolStart", "idle"],
    turnRules: [
      {
        name: "tool-loop",
        pass: "second",
        priority: TOOL_RULES_PRIORITY,
        decide(facts) {
          // Only calls made since the plugin's last prompt: a loop it already answered (live or
          // at an earlier idle) must form again before it is answered again.
          const loop = detectIdleToolLoop(sinceLastOwnPrompt(facts.messages))
          if (!loop) return undefined
          return {
            kind: "nudge",
            text: buildToolLoopPrompt(loop),
            sendKind: "correction",
            feature: "tool-loop",
            reason: `${loop.kind === "same-tool" ? "same tool" : "cycle"} ${loop.tools.join(" -> ")} x${loop.repeats}`,
          }
        },
      },
    ],
    onSignal(state, signal) {
      // The turn's calls are over: their ids need no memory (and some providers reuse
      // call_0, call_1... in the next turn, which must be fingerprinted again).
      if (signal.type === "idle") {
        recorded.delete(state.id)
        return
      }
      if (signal.type === "userMessage" && signal.genuine) {
        fingerprints.get(state.id)?.reset()
        return
      }
      // Fingerprint each call once, when its arguments are known: hosts re-announce a running
      // call (v1 part updates, progress), and those repeats are not new calls.
      if (signal.type !== "toolStart" || signal.args === undefined) return
      let seen = recorded.get(state.id)
      if (!seen) recorded.set(state.id, (seen = new Set()))
      if (seen.has(signal.callID)) return
      if (seen.size >= MAX_REMEMBERED_CALLS) seen.clear()
      seen.add(signal.callID)
      let prints = fingerprints.get(state.id)
      if (!prints) fingerprints.set(state.id, (prints = new ToolFingerprints()))
      const loop = prints.record(signal.tool, signal.args)
      if (!loop) return
      // ESC, a pause or an open question win over a loop; so does a recovery already under way.
      const journal = { trigger: "tool loop", evidence: `${loop.tools.map((t) => `\`${t}\``).join(" -> ")} repeated ${loop.calls}x` }
      const guard = holdReason(ctx, state)
      if (guard) ctx.journal?.refused(state, journal, "abort + correction", "held", guard)
      const held = guard ?? mayIntervene(state.intervention, ctx.time.now(), "recovery")?.reason
      if (held) return ctx.logger.log("info", `session ${state.id}: live tool loop (${loop.tools.join(" -> ")}) left alone: ${held}`)
      // An exception to the open-tool guard (actions.ts): six repeats prove the loop, and this call has not run yet.
      return planned(
        { kind: "abort-continue", reason: "live tool loop", text: buildToolLoopPrompt({ tools: loop.tools, repeats: loop.calls }), sendKind: "correction" },
        {
          label: "send tool-loop recovery",
          budget: { what: "tool-loop recovery", record: { kind: "abort+continue", reason: "live tool loop" } },
          announce: `session ${state.id}: live tool loop: ${loop.calls} calls repeating ${loop.tools.join(" -> ")}${loop.near ? " (near-identical arguments)" : ""}; aborting before the next call`,
          exception: { kind: "live-tool-loop" },
          journal,
        },
      )
    },
    forget(state) {
      fingerprints.delete(state.id)
      recorded.delete(state.id)
    },
  }
}

function sinceLastOwnPrompt<T extends { role: string; own?: boolean }>(messages: readonly T[]): readonly T[] {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user" && messages[i]!.own) return messages.slice(i + 1)
  return messages
}
