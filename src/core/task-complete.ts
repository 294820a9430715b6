/**
 * What a `task_complete` call gets back, as a pure decision. The engine registers the
 * tool, keeps the two counters, and carries out the effects (latch and clear timers, return
 * the text as the tool result, or fail the call with it).
 *
 * Rules:
 *  - open todos refuse the call, up to `maxRefusals` refusals; after that the call is
 *    accepted anyway (the model may be right, and refusing forever is a loop of its own).
 *    Subagents skip this gate: a child was never asked to do its parent's open items, and
 *    a list that could not be read never refuses anything;
 *  - repeated calls with no user message in between: the first is acknowledged with an
 *    explicit instruction to stop, the second gets a warning, every later one an error.
 *    This breaks the loop where the acknowledgement is fed back to a stuck model that
 *    calls task_complete again (27 acknowledgements in a row were seen in the field).
 *
 * Counters the engine keeps:
 *  - `repeatCalls`: set to `next.repeatCalls` after each call; reset to 0 on a genuine user
 *    message and whenever any other tool runs (a refusal resets it itself);
 *  - `refusals`: set to `next.refusals`; reset to 0 on a genuine user message.
 */
import {
  TASK_COMPLETE_ACK,
  TASK_COMPLETE_REPEAT_ERROR,
  TASK_COMPLETE_REPEAT_WARNING,
  taskCompleteRefusal,
} from "../prompts/nudges.ts"
import { openTodos, type TodoSnapshot } from "../todos/open.ts"
import type { EffectOf } from "./effect.ts"

export type TaskCompleteInput = {
  /** `undefined` is read as "none". */
  todos: TodoSnapshot | undefined
  isSubagent: boolean
  /** task_complete calls answered since the counter last reset. */
  repeatCalls: number
  /** Refusals since the last genuine user message. */
  refusals: number
  maxRefusals: number
}

export type TaskCompleteCounters = { repeatCalls: number; refusals: number }

/**
 * The tool's answer (a `reply`; `ok: false` fails the call with its text), and when the call
 * latches completion, the `complete` effect that does it (clear timers, no more nudges).
 */
export type TaskCompleteStep = { reply: EffectOf<"reply">; complete?: EffectOf<"complete">; next: TaskCompleteCounters }

function whole(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0
}

export function decideTaskComplete(input: TaskCompleteInput): TaskCompleteStep {
  const repeatCalls = whole(input.repeatCalls)
  const refusals = whole(input.refusals)
  const open = input.isSubagent ? [] : openTodos(input.todos)
  if (open.length > 0 && refusals < whole(input.maxRefusals)) {
    const reply = { kind: "reply", ok: true, text: taskCompleteRefusal(open), reason: "refused: todos still open" } as const
    return { reply, next: { repeatCalls: 0, refusals: refusals + 1 } }
  }
  const next = { repeatCalls: repeatCalls + 1, refusals }
  const complete = { kind: "complete", reason: "task_complete" } as const
  if (repeatCalls === 0) {
    const reason = open.length > 0 ? "accepted (open todos, refusals used up)" : "accepted"
    return { reply: { kind: "reply", ok: true, text: TASK_COMPLETE_ACK, reason }, complete, next }
  }
  // Second call in a row: stay latched, return the warning; later ones fail the call.
  if (repeatCalls === 1) return { reply: { kind: "reply", ok: true, text: TASK_COMPLETE_REPEAT_WARNING, reason: "called again (repeat)" }, complete, next }
  return { reply: { kind: "reply", ok: false, text: TASK_COMPLETE_REPEAT_ERROR, reason: "called again (error)" }, complete, next }
}
