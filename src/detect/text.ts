/**
 * Bounded text helpers shared by the detectors. Everything here walks its input once (or
 * walks a fixed-size window), so a detector built from these pieces stays linear in the
 * size of the capped tail whatever the model wrote. See README.md in this folder.
 */
import { MAX_SCANNED_TEXT, type TranscriptMessage } from "../core/transcript.ts"

/**
 * How far back before the scanned tail we look to learn whether the tail starts inside a
 * fenced code block. Only fence lines are inspected there, with plain string checks.
 */
export const FENCE_CONTEXT_CHARS = 65_536

/** Longest single line a line-oriented detector examines (its end is what matters). */
export const MAX_LINE_CHARS = 400

/**
 * The text (or reasoning) of one message, parts joined in order, keeping at most `keep`
 * characters from the end. Walks the parts from the end, so a message with thousands of
 * parts or a megabyte part costs no more than `keep` characters of copying. When anything
 * was dropped the result starts with "…" (see below).
 */
export function messageTail(message: TranscriptMessage | undefined, kind: "text" | "reasoning", keep: number = MAX_SCANNED_TEXT): string {
  if (!message) return ""
  const pieces: string[] = []
  let length = 0
  let cut = false
  for (let i = message.parts.length - 1; i >= 0; i--) {
    const part = message.parts[i]
    if (!part || part.kind !== kind || typeof part.text !== "string") continue
    // Host-injected parts (v1 `synthetic`) are not the model's words.
    if (part.kind === "text" && part.synthetic) continue
    if (length >= keep) {
      cut = true
      break
    }
    // Trailing blanks are dropped before the window is taken (capTail says why).
    let piece = part.text.trimEnd()
    if (piece.length > keep) {
      piece = piece.slice(piece.length - keep)
      cut = true
    }
    pieces.push(piece)
    length += piece.length + 1
  }
  pieces.reverse()
  let joined = pieces.join("\n")
  if (joined.length > keep) {
    joined = joined.slice(joined.length - keep)
    cut = true
  }
  // A cut result starts with "…": it is then longer than the window, so every detector that
  // re-caps it knows the first line it sees is partial.
  return cut ? `\u2026${joined}` : joined
}

/**
 * The last `cap` characters of `text` that end on something other than blank space: trailing
 * blanks say nothing about how a reply ends, and a megabyte of them after "<edit" must not push
 * the opened tag out of the window (it is a printed call cut short, not a reply with no text).
 */
export function capTail(text: string, cap: number = MAX_SCANNED_TEXT): string {
  return tailWindow(text, cap).tail
}

/** capTail, and whether anything but trailing blanks was left out at the start. */
function tailWindow(text: string, cap: number): { tail: string; cut: boolean } {
  const trimmed = text.trimEnd()
  return trimmed.length > cap ? { tail: trimmed.slice(trimmed.length - cap), cut: true } : { tail: trimmed, cut: false }
}

function isSpaceCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || c === 0xfeff
}

function isBlankRange(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpaceCode(text.charCodeAt(i))) return false
  return true
}

/**
 * Up to `count` non-blank lines from the end of `text`, oldest first, each trimmed. A line
 * longer than `maxLineChars`, or cut by the scan window, keeps only its end, prefixed with
 * "…". Only the capped tail of `text` is walked; anything but a string has no lines.
 */
export function lastNonBlankLines(text: string, count: number, maxLineChars = MAX_LINE_CHARS): string[] {
  const out: string[] = []
  if (typeof text !== "string") return out
  const { tail, cut } = tailWindow(text, MAX_SCANNED_TEXT)
  let end = tail.length
  while (out.length < count) {
    // Skip blank lines and trailing spaces one character at a time: no slicing per blank line.
    while (end > 0 && isSpaceCode(tail.charCodeAt(end - 1))) end--
    if (end === 0) break
    const nl = tail.lastIndexOf("\n", end - 1)
    let line = tail.slice(nl + 1, end).trim()
    // A line cut by the window (or by maxLineChars) is marked, so patterns anchored at a
    // line start never mistake its end for a whole line.
    if (line.length > maxLineChars) line = `\u2026${line.slice(line.length - maxLineChars)}`
    else if (nl < 0 && cut) line = `\u2026${line}`
    out.push(line)
    end = nl < 0 ? 0 : nl
  }
  return out.reverse()
}

export const PICTOGRAPH = /\p{Extended_Pictographic}/u

/** Characters that close a sentence without changing what it says (a question mark does change it). */
const DECORATION = " \t\r\n\u00a0.!*_~\u2026)]\"'\u201d\u2019\ufe0f\u200d\u3002\uff01\uff0e"

function isDecoration(ch: string): boolean {
  return DECORATION.includes(ch) || PICTOGRAPH.test(ch)
}

/** `line` without the decoration after its last clause. Walks back one code point at a time (no regex backtracking). */
export function trimEndDecoration(line: string): string {
  let end = line.length
  while (end > 0) {
    let start = end - 1
    const code = line.charCodeAt(start)
    if (code >= 0xdc00 && code <= 0xdfff && start > 0) {
      const high = line.charCodeAt(start - 1)
      if (high >= 0xd800 && high <= 0xdbff) start -= 1
    }
    if (!isDecoration(line.slice(start, end))) break
    end = start
  }
  return line.slice(0, end)
}

