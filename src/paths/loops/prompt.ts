/**
 * Text sent when the model is caught repeating tool calls (the idle rule or the live tracker).
 * The prompt names what was repeated so the model can recognise it, and asks for a
 * different next step rather than a blind retry.
 */
import { quoteToolName } from "../../prompts/format.ts"

export type ToolLoopDescription = {
  /** Tool names of one repetition, oldest first. */
  tools: readonly string[]
  /** How many times it came round (or calls in a row for a single tool). */
  repeats: number
}

const MAX_NAMES = 5

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
