/**
 * A model repeating itself while it streams: the newest text of a text or reasoning part ends
 * in the same sentence or paragraph many times in a row. Pure, and linear in the capped tail:
 * one Z-function over the reversed tail gives, for every candidate period at once, how far
 * the text keeps repeating it, so no candidate is compared twice and no regex backtracks.
 *
 * What counts, so that ordinary output stays silent (test/corpus/repetition.ts):
 * - the period starts right after a sentence end (`.`, `!`, `?`, `。`, a newline) and the tail
 *   is cut at one, so a unit is whole sentences;
 * - at least `MIN_PERIOD` characters, repeated at least `MIN_COPIES` times exactly (log lines
 *   with a counter or timestamp, import lines, list items are never exact copies);
 * - the unit is not itself a shorter unit repeated (a rule line, a bar of `=`), and it holds
 *   at least `MIN_WORDS` words of which `MIN_DISTINCT_WORDS` differ (a table row of `-`, a
 *   base64 line of one letter are not prose).
 */

/** Characters of the tail searched: a paragraph of up to ~680 characters fits six times. */
export const REPETITION_TAIL = 4096
export const MIN_PERIOD = 20
export const MIN_COPIES = 6
const MAX_UNIT = Math.floor(REPETITION_TAIL / MIN_COPIES)
const MIN_WORDS = 4
const MIN_DISTINCT_WORDS = 3

export type Repetition = {
  /** Length of the repeated unit, in characters. */
  period: number
  /** Exact copies in a row at the end of the tail. */
  copies: number
  /** The unit itself (at most 200 characters of it), for the log and the prompt. */
  unit: string
}

function isSentenceEnd(code: number): boolean {
  // . ! ? newline, then 。 ！ ？; most characters are letters, which the first test sends past
  // the ASCII ones at once (every character of a stream of bare tokens is tested).
  if (code < 64) return code === 46 || code === 33 || code === 63 || code === 10
  return code >= 0x3002 && (code === 0x3002 || code === 0xff01 || code === 0xff1f)
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 10
}

/** The repetition the text ends in, if any; reads only its last REPETITION_TAIL characters. */
export function findRepetition(text: string): Repetition | undefined {
  let start = Math.max(0, text.length - REPETITION_TAIL)
  // Cut the tail at its last sentence end: the sentence being written is not part of the unit.
  let end = text.length
  while (end > start && isSpace(text.charCodeAt(end - 1)) && text.charCodeAt(end - 1) !== 10) end--
  // The sentence being written is shorter than the longest unit that fits MIN_COPIES times, or
  // it is no repetition: a tail with no sentence end is given up on after that many characters.
  const floor = Math.max(start, end - MAX_UNIT)
  while (end > floor && !isSentenceEnd(text.charCodeAt(end - 1))) end--
  if (end === floor && end > start && !isSentenceEnd(text.charCodeAt(end - 1))) return undefined
  const n = end - start
  if (n < MIN_PERIOD * MIN_COPIES) return undefined
  if (!lastSentenceRecurs(text, start, end)) return undefined
  const z = reversedZ(text, start, end)
  // p is a candidate when the unit [end - p, end) starts right after a sentence end.
  for (let p = MIN_PERIOD; p * MIN_COPIES <= n; p++) {
    if (z[p]! < (MIN_COPIES - 1) * p) continue
    const before = end - p - 1
    if (before >= start && !isSentenceEnd(text.charCodeAt(before))) continue
    const covered = z[p]! + p
    const unit = text.slice(end - p, end)
    if (hasShorterPeriod(z, p) || !isProse(unit)) return undefined
    return { period: p, copies: Math.floor(covered / p), unit: unit.trim().slice(0, 200) }
  }
  return undefined
}

/**
 * A quick test that can only rule a repetition out, so ordinary prose (most looks) is spared
 * the Z-function. Every candidate unit ends at `end`, starts right after a sentence end, and is
 * at least MIN_PERIOD and at most n / MIN_COPIES long: so the tail's last sentence, or its last
 * MIN_PERIOD characters if that is longer, ends every copy of it, and must be found MIN_COPIES
 * times in the tail (without overlap: the copies are a unit apart). A few native scans.
 */
function lastSentenceRecurs(text: string, start: number, end: number): boolean {
  const longest = Math.floor((end - start) / MIN_COPIES)
  const limit = end - longest
  let from = end - 1
  while (from > limit && !isSentenceEnd(text.charCodeAt(from - 1))) from--
  // The last sentence starts before any unit could: then no unit holds it whole.
  if (from === limit && from > start && !isSentenceEnd(text.charCodeAt(from - 1))) return false
  const suffix = text.slice(Math.min(from, end - MIN_PERIOD), end)
  // The copy just before the last ends a unit back, between MIN_PERIOD and `longest` characters
  // before `end`: a scan of that stretch alone rules most prose out without reading the tail.
  if (!text.slice(Math.max(start, end - longest - suffix.length), end - MIN_PERIOD).includes(suffix)) return false
  let copies = 0
  for (let at = text.indexOf(suffix, start); at !== -1 && at + suffix.length <= end; at = text.indexOf(suffix, at + suffix.length)) {
    if (++copies >= MIN_COPIES) return true
  }
  return false
}

