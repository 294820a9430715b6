/**
 * The `task_complete` tool's effect on a session: read the todos (bounded), ask the pure
 * decision (task-complete.ts), keep its counters, and latch completion when it says so.
 */
import type { EngineContext } from "./context.ts"
import { readTodosBounded } from "./host-calls.ts"
import type { SessionState } from "./session-state.ts"
import { decideTaskComplete } from "./task-complete.ts"
import type { Goal } from "./goals.ts"
import { quotedGoal } from "../prompts/nudges.ts"
import type { TodoSnapshot } from "../todos/open.ts"

export type TaskCompleteResult = { ok: boolean; text: string }

/** What the model passed to task_complete. */
export type TaskCompleteCall = { evidence?: string }

export async function runTaskComplete(ctx: EngineContext, state: SessionState, onLatch: (s: SessionState) => void, call: TaskCompleteCall = {}): Promise<TaskCompleteResult> {
  const options = ctx.effective(state)
  const goal = ctx.goals?.goalOf(state.id)
  const active = goal?.status === "active" ? goal : undefined
  // A subagent skips the open-todos gate (task-complete.ts): its list is not worth a read.
  const todos: TodoSnapshot = state.todos ?? (state.parentID ? "none" : await readTodosBounded(ctx, state.id, options.sendTimeoutMs))
  const step = decideTaskComplete({
    todos,
    isSubagent: state.parentID !== undefined,
    repeatCalls: state.taskCompleteRepeats,
    refusals: state.taskCompleteRefusals,
    maxRefusals: options.taskCompleteMaxRefusals,
    goal: active?.text,
    evidence: call.evidence,
  })
  state.taskCompleteRepeats = step.next.repeatCalls
  state.taskCompleteRefusals = step.next.refusals
  const { reply } = step
  if (step.goalMet && active) goalMet(ctx, state, active, call.evidence ?? "")
  if (step.complete && !state.completed) {
    state.completed = true
    onLatch(state)
    ctx.logger.log("info", `session ${state.id}: task_complete ${reply.reason}; no further nudges until the user writes`)
  } else if (!reply.reason.startsWith("accepted")) {
    ctx.logger.log("info", `session ${state.id}: task_complete ${reply.reason}`)
  }
  return { ok: reply.ok, text: reply.text }
}

/** The goal is over: kept as met, and one line in the history with the evidence the model gave. */
function goalMet(ctx: EngineContext, state: SessionState, goal: Goal, evidence: string): void {
  ctx.goals?.change(state.id, { kind: "ended", goalID: goal.id, status: "met", why: "task_complete with evidence" })
  const tag = { trigger: "goal", evidence: `${quotedGoal(goal.text, 80)}, ${goal.continues} ${goal.continues === 1 ? "continue" : "continues"}` }
  ctx.journal?.refused(state, tag, "task_complete with evidence", "met", `evidence: ${evidence.trim()}`)
  ctx.logger.log("info", `session ${state.id}: goal met (task_complete with evidence after ${goal.continues} goal continue(s))`)
}
