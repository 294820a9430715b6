/**
 * What a `task_complete` call gets back, as a pure decision.
 *
 *  - Open todos refuse the call up to `maxRefusals` times, then it is accepted anyway: the
 *    model may be right, and refusing forever is a loop of its own. Subagents skip this gate:
 *    a child was never asked to do its parent's open items.
 *  - Repeated calls with no user message between get a warning, then an error: a stuck model
 *    fed the acknowledgement calls task_complete again and again.
 *
 * The path (path.ts) resets `repeatCalls` on a genuine user message and whenever any other tool
 * runs, `refusals` on a genuine user message.
 */
import {
  TASK_COMPLETE_ACK,
  TASK_COMPLETE_REPEAT_ERROR,
  TASK_COMPLETE_REPEAT_WARNING,
  taskCompleteRefusal,
} from "../../prompts/nudges.ts"
import { openTodos, type TodoSnapshot } from "../../todos/open.ts"
import type { EffectOf } from "../../core/effect.ts"

export type TaskCompleteInput = {
  /** `undefined` is read as "none". */
  todos: TodoSnapshot | undefined
  isSubagent: boolean
  repeatCalls: number
  /** Refusals since the last genuine user message. */
  refusals: number
  maxRefusals: number
}

export type TaskCompleteCounters = { repeatCalls: number; refusals: number }

/** `reply.ok: false` fails the call with its text. */
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
  if (repeatCalls === 1) return { reply: { kind: "reply", ok: true, text: TASK_COMPLETE_REPEAT_WARNING, reason: "called again (repeat)" }, complete, next }
  return { reply: { kind: "reply", ok: false, text: TASK_COMPLETE_REPEAT_ERROR, reason: "called again (error)" }, complete, next }
}
