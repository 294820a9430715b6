/**
 * Silent dead stream: the provider stream died after emitting only reasoning (or nothing
 * visible at all) and the host still finalised the message with a finish reason, so no
 * error or stall path ever fires and the session just sits idle.
 *
 * Only the newest assistant message is judged: an earlier step that made tool calls and
 * said nothing is normal work, and a delivered text answer is a normal ending.
 */
import type { TranscriptMessage } from "../core/transcript.ts"
import { capTail } from "./text.ts"

export type DeadStreamInput = {
  /** The newest assistant message of the turn. */
  message: TranscriptMessage | undefined
  /** `silentDeadStreamMinTokens`. */
  minTokens: number
  /**
   * Tool calls in flight according to the snapshot taken when the session went idle. The
   * live counter is reset by the idle transition itself, so only the snapshot can veto.
   */
  toolsInFlightAtIdle: number
}

export type DeadStreamFinding = { finish: string; tokens: number }

/**
 * Whether a text part shows anything. Only its last MAX_SCANNED_TEXT characters are looked
 * at, so a part that ends in that much whitespace counts as empty: a stream that emitted
 * nothing but blank space died just the same.
 */
function hasVisibleText(text: string): boolean {
  const tail = capTail(text)
  for (let i = tail.length - 1; i >= 0; i--) {
    const c = tail.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 0xa0 && c !== 0xfeff) return true
  }
  return false
}

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0
}

export function silentDeadStream(input: DeadStreamInput): DeadStreamFinding | undefined {
  const { message } = input
  if (!message || message.role !== "assistant") return undefined
  // Any finish reason qualifies ("stop", "unknown", ...); no finish means not finished.
  if (typeof message.finish !== "string" || message.finish === "") return undefined
  // A turn that ended in an error belongs to the error paths (ESC, provider failures).
  if (message.errorName) return undefined
  if (input.toolsInFlightAtIdle > 0) return undefined
  for (const part of message.parts) {
    // A tool part of any status means the turn was working, not silent.
    if (part.kind === "tool") return undefined
    if (part.kind === "text" && !part.synthetic && hasVisibleText(part.text)) return undefined
  }
  const tokens = count(message.outputTokens) + count(message.reasoningTokens)
  if (tokens < Math.max(0, input.minTokens)) return undefined
  return { finish: message.finish, tokens }
}
