/**
 * Text sent when the model is caught repeating tool calls (idle scan or live tracker).
 * The prompt names what was repeated so the model can recognise it, and asks for a
 * different next step rather than a blind retry.
 */
import { clip } from "./format.ts"

export type ToolLoopDescription = {
  /** Tool names of one repetition, oldest first. */
  tools: readonly string[]
  /** How many times it came round (or calls in a row for a single tool). */
  repeats: number
}

const MAX_NAME_CHARS = 60
const MAX_NAMES = 5

/** A tool name safe to quote: one line, no backticks, bounded. */
export function quoteToolName(name: string): string {
  return clip(name.replace(/[\r\n\t`]+/g, " ").trim(), MAX_NAME_CHARS) || "(unnamed)"
}

export function buildToolLoopPrompt(loop: ToolLoopDescription): string {
  const names = loop.tools.slice(0, MAX_NAMES).map((t) => `\`${quoteToolName(t)}\``)
  const pattern =
    names.length <= 1
      ? `the ${names[0] ?? "same"} tool ${loop.repeats} times in a row with the same (or nearly the same) input`
      : `the same sequence of tool calls (${names.join(" → ")}) ${loop.repeats} times over`
  return [
    `auto-resume: you have called ${pattern}, and the results are not changing. This looks like a loop.`,
    "Stop repeating that call. Look at what the previous results already told you, then either take a different step that moves the task forward, or explain briefly what is blocking you.",
  ].join("\n")
}

const MAX_QUOTED_UNIT = 120

/** Text sent after a run was stopped because its streamed output kept repeating one passage. */
export function buildRepetitionPrompt(repetition: { unit: string; copies: number }): string {
  const quoted = clip(repetition.unit.replace(/[\r\n\t`]+/g, " ").replace(/\s+/g, " ").trim(), MAX_QUOTED_UNIT)
  return [
    `auto-resume: your last output was stopped because it repeated the same passage ${repetition.copies} times in a row ("${quoted}"). Writing it again will not move the task on.`,
    "Do not write that passage again. Pick up from where the work actually is: take the next concrete step, or, if you are unsure what it is, say in a sentence or two what is blocking you.",
  ].join("\n")
}
