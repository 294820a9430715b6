/** Text sent after a run was stopped because its streamed output kept repeating one passage (paths/repetition/). */
import { clip } from "../../prompts/format.ts"

const MAX_QUOTED_UNIT = 120

export function buildRepetitionPrompt(repetition: { unit: string; copies: number }): string {
  const quoted = clip(repetition.unit.replace(/[\r\n\t`]+/g, " ").replace(/\s+/g, " ").trim(), MAX_QUOTED_UNIT)
  return [
    `auto-resume: your last output was stopped because it repeated the same passage ${repetition.copies} times in a row ("${quoted}"). Writing it again will not move the task on.`,
    "Do not write that passage again. Pick up from where the work actually is: take the next concrete step, or, if you are unsure what it is, say in a sentence or two what is blocking you.",
  ].join("\n")
}
