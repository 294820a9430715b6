/** How a stall reads in the history (journal.ts): its kind, and how long the session said nothing. */
import { formatDuration } from "../../prompts/format.ts"
import type { JournalTag } from "../../core/journal.ts"
import { describeQuietEvents } from "../../core/progress-ceiling.ts"
import type { SessionState } from "../../core/session-state.ts"
import type { Assessment } from "../../core/watchdog.ts"

export function stallTag(state: SessionState, assessment: Exclude<Assessment, { kind: "quiet" | "tool-phase" }>): JournalTag {
  if (assessment.phase === "no-progress") {
    return { trigger: "stall (no progress)", evidence: `no progress for ${formatDuration(assessment.sinceProgressMs)}; alive only through ${describeQuietEvents(state)}` }
  }
  const silent = `silent for ${formatDuration(assessment.silentMs)}`
  const tool = assessment.tool
  return tool ? { trigger: "stall (tool wedged)", evidence: `${silent}; tool \`${tool.tool}\` open for ${formatDuration(tool.ageMs)}` } : { trigger: "stall", evidence: silent }
}
