/** The name and description of the tool the plugin registers on both hosts. */
export const TASK_COMPLETE_TOOL = "task_complete"

export const TASK_COMPLETE_DESCRIPTION =
  "Call this once, when every part of the task you were given is finished and verified, to say you are done. " +
  "Give `evidence`: the commands you ran and what they showed; when the session has a goal, it is met only with evidence and every todo closed. " +
  "After calling it, end your turn with a short summary; do not call it again unless the user asks for more work."

/** The `evidence` argument, as both hosts describe it to the model. */
export const TASK_COMPLETE_EVIDENCE_DESCRIPTION = "The commands you ran to verify the work and what they showed (for example the test command and its pass/fail counts)."

/** Evidence longer than this is cut before it is read: it is quoted in one history line. */
export const MAX_EVIDENCE_CHARS = 2000