/** True when a line carries no words at all: rules, bullets, emoji, punctuation. */
export function isDecorativeLine(line: string): boolean {
  const core = trimEndDecoration(line)
  // By code unit, as it always was: a surrogate pair inside the line counts as words.
  for (let i = 0; i < core.length; i++) if (!"-=#\u2014\u2013|".includes(core[i]!) && !isDecoration(core[i]!)) return false
  return true
}

/** The line's last clause is a question (an ASCII or a full-width question mark). */
export function endsAsking(line: string): boolean {
  const core = trimEndDecoration(line)
  return core.endsWith("?") || core.endsWith("\uff1f")
}

/** An open fence (`marker` is the char code of ` or ~) or none (`marker` 0). Mutated in place. */
type FenceState = { marker: number; length: number }

/**
 * Walks the fence lines of `text`, updating `state` and reporting each fence that opens or
 * closes. Only lines that can be fences are visited: candidates come from `indexOf` on the two
 * marker runs, so plain text or blank lines cost one memchr-like sweep, and each candidate is
 * checked with a look-back of at most three characters. No allocation per line.
 */
function walkFences(text: string, state: FenceState, visit?: (lineStart: number, lineEnd: number, opened: boolean) => void): void {
  let nextTick = text.indexOf("```")
  let nextTilde = text.indexOf("~~~")
  while (nextTick >= 0 || nextTilde >= 0) {
    const at = nextTick < 0 ? nextTilde : nextTilde < 0 ? nextTick : Math.min(nextTick, nextTilde)
    const marker = text.charCodeAt(at)
    let runEnd = at
    while (runEnd < text.length && text.charCodeAt(runEnd) === marker) runEnd++
    let lineStart = at
    while (lineStart > 0 && at - lineStart < 3 && text.charCodeAt(lineStart - 1) === 32) lineStart--
    if (lineStart === 0 || text.charCodeAt(lineStart - 1) === 10) {
      let lineEnd = text.indexOf("\n", runEnd)
      if (lineEnd < 0) lineEnd = text.length
      if (state.marker === 0) {
        state.marker = marker
        state.length = runEnd - at
        visit?.(lineStart, lineEnd, true)
      } else if (marker === state.marker && runEnd - at >= state.length && isBlankRange(text, runEnd, lineEnd)) {
        state.marker = 0
        state.length = 0
        visit?.(lineStart, lineEnd, false)
      }
    }
    if (marker === 96) nextTick = text.indexOf("```", runEnd)
    else nextTilde = text.indexOf("~~~", runEnd)
  }
}

/** Inline code removed from every line of a prose segment (only lines holding a backtick are touched). */
function stripInlineCodeLines(segment: string): string {
  if (segment.indexOf("`") < 0) return segment
  return segment.split("\n").map(stripInlineCode).join("\n")
}

/**
 * The capped tail of `text` with fenced code blocks and inline code spans blanked out,
 * for detectors that must not read code as prose (`keepInlineCode`: inline spans stay as written). Whether the tail starts inside a fence
 * is learnt from up to FENCE_CONTEXT_CHARS before it. An unclosed fence swallows the rest
 * of the text, as a markdown renderer would show it.
 */
export function proseTail(reply: string, cap: number = MAX_SCANNED_TEXT, keepInlineCode = false): string {
  // Trailing blanks are no prose, and must not push the prose out of the window (capTail).
  const text = reply.trimEnd()
  const prose = keepInlineCode ? (segment: string) => segment : stripInlineCodeLines
  let start = 0
  const state: FenceState = { marker: 0, length: 0 }
  if (text.length > cap) {
    const cut = text.length - cap
    // Begin at a line boundary when there is one, so fences are seen as whole lines.
    const nl = text.indexOf("\n", cut)
    start = nl < 0 ? cut : nl + 1
    let contextStart = Math.max(0, cut - FENCE_CONTEXT_CHARS)
    if (contextStart > 0) {
      const boundary = text.indexOf("\n", contextStart)
      contextStart = boundary < 0 || boundary >= start ? start : boundary + 1
    }
    if (contextStart < start) walkFences(text.slice(contextStart, start), state)
  }
  const tail = start === 0 ? text : text.slice(start)
  const pieces: string[] = []
  let proseFrom = state.marker === 0 ? 0 : -1
  walkFences(tail, state, (lineStart, lineEnd, opened) => {
    if (opened) {
      if (proseFrom >= 0) pieces.push(prose(tail.slice(proseFrom, lineStart)))
      proseFrom = -1
    } else {
      proseFrom = lineEnd
    }
  })
  if (proseFrom >= 0) pieces.push(prose(tail.slice(proseFrom)))
  return pieces.join("\n")
}

/**
 * `line` with inline code spans (`x` and ``x``) replaced by a space. A backtick run with
 * no partner of the same length later on the line stays literal. Linear: the partner of
 * every run is found through a table built in one right-to-left pass.
 */
export function stripInlineCode(line: string): string {
  if (line.indexOf("`") < 0) return line
  const runs = [...line.matchAll(/`+/g)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }))
  // partner[k] = index of the next run with the same length as run k, or -1.
  const partner: number[] = []
  const lastSeen = new Map<number, number>()
  for (let k = runs.length - 1; k >= 0; k--) {
    const length = runs[k]!.end - runs[k]!.start
    partner[k] = lastSeen.get(length) ?? -1
    lastSeen.set(length, k)
  }
  let out = ""
  let copied = 0
  for (let k = 0; k < runs.length; k++) {
    const p = partner[k]!
    if (p < 0) continue
    out += line.slice(copied, runs[k]!.start) + " "
    copied = runs[p]!.end
    k = p
  }
  return out + line.slice(copied)
}
