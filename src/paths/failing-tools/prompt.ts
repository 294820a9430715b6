/**
 * Text sent when one tool keeps failing: it names the tool, quotes the newest error (short),
 * and says what to do instead, by what the tool does: re-read a file before editing it again,
 * list the folder before reading a path again, change approach when a command keeps failing.
 */
import { clip, quoteToolName } from "../../prompts/format.ts"

export type FailingTool = {
  tool: string
  /** Failures in a row. */
  failures: number
  /** The newest error, already one capped line. */
  error: string
}

/** The most of an error the prompt quotes: enough to recognise it, never a wall of output. */
const QUOTED_ERROR_CHARS = 160
/** Tools one prompt names at most. */
const MAX_NAMED = 3

const EDITS = new Set(["edit", "write", "patch", "apply_patch", "multiedit", "str_replace", "str_replace_based_edit_tool"])
const READS = new Set(["read", "view", "list", "ls", "glob", "grep"])
const COMMANDS = new Set(["bash", "shell", "exec", "execute", "run"])

export function buildFailingToolsPrompt(failing: readonly FailingTool[]): string {
  const named = failing.slice(0, MAX_NAMED)
  const lines = named.map((f) => `\`${quoteToolName(f.tool)}\` has failed ${f.failures} times in a row; last error: "${quoted(f.error)}". ${insteadOf(f.tool)}`)
  return [`auto-resume: ${lines.join("\n")}`, "Do not retry variations of the same call: take the step above, then carry on with the task."].join("\n")
}

/** What to do instead, by what the tool does. */
function insteadOf(tool: string): string {
  const name = tool.toLowerCase()
  if (EDITS.has(name)) return "Re-read the file to see its current text, then edit against what is actually there."
  if (READS.has(name)) return "List the folder (or search for the file by name) to find the real path before reading again."
  if (COMMANDS.has(name)) return "Read the error, then change approach (another command, a missing setup step) rather than re-running variants."
  return "Read the error, then change approach rather than calling it again the same way."
}

function quoted(error: string): string {
  return clip(error.replace(/"/g, "'"), QUOTED_ERROR_CHARS)
}
