/** The name and description of the tool the plugin registers on both hosts. */
export const TASK_COMPLETE_TOOL = "task_complete"

export const TASK_COMPLETE_DESCRIPTION =
  "Call this once, when every part of the task you were given is finished and verified, to say you are done. " +
  "After calling it, end your turn with a short summary; do not call it again unless the user asks for more work."
