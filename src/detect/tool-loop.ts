/**
 * Tool-call loops found by the idle scan: the tool calls of the current user episode, checked at
 * the tail for the same call three or more times in a row, or a cycle of 2 to 6 calls repeated at
 * least three times (the live tracker is the loops path, paths/loops/live-loop.ts). "The same call" is the tool name plus
 * its input with whitespace inside strings collapsed (`ls  -la` is `ls -la`): names alone would
 * call `read, read, read` over three different files a loop, which is how most ordinary turns
 * look. The judge's one history read holds enough messages for the longest cycle made one call
 * per step (IDLE_LOOP_MESSAGES).
 */
import type { TranscriptMessage } from "../core/transcript.ts"
import { fingerprintArgs } from "./tool-fingerprint.ts"

export type IdleToolLoop = {
  kind: "same-tool" | "cycle"
  /** Tool names of one repetition, oldest first (one name for `same-tool`). */
  tools: string[]
  /** Full repetitions found at the tail (calls in a row for `same-tool`). */
  repeats: number
}

export type IdleScanOptions = {
  /** "call" (default): name + input fingerprint; "name": tool names only. */
  compare?: "call" | "name"
  /** Most recent tool calls inspected (default 60). */
  maxCalls?: number
}

/** Tool calls inspected by the idle scan, newest last. */
export const IDLE_SCAN_MAX_CALLS = 60
/** The same call this many times in a row is a loop. */
const SAME_TOOL_MIN = 3
/** A cycle of MIN_PERIOD..MAX_PERIOD calls repeated this many times is a loop. */
const CYCLE_MIN_REPEATS = 3
const MIN_PERIOD = 2
const MAX_PERIOD = 6
/**
 * Messages a history read needs for the longest cycle three times over when each call is its own
 * step (an assistant message each), plus the user message before them and our own prompts between.
 */
export const IDLE_LOOP_MESSAGES = MAX_PERIOD * CYCLE_MIN_REPEATS * 2 + 4

/**
 * Tool calls of the current user episode, oldest first, at most `maxCalls` of them.
 * The episode starts after the newest genuine user message: a user who asks for the same
 * thing three times is not a loop. The plugin's own prompts (`own`) do not end the episode,
 * so a loop that continues across our nudges is still seen.
 */
export function episodeToolCalls(messages: readonly TranscriptMessage[], maxCalls = IDLE_SCAN_MAX_CALLS): { tool: string; input: unknown }[] {
  const out: { tool: string; input: unknown }[] = []
  for (let m = messages.length - 1; m >= 0 && out.length < maxCalls; m--) {
    const message = messages[m]!
    if (message.role === "user") {
      if (!message.own) break
      continue
    }
    for (let p = message.parts.length - 1; p >= 0 && out.length < maxCalls; p--) {
      const part = message.parts[p]!
      if (part.kind === "tool") out.push({ tool: part.tool, input: part.input })
    }
  }
  return out.reverse()
}

/** Length of the run at the end of `keys` where each entry equals the one `period` before it, plus `period`. */
function tailRun(keys: readonly string[], period: number): number {
  let run = period
  for (let i = keys.length - 1 - period; i >= 0 && keys[i] === keys[i + period]; i--) run++
  return run
}

export function detectIdleToolLoop(messages: readonly TranscriptMessage[], options: IdleScanOptions = {}): IdleToolLoop | undefined {
  const calls = episodeToolCalls(messages, Math.max(1, Math.min(options.maxCalls ?? IDLE_SCAN_MAX_CALLS, 500)))
  const keys = calls.map((c) => (options.compare === "name" || c.input === undefined ? c.tool : `${c.tool}\u0000${fingerprintArgs(c.input).spaced}`))
  const n = keys.length
  if (n === 0) return undefined
  const same = tailRun(keys, 1)
  if (same >= SAME_TOOL_MIN) return { kind: "same-tool", tools: [calls[n - 1]!.tool], repeats: same }
  for (let period = MIN_PERIOD; period <= MAX_PERIOD && n >= period * CYCLE_MIN_REPEATS; period++) {
    const repeats = Math.floor(tailRun(keys, period) / period)
    // A cycle must hold at least two distinct calls; one repeated call is the same-tool rule.
    if (repeats >= CYCLE_MIN_REPEATS && new Set(keys.slice(n - period)).size >= 2) {
      return { kind: "cycle", tools: calls.slice(n - period).map((c) => c.tool), repeats }
    }
  }
  return undefined
}
