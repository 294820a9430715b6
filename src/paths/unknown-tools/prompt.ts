/**
 * Text sent when the model keeps calling a tool that does not exist: it names the wrong
 * tool, says plainly that there is no such tool, offers the closest real one when there is
 * one, and lists the first 20 available tools so the model can pick for itself.
 */
import { quoteToolName } from "../../prompts/format.ts"

/** Tools listed in the prompt at most. */
export const LISTED_TOOLS_MAX = 20

export type UnknownToolPromptInput = {
  wrongName: string
  count: number
  closest?: string
  /** Real tool names, in the host's order (the caller drops the host's `invalid` placeholder). */
  available: readonly string[]
}

export function buildUnknownToolPrompt(input: UnknownToolPromptInput): string {
  const wrong = quoteToolName(input.wrongName)
  const lines = [
    `auto-resume: there is no tool called \`${wrong}\`; you have tried it ${input.count} times and every call failed.`,
  ]
  if (input.closest !== undefined) lines.push(`Did you mean \`${quoteToolName(input.closest)}\`?`)
  const listed = input.available.slice(0, LISTED_TOOLS_MAX).map(quoteToolName)
  if (listed.length > 0) {
    const more = input.available.length > listed.length ? `, and ${input.available.length - listed.length} more` : ""
    lines.push(`Tools you can call: ${listed.join(", ")}${more}.`)
  }
  lines.push("Use one of those tools (check the exact spelling) and carry on with the task.")
  return lines.join("\n")
}
