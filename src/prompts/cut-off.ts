/** The continue sent after an answer that was cut off at the output limit (detect/cut-off.ts). */

export const CUT_OFF_PROMPT =
  "Your last answer was cut off because it reached the output limit. " +
  "Continue from exactly where it stopped, without repeating what is already written; if a lot is left, do it in smaller steps."

/** `tool`: the call that was cut inside its arguments, so it never ran. */
export function cutOffPrompt(tool?: string): string {
  if (tool === undefined) return CUT_OFF_PROMPT
  const which = tool === "the tool" ? "a tool call" : `a call to ${tool}`
  return (
    `Your last answer was cut off because it reached the output limit while you were writing ${which}, so that call never ran. ` +
    "Make the call again, in full, with complete arguments; if they are long, split the work into smaller calls."
  )
}
