/**
 * Silent dead stream: the provider stream died after emitting only reasoning (or nothing visible)
 * and the host still finalised the message with a finish reason, so no error or stall path fires
 * and the session sits idle. Only the newest assistant message is judged: an earlier step that
 * made tool calls and said nothing is normal work.
 */
import type { TranscriptMessage } from "../core/transcript.ts"
import { capTail } from "./text.ts"

export type DeadStreamInput = {
  message: TranscriptMessage | undefined
  minTokens: number
  /**
   * Tool calls in flight according to the snapshot taken when the session went idle. The
   * live counter is reset by the idle transition itself, so only the snapshot can veto.
   */
  toolsInFlightAtIdle: number
}

export type DeadStreamFinding = { finish: string; tokens: number }

/** Blanks and zero-width characters: a part made only of these shows nothing. */
const INVISIBLE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d, 0xa0, 0xfeff, 0x200b, 0x200c, 0x200d, 0x2060, 0x180e])

/** What a stream that died at once leaves behind: a lone full stop or ellipsis. */
const LONE_MARKS: ReadonlySet<string> = new Set([".", "\u3002", "\u2026", "..."])

const THINK_OPEN = "<think>"
const THINK_CLOSE = "</think>"

/** `text` without `<think>…</think>` blocks; an unclosed `<think>` swallows the rest. One pass. */
function withoutThinking(text: string): string {
  const lower = text.toLowerCase()
  let open = lower.indexOf(THINK_OPEN)
  if (open < 0) return text
  let kept = ""
  let from = 0
  while (open >= 0) {
    kept += text.slice(from, open)
    const close = lower.indexOf(THINK_CLOSE, open + THINK_OPEN.length)
    if (close < 0) return kept
    from = close + THINK_CLOSE.length
    open = lower.indexOf(THINK_OPEN, from)
  }
  return kept + text.slice(from)
}

/**
 * Whether a text part shows anything. Only its last MAX_SCANNED_TEXT characters are looked
 * at, so a part that ends in that much whitespace counts as empty: a stream that emitted
 * nothing but blank space died just the same. Zero-width characters, reasoning leaked as
 * `<think>` (closed or not) and a lone "." show nothing either.
 */
function hasVisibleText(text: string): boolean {
  const shown = withoutThinking(capTail(text))
  let first = -1
  let last = -1
  for (let i = 0; i < shown.length; i++) {
    if (INVISIBLE.has(shown.charCodeAt(i))) continue
    if (first < 0) first = i
    last = i
  }
  if (first < 0) return false
  // Only a lone mark among the visible characters (zero-width ones may sit between).
  if (last - first < 8) {
    let core = ""
    for (let i = first; i <= last; i++) if (!INVISIBLE.has(shown.charCodeAt(i))) core += shown[i]
    if (LONE_MARKS.has(core)) return false
  }
  return true
}

const count = (value: number | undefined) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0)

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
