/**
 * task_complete: the tool the model calls when the task is done. Each call is answered from the
 * pure decision (decide.ts) on the session's todos, and a call it accepts latches completion,
 * which stands the session down until the user writes. The todos are the session's as the host
 * reported them, else read from the host first (a `read-todos` effect); a subagent's are never
 * read, since its calls skip the open-todos gate.
 *
 * The counters the decision keeps (repeated calls, refusals) are the path's state, carried
 * across a plugin reload like the session's other budgets.
 *
 * While the session has an active goal (core/goals.ts, read through StepContext.goal), the call
 * is what meets it: given with `evidence` and every todo closed, it marks the goal met (a `goal`
 * effect) with one line in the history quoting the evidence.
 */
import type { Goal } from "../../core/goals.ts"
import { quotedGoal } from "../../prompts/nudges.ts"
import { TASK_COMPLETE_TOOL } from "../../prompts/task-complete-tool.ts"
import type { TodoSnapshot } from "../../todos/open.ts"
import type { PathEffect, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"
import { decideTaskComplete, type TaskCompleteCounters } from "./decide.ts"

export type TaskCompleteState = TaskCompleteCounters & {
  /** The evidence of calls waiting on a todo read, by call number (never carried across a reload). */
  evidence?: Readonly<Record<number, string | undefined>>
}

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
        const evidence = input.args?.evidence
        if (known === undefined) {
          const waiting = evidence === undefined ? state : { ...state, evidence: { ...state.evidence, [input.call]: evidence } }
          return { state: waiting, effects: [{ kind: "read-todos", id: input.call }] }
        }
        return answer(state, input.call, known, evidence, ctx)
      }
      case "effectSettled": {
        if (input.outcome.kind !== "todos") return undefined
        const evidence = state.evidence?.[input.id]
        let s = state
        if (state.evidence && input.id in state.evidence) {
          const { [input.id]: _, ...rest } = state.evidence
          s = { ...state, evidence: Object.keys(rest).length > 0 ? rest : undefined }
        }
        return answer(s, input.id, input.outcome.todos, evidence, ctx)
      }
      case "signal": {
        const signal = input.signal
        // Any other tool run means the model moved on: a later call is not a repeat.
        if (signal.type === "toolStart") return signal.tool === TASK_COMPLETE_TOOL || state.repeatCalls === 0 ? undefined : { state: { ...state, repeatCalls: 0 }, effects: [] }
        if (signal.type === "userMessage" && signal.genuine && (state.repeatCalls !== 0 || state.refusals !== 0)) return { state: { ...ZERO, ...(state.evidence ? { evidence: state.evidence } : {}) }, effects: [] }
        return undefined
      }
      default:
        return undefined
    }
  },
}

function answer(state: TaskCompleteState, call: number, todos: TodoSnapshot, evidence: string | undefined, ctx: StepContext): StepResult<TaskCompleteState> {
  const s = ctx.session
  const goal = ctx.goal()
  const active = goal?.status === "active" ? goal : undefined
  const step = decideTaskComplete({
    todos,
    isSubagent: s.parentID !== undefined,
    repeatCalls: state.repeatCalls,
    refusals: state.refusals,
    maxRefusals: ctx.options().taskCompleteMaxRefusals,
    goal: active?.text,
    evidence,
  })
  const { reply } = step
  const effects: PathEffect[] = step.goalMet && active ? goalMet(s.id, active, evidence ?? "") : []
  if (step.complete && !s.completed) {
    effects.push({ kind: "latch-complete" }, { kind: "log", level: "info", text: `session ${s.id}: task_complete ${reply.reason}; no further nudges until the user writes` })
  } else if (!reply.reason.startsWith("accepted")) {
    effects.push({ kind: "log", level: "info", text: `session ${s.id}: task_complete ${reply.reason}` })
  }
  effects.push({ kind: "reply", call, ok: reply.ok, text: reply.text })
  return { state: state.evidence ? { ...step.next, evidence: state.evidence } : step.next, effects }
}

/** The goal is over: kept as met, and one line in the history with the evidence the model gave. */
function goalMet(sessionID: string, goal: Goal, evidence: string): PathEffect[] {
  const tag = { trigger: "goal", evidence: `${quotedGoal(goal.text, 80)}, ${goal.continues} ${goal.continues === 1 ? "continue" : "continues"}` }
  return [
    { kind: "goal", change: { kind: "ended", goalID: goal.id, status: "met", why: "task_complete with evidence" } },
    { kind: "journal-refused", tag, action: "task_complete with evidence", why: "met", reason: `evidence: ${evidence.trim()}` },
    { kind: "log", level: "info", text: `session ${sessionID}: goal met (task_complete with evidence after ${goal.continues} goal continue(s))` },
  ]
}
