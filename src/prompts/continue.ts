/**
 * The text of a stall continue. A custom `continuePrompt` is sent verbatim; otherwise the
 * prompt tells the model why it is being poked, how many tries this is, and that it must pick
 * up where it stopped rather than start anything new.
 */
import { formatDuration, formatLocalTime } from "./format.ts"

export type ContinueContext = {
  reason: string
  attempt: number
  maxAttempts: number
  /** Continues since the last genuine user message, this one included. */
  episodeContinue: number
  silentMs: number
  now: number
}

export type ContinuePromptOptions = { continuePrompt?: string; richContinuePrompt: boolean }

export const PLAIN_CONTINUE = "continue"

/**
 * Shown to the user as well as the model (the message sits in the user's column of the chat),
 * so it names "the user" rather than "you"; a continue that spends no budget (a rate-limit
 * wait) says so instead of counting "#0".
 */
function budgetLine(episodeContinue: number): string {
  return episodeContinue > 0 ? `continue #${episodeContinue} since the user's last message` : "not counted against the continue budget"
}

export function buildContinuePrompt(ctx: ContinueContext, options: ContinuePromptOptions): string {
  if (options.continuePrompt !== undefined && options.continuePrompt.trim() !== "") return options.continuePrompt
  if (!options.richContinuePrompt) return PLAIN_CONTINUE
  const silence = ctx.silentMs > 0 ? ` (no activity for ${formatDuration(ctx.silentMs)})` : ""
  return [
    `continue — auto-resume: ${ctx.reason}${silence}.`,
    `Attempt ${ctx.attempt}/${ctx.maxAttempts} at ${formatLocalTime(ctx.now)}; ${budgetLine(ctx.episodeContinue)}.`,
    "Carry on exactly where you stopped. Do not start new work, do not redo finished steps, and take no destructive action that was not already planned.",
    "If everything is already done, reply with a short summary of what was done instead.",
  ].join("\n")
}
