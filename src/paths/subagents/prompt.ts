/**
 * Texts for the subagent paths. A nudge goes to the CHILD session; the parent, when it has
 * to be aborted and resumed, gets the ordinary continue (prompts/continue.ts) with the reason below.
 */

/** To a subagent that has produced nothing for a while. */
export function buildStuckSubagentPrompt(quietSeconds: number, toolRunning: boolean): string {
  const what = toolRunning ? "a tool call has been running" : "you have produced no output"
  return [
    `auto-resume: ${what} for about ${Math.max(1, Math.round(quietSeconds))} seconds, and the session that started you is waiting for your result.`,
    "If you are done, reply now with your final result. Otherwise continue with the next concrete step; if something is blocking you, say what it is in your result instead of waiting.",
  ].join("\n")
}

/** To a subagent whose last turn ended in an error while its parent still waits. */
export function buildCrashedSubagentPrompt(): string {
  return [
    "auto-resume: your last turn ended with an error before you returned a result, and the session that started you is still waiting.",
    "Continue the task from where it stopped and finish with your final result. If the task cannot be completed, return a short result that says why.",
  ].join("\n")
}

/** Reason for the continue that follows an abort of a parent stuck on its subagents. */
export function orphanParentReason(detail: string): string {
  return `your subagent work ended but this session did not pick the result up (${detail})`
}
