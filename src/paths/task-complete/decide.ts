/**
 * What a `task_complete` call gets back, as a pure decision.
 *
 *  - Open todos refuse the call up to `maxRefusals` times, then it is accepted anyway: the
 *    model may be right, and refusing forever is a loop of its own. Subagents skip this gate:
 *    a child was never asked to do its parent's open items.
 *  - Repeated calls with no user message between get a warning, then an error: a stuck model
 *    fed the acknowledgement calls task_complete again and again.
 *
 * While the session has a goal (core/goals.ts), the call is what meets it, and it is accepted
 * only when every todo is closed and `evidence` (the commands run and what they showed) is given;
 * the refusals never run out then, since the goal's own budgets end it. Accepted, it is `goalMet`.
 *
 * The path (path.ts) resets `repeatCalls` on a genuine user message and whenever any other tool
 * runs, `refusals` on a genuine user message.
 */
import {
  goalMetAck,
  goalTaskCompleteNoEvidence,
  goalTaskCompleteOpenTodos,
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
  /** The text of the session's active goal, when it has one. */
  goal?: string
  /** What the call gave as its evidence (task_complete's `evidence` argument). */
  evidence?: string
}

export type TaskCompleteCounters = { repeatCalls: number; refusals: number }

/** `reply.ok: false` fails the call with its text; `goalMet`: the call met the session's goal. */
export type TaskCompleteStep = { reply: EffectOf<"reply">; complete?: EffectOf<"complete">; next: TaskCompleteCounters; goalMet?: true }

/** Evidence shorter than this, or of fewer than three words, is not evidence ("done", "tests pass"). */
export const MIN_EVIDENCE_CHARS = 20
const MIN_EVIDENCE_WORDS = 3

/** Whether `evidence` says something: long enough, and a few words of it. */
export function isEvidence(evidence: string | undefined): boolean {
  const text = evidence?.trim() ?? ""
  return text.length >= MIN_EVIDENCE_CHARS && (text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) >= MIN_EVIDENCE_WORDS
}

function whole(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0
}

export function decideTaskComplete(input: TaskCompleteInput): TaskCompleteStep {
  const repeatCalls = whole(input.repeatCalls)
  const refusals = whole(input.refusals)
  if (input.goal !== undefined && repeatCalls === 0) return decideGoal(input, input.goal, refusals)
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

/** The first call while a goal is set: the goal is met only with every todo closed and the evidence given. */
function decideGoal(input: TaskCompleteInput, goal: string, refusals: number): TaskCompleteStep {
  const refuse = (text: string, reason: string): TaskCompleteStep => ({ reply: { kind: "reply", ok: true, text, reason }, next: { repeatCalls: 0, refusals: refusals + 1 } })
  // A list that could not be read proves nothing closed: the goal waits for a list that can.
  if (input.todos === "unreadable") return refuse(goalTaskCompleteOpenTodos(goal, []), "refused for the goal: the todo list could not be read")
  const open = openTodos(input.todos)
  if (open.length > 0) return refuse(goalTaskCompleteOpenTodos(goal, open), "refused for the goal: todos still open")
  if (!isEvidence(input.evidence)) return refuse(goalTaskCompleteNoEvidence(goal), "refused for the goal: no evidence given")
  return {
    reply: { kind: "reply", ok: true, text: goalMetAck(goal), reason: "accepted: the goal is met" },
    complete: { kind: "complete", reason: "task_complete met the goal" },
    next: { repeatCalls: 1, refusals },
    goalMet: true,
  }
}
