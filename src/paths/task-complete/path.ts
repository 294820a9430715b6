/**
 * task_complete: the tool the model calls when the task is done. Each call is answered from the
 * pure decision (decide.ts) on the session's todos, and a call it accepts latches completion,
 * which stands the session down until the user writes. The todos are the session's as the host
 * reported them, else read from the host first (a `read-todos` effect); a subagent's are never
 * read, since its calls skip the open-todos gate.
 *
 * The counters the decision keeps (repeated calls, refusals) are the path's state, carried
 * across a plugin reload like the session's other budgets.
 */
import { TASK_COMPLETE_TOOL } from "../../prompts/task-complete-tool.ts"
import type { TodoSnapshot } from "../../todos/open.ts"
import type { PathEffect, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"
import { decideTaskComplete, type TaskCompleteCounters } from "./decide.ts"

export type TaskCompleteState = TaskCompleteCounters

const ZERO: TaskCompleteState = { repeatCalls: 0, refusals: 0 }

export const taskCompletePath: RecoveryPath<TaskCompleteState> = {
  name: "task-complete",
  signals: ["toolStart", "userMessage"],
  tools: [TASK_COMPLETE_TOOL],
  initial: () => ZERO,
  restore(saved) {
    if (saved === null || typeof saved !== "object") return undefined
    const { repeatCalls, refusals } = saved as Record<string, unknown>
    return typeof repeatCalls === "number" && typeof refusals === "number" ? { repeatCalls, refusals } : undefined
  },
  step(state, input, ctx) {
    switch (input.type) {
      case "called": {
        const s = ctx.session
        const known = s.todos ?? (s.parentID ? "none" : undefined)
        // The call's number names the read too: its answer is this call's.
        if (known === undefined) return { state, effects: [{ kind: "read-todos", id: input.call }] }
        return answer(state, input.call, known, ctx)
      }
      case "effectSettled":
        return input.outcome.kind === "todos" ? answer(state, input.id, input.outcome.todos, ctx) : undefined
      case "signal": {
        const signal = input.signal
        // Any other tool run means the model moved on: a later call is not a repeat.
        if (signal.type === "toolStart") return signal.tool === TASK_COMPLETE_TOOL || state.repeatCalls === 0 ? undefined : { state: { ...state, repeatCalls: 0 }, effects: [] }
        if (signal.type === "userMessage" && signal.genuine && (state.repeatCalls !== 0 || state.refusals !== 0)) return { state: ZERO, effects: [] }
        return undefined
      }
      default:
        return undefined
    }
  },
}

function answer(state: TaskCompleteState, call: number, todos: TodoSnapshot, ctx: StepContext): StepResult<TaskCompleteState> {
  const s = ctx.session
  const step = decideTaskComplete({
    todos,
    isSubagent: s.parentID !== undefined,
    repeatCalls: state.repeatCalls,
    refusals: state.refusals,
    maxRefusals: ctx.options().taskCompleteMaxRefusals,
  })
  const { reply } = step
  const effects: PathEffect[] = []
  if (step.complete && !s.completed) {
    effects.push({ kind: "latch-complete" }, { kind: "log", level: "info", text: `session ${s.id}: task_complete ${reply.reason}; no further nudges until the user writes` })
  } else if (!reply.reason.startsWith("accepted")) {
    effects.push({ kind: "log", level: "info", text: `session ${s.id}: task_complete ${reply.reason}` })
  }
  effects.push({ kind: "reply", call, ok: reply.ok, text: reply.text })
  return { state: step.next, effects }
}
