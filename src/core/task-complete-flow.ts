/**
 * The `task_complete` tool's effect on a session: read the todos (bounded), ask the pure
 * decision (task-complete.ts), keep its counters, and latch completion when it says so.
 */
import type { EngineContext } from "./context.ts"
import { readTodosBounded } from "./host-calls.ts"
import type { SessionState } from "./session-state.ts"
import { decideTaskComplete } from "./task-complete.ts"
import type { TodoSnapshot } from "../todos/open.ts"

export type TaskCompleteResult = { ok: boolean; text: string }

export async function runTaskComplete(ctx: EngineContext, state: SessionState, onLatch: (s: SessionState) => void): Promise<TaskCompleteResult> {
  const options = ctx.effective(state)
  // A subagent skips the open-todos gate (task-complete.ts): its list is not worth a read.
  const todos: TodoSnapshot = state.todos ?? (state.parentID ? "none" : await readTodosBounded(ctx, state.id, options.sendTimeoutMs))
  const step = decideTaskComplete({
    todos,
    isSubagent: state.parentID !== undefined,
    repeatCalls: state.taskCompleteRepeats,
    refusals: state.taskCompleteRefusals,
    maxRefusals: options.taskCompleteMaxRefusals,
  })
  state.taskCompleteRepeats = step.next.repeatCalls
  state.taskCompleteRefusals = step.next.refusals
  const { reply } = step
  if (step.complete && !state.completed) {
    state.completed = true
    onLatch(state)
    ctx.logger.log("info", `session ${state.id}: task_complete ${reply.reason}; no further nudges until the user writes`)
  } else if (!reply.reason.startsWith("accepted")) {
    ctx.logger.log("info", `session ${state.id}: task_complete ${reply.reason}`)
  }
  return { ok: reply.ok, text: reply.text }
}
