/**
 * What a `task_complete` call gets back, as a pure decision. The engine registers the
 * tool, keeps the two counters, and acts on the decision (latch and clear timers, return
 * the text as the tool result, or throw it as the tool error).
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

export type TaskCompleteDecision =
  /** Items are open: return `text` as the tool result; do not latch. */
  | { kind: "refuse"; text: string; latch: false; next: TaskCompleteCounters }
  /** Latch completion, clear timers, return `text` (it tells the model to stop). */
  | { kind: "accept"; text: string; latch: true; overrodeOpenTodos: boolean; next: TaskCompleteCounters }
  /** Second call in a row: stay latched, return the warning. */
  | { kind: "repeat"; text: string; latch: true; next: TaskCompleteCounters }
  /** Third and later calls: stay latched, fail the tool call with `text`. */
  | { kind: "error"; text: string; latch: true; next: TaskCompleteCounters }

function whole(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0
}

export function decideTaskComplete(input: TaskCompleteInput): TaskCompleteDecision {
  const repeatCalls = whole(input.repeatCalls)
  const refusals = whole(input.refusals)
  const open = input.isSubagent ? [] : openTodos(input.todos)
  if (open.length > 0 && refusals < whole(input.maxRefusals)) {
    return { kind: "refuse", text: taskCompleteRefusal(open), latch: false, next: { repeatCalls: 0, refusals: refusals + 1 } }
  }
  const next = { repeatCalls: repeatCalls + 1, refusals }
  if (repeatCalls === 0) return { kind: "accept", text: TASK_COMPLETE_ACK, latch: true, overrodeOpenTodos: open.length > 0, next }
  if (repeatCalls === 1) return { kind: "repeat", text: TASK_COMPLETE_REPEAT_WARNING, latch: true, next }
  return { kind: "error", text: TASK_COMPLETE_REPEAT_ERROR, latch: true, next }
}
