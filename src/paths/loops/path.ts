/**
 * Loops: the same tool or a cycle of calls repeated, caught live on every tool start (as one
 * pure step) and at idle over the recent history (a finished-turn rule). Detection is in
 * live-loop.ts and detect/tool-loop.ts; this path decides when to act and what to send.
 *
 * The live tracker keeps the session's recent calls in the path's state: a genuine user message
 * starts it afresh, and the call ids of the running turn are remembered so that a call the host
 * announces again is not counted twice.
 */
import { detectIdleToolLoop } from "../../detect/tool-loop.ts"
import type { JournalTag } from "../../core/journal.ts"
import { JUDGE_PRIORITY } from "../judge/path.ts"
import { isGuard } from "../../runtime/may-act.ts"
import type { PathEffect, PathTurnRule, RecoveryPath, StepContext } from "../../runtime/path.ts"
import { recordToolCall, type LiveToolLoop, type ToolCallPrint } from "./live-loop.ts"
import { buildToolLoopPrompt } from "./prompt.ts"

/**
 * After the judge: its guards (the user's turn, an open question) have had their say. The
 * unknown-tool rule (paths/unknown-tools) sits right after this one: a loop is answered before
 * a wrong tool name.
 */
const TOOL_LOOP_PRIORITY = JUDGE_PRIORITY + 10
const MAX_REMEMBERED_CALLS = 256

export type LoopsState = {
  /** The session's recent tool calls, oldest first (live-loop.ts). */
  ring: readonly ToolCallPrint[]
  /** Call ids of the running turn already fingerprinted. */
  recorded: ReadonlySet<string>
}

const NO_CALLS: ReadonlySet<string> = new Set()

const idleToolLoop: PathTurnRule<LoopsState> = {
  name: "tool-loop",
  pass: "second",
  priority: TOOL_LOOP_PRIORITY,
  decide(facts) {
    // Only calls made since the plugin's last prompt: a loop it already answered (live or
    // at an earlier idle) must form again before it is answered again.
    const loop = detectIdleToolLoop(sinceLastOwnPrompt(facts.messages))
    if (!loop) return undefined
    return {
      effect: {
        kind: "nudge",
        text: buildToolLoopPrompt(loop),
        sendKind: "correction",
        feature: "tool-loop",
        reason: `${loop.kind === "same-tool" ? "same tool" : "cycle"} ${loop.tools.join(" -> ")} x${loop.repeats}`,
      },
    }
  },
}

export const loopsPath: RecoveryPath<LoopsState> = {
  name: "loops",
  signals: ["userMessage", "toolStart", "idle"],
  turnRules: [idleToolLoop],
  initial: () => ({ ring: [], recorded: NO_CALLS }),
  step(state, input, ctx) {
    if (input.type !== "signal") return undefined
    const signal = input.signal
    // The turn's calls are over: their ids need no memory (and some providers reuse
    // call_0, call_1... in the next turn, which must be fingerprinted again).
    if (signal.type === "idle") return state.recorded.size === 0 ? undefined : { state: { ...state, recorded: NO_CALLS }, effects: [] }
    if (signal.type === "userMessage") return signal.genuine && state.ring.length > 0 ? { state: { ...state, ring: [] }, effects: [] } : undefined
    // Fingerprint each call once, when its arguments are known: hosts re-announce a running
    // call (v1 part updates, progress), and those repeats are not new calls.
    if (signal.type !== "toolStart" || signal.args === undefined || state.recorded.has(signal.callID)) return undefined
    const recorded = new Set(state.recorded.size >= MAX_REMEMBERED_CALLS ? [] : state.recorded)
    recorded.add(signal.callID)
    const { ring, loop } = recordToolCall(state.ring, signal.tool, signal.args)
    return { state: { ring, recorded }, effects: loop ? answerLiveLoop(loop, ctx) : [] }
  },
}

/** Abort the turn before the next call runs and send the correction, unless the session must be left alone. */
function answerLiveLoop(loop: LiveToolLoop, ctx: StepContext): PathEffect[] {
  const id = ctx.session.id
  const journal: JournalTag = { trigger: "tool loop", evidence: `${loop.tools.map((t) => `\`${t}\``).join(" -> ")} repeated ${loop.calls}x` }
  const effects: PathEffect[] = []
  // ESC, a pause or an open question win over a loop; so does a recovery already under way.
  const held = ctx.mayAct("recovery")
  if (isGuard(held)) effects.push({ kind: "journal-refused", tag: journal, action: "abort + correction", why: "held", reason: held.reason })
  if (held) {
    effects.push({ kind: "log", level: "info", text: `session ${id}: live tool loop (${loop.tools.join(" -> ")}) left alone: ${held.reason}` })
    return effects
  }
  // An exception to the open-tool guard (core/actions.ts): six repeats prove the loop, and this call has not run yet.
  effects.push({
    kind: "act",
    effect: { kind: "abort-continue", reason: "live tool loop", text: buildToolLoopPrompt({ tools: loop.tools, repeats: loop.calls }), sendKind: "correction" },
    via: {
      label: "send tool-loop recovery",
      budget: { what: "tool-loop recovery", record: { kind: "abort+continue", reason: "live tool loop" } },
      announce: `session ${id}: live tool loop: ${loop.calls} calls repeating ${loop.tools.join(" -> ")}${loop.near ? " (near-identical arguments)" : ""}; aborting before the next call`,
      exception: { kind: "live-tool-loop" },
      journal,
    },
  })
  return effects
}

function sinceLastOwnPrompt<T extends { role: string; own?: boolean }>(messages: readonly T[]): readonly T[] {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user" && messages[i]!.own) return messages.slice(i + 1)
  return messages
}