/**
 * Z-function of text[start, end) read backwards: z[i] is how many characters, going back from
 * end - i, equal those going back from end. So the tail ends in k copies of its last p
 * characters exactly when z[p] >= (k - 1) * p. O(n).
 */
function reversedZ(text: string, start: number, end: number): Int32Array {
  const n = end - start
  const at = (i: number) => text.charCodeAt(end - 1 - i)
  const z = new Int32Array(n + 1)
  z[0] = n
  let l = 0
  let r = 0
  for (let i = 1; i < n; i++) {
    let k = 0
    if (i < r) k = Math.min(r - i, z[i - l]!)
    while (i + k < n && at(k) === at(i + k)) k++
    z[i] = k
    if (i + k > r) {
      l = i
      r = i + k
    }
  }
  return z
}

/** True when the last p characters are themselves a shorter unit repeated (a bar, a rule). */
function hasShorterPeriod(z: Int32Array, p: number): boolean {
  for (let q = 1; q < p; q++) if (p % q === 0 && z[q]! >= p - q) return true
  return false
}

function isProse(unit: string): boolean {
  // A Han or kana character is a word of its own: those scripts put no spaces between words.
  const words = unit.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|\p{L}{2,}/gu) ?? []
  return words.length >= MIN_WORDS && new Set(words).size >= MIN_DISTINCT_WORDS
}

function hasSentenceEnd(piece: string): boolean {
  for (let i = 0; i < piece.length; i++) if (isSentenceEnd(piece.charCodeAt(i))) return true
  return false
}

/** Characters of new text between two looks at a part: the per-delta cost stays amortized O(1). */
export const CHECK_EVERY = 1024
/** Parts followed per session (a message streams a reasoning part and a text part at a time). */
export const MAX_PARTS = 4

/**
 * `length`: characters of the part so far; `lookAt`: the length at which the next look is due;
 * `pendingFrom`: the length when `pending` was last emptied (what it holds is the rest);
 * `ended`: a delta since the last look held a sentence end (each delta is scanned until one does).
 * One counter moves per delta, the others are compared with it.
 */
type PartTail = { id: string; tail: string; pending: string; pendingFrom: number; length: number; lookAt: number; ended: boolean }

/**
 * The streamed parts of ONE session: each part's newest text (at most REPETITION_TAIL plus the
 * deltas of one look, CHECK_EVERY) and how much arrived since the last look. Deltas are queued
 * as a rope (a concatenation per delta copies nothing; the look flattens it once, cheaper than
 * joining an array of them) and read only at a look; `text` (a part's whole text
 * so far, as 1.x part updates carry it) replaces, and counts only what is new, so a host that
 * sends both is not counted twice.
 */
export class StreamedParts {
  private parts: PartTail[] = []
  private last?: PartTail

  /** Feeds one piece of output; returns a repetition when this piece completed a look that found one. */
  feed(partID: string, delta: string | undefined, text: string | undefined): Repetition | undefined {
    // A part streams in a run of deltas: the last one fed is the likeliest.
    const part = this.last !== undefined && this.last.id === partID ? this.last : this.part(partID)
    if (text !== undefined) {
      if (text.length <= part.length) return undefined
      part.length = text.length
      part.tail = text
      if (part.pending.length > 0) part.pending = ""
      part.pendingFrom = part.length
      part.ended = false
    } else if (delta) {
      part.length += delta.length
      part.pending += delta
      if (!part.ended) part.ended = hasSentenceEnd(delta)
      // A delta of megabytes is still only its tail.
      if (part.length - part.pendingFrom > 2 * REPETITION_TAIL) this.settle(part)
    } else return undefined
    if (part.length < part.lookAt) return undefined
    part.lookAt = part.length + CHECK_EVERY
    if (text === undefined && !part.ended) {
      // A KB with no sentence end holds no whole unit (a unit is at most MAX_UNIT characters and
      // ends in one), so nothing before it can be part of a later repetition: drop it all,
      // without building the string (a stream of bare tokens costs a scan per KB, no copy).
      part.tail = ""
      part.pending = ""
      part.pendingFrom = part.length
      return undefined
    }
    part.ended = false
    this.settle(part)
    return findRepetition(part.tail)
  }

  private settle(part: PartTail): void {
    const joined = part.pending.length > 0 ? part.tail + part.pending : part.tail
    part.tail = joined.length > REPETITION_TAIL ? joined.slice(-REPETITION_TAIL) : joined
    part.pending = ""
    part.pendingFrom = part.length
  }

  reset(): void {
    this.parts = []
    this.last = undefined
  }

  get size(): number {
    return this.parts.length
  }

  private part(id: string): PartTail {
    const parts = this.parts
    for (let i = 0; i < parts.length; i++) if (parts[i]!.id === id) return (this.last = parts[i]!)
    const fresh: PartTail = { id, tail: "", pending: "", pendingFrom: 0, length: 0, lookAt: CHECK_EVERY, ended: false }
    parts.push(fresh)
    if (parts.length > MAX_PARTS) parts.shift()
    return (this.last = fresh)
  }
}
