import { describe, expect, test } from "bun:test"
import { CHECK_EVERY, findRepetition, MAX_PARTS, MIN_COPIES, REPETITION_TAIL, StreamedParts, type Repetition } from "../../../src/detect/repetition.ts"
import { REPETITION_CORPUS, REPETITION_NEGATIVES, REPETITION_POSITIVES, type StreamSample } from "../../corpus/repetition.ts"
import { buildRepetitionPrompt } from "../../../src/paths/repetition/prompt.ts"

const SENTENCE = "I need to verify the session table before I change it. "

/** Feeds a sample in small deltas, as a host streams it; the first repetition reported. */
function stream(sample: StreamSample, chunk = 7): Repetition | undefined {
  const parts = new StreamedParts()
  const text = sample.unit ? sample.text + sample.unit.repeat(Math.ceil((CHECK_EVERY + 1) / sample.unit.length)) : sample.text
  for (let i = 0; i < text.length; i += chunk) {
    const found = parts.feed("prt_1", text.slice(i, i + chunk), undefined)
    if (found) return found
  }
  return undefined
}

describe("findRepetition", () => {
  test("a sentence repeated past the rule is found, with its unit and count", () => {
    const found = findRepetition("Let me start. " + SENTENCE.repeat(10))
    expect(found).toBeDefined()
    expect(found!.unit).toBe(SENTENCE.trim())
    expect(found!.copies).toBe(10)
  })

  test("control: the same sentence one copy short of the rule is not", () => {
    expect(findRepetition("Let me start. " + SENTENCE.repeat(MIN_COPIES - 1))).toBeUndefined()
    expect(findRepetition("Let me start. " + SENTENCE.repeat(MIN_COPIES))).toBeDefined()
  })

  test("a sentence being written after the loop does not hide it; a change of subject does", () => {
    expect(findRepetition(SENTENCE.repeat(8) + "I need to ver")).toBeDefined()
    expect(findRepetition(SENTENCE.repeat(8) + "Found it: the key was misspelled. Fixing it now.")).toBeUndefined()
  })

  test("a short unit (a word, a rule line) is not a sentence", () => {
    expect(findRepetition("ok. ".repeat(300))).toBeUndefined()
    expect(findRepetition("=====\n".repeat(300))).toBeUndefined()
  })

  test("only the capped tail is read: a 1 MB input answers as its last 4 KB does", () => {
    const loopAtHead = SENTENCE.repeat(50) + "x".repeat(1_000_000)
    expect(findRepetition(loopAtHead)).toBeUndefined()
    const loopAtTail = "y ".repeat(500_000) + SENTENCE.repeat(50)
    expect(findRepetition(loopAtTail)).toEqual(findRepetition(loopAtTail.slice(-REPETITION_TAIL)))
    expect(findRepetition(loopAtTail)).toBeDefined()
    // The Z-function's worst case (every character equal) over the whole cap, at 1 MB.
    expect(findRepetition("a".repeat(1 << 20) + ".")).toBeUndefined()
  })
})

describe("StreamedParts", () => {
  test("looks at a part at most once per KB of new text", () => {
    const parts = new StreamedParts()
    // Under a KB of a loop: no look yet, so nothing reported however repetitive.
    expect(parts.feed("p", SENTENCE.repeat(15), undefined)).toBeUndefined()
    expect(parts.feed("p", SENTENCE.repeat(4), undefined)).toBeDefined()
  })

  test("whole-text updates count only what is new, so a host that also sends deltas is not counted twice", () => {
    const parts = new StreamedParts()
    const text = SENTENCE.repeat(15)
    expect(parts.feed("p", undefined, text)).toBeUndefined()
    // The same text again (a re-announced part): nothing new, no look.
    expect(parts.feed("p", undefined, text)).toBeUndefined()
    expect(parts.feed("p", undefined, text + SENTENCE.repeat(4))).toBeDefined()
  })

  test("one delta larger than the queue's bound is still looked at: its sentence ends count", () => {
    // Over 2 * REPETITION_TAIL in one piece, so the queue is settled before the look.
    const big = SENTENCE.repeat(Math.ceil((2 * REPETITION_TAIL + 1) / SENTENCE.length))
    expect(new StreamedParts().feed("p", big, undefined)).toBeDefined()
    // Control: as large, no sentence end in it, so no unit to repeat.
    expect(new StreamedParts().feed("p", "word ".repeat(big.length / 5), undefined)).toBeUndefined()
  })

  test("parts are kept apart: two parts each under a KB are not summed", () => {
    const parts = new StreamedParts()
    expect(parts.feed("a", SENTENCE.repeat(10), undefined)).toBeUndefined()
    expect(parts.feed("b", SENTENCE.repeat(10), undefined)).toBeUndefined()
  })

  test("memory is bounded: at most MAX_PARTS parts, each at most the tail plus two tails of queued deltas", () => {
    const parts = new StreamedParts()
    for (let i = 0; i < 50; i++) parts.feed(`p${i}`, "z".repeat(10_000), undefined)
    expect(parts.size).toBe(MAX_PARTS)
    for (let i = 0; i < 2000; i++) parts.feed("p49", "word and more words ", undefined)
    for (let i = 0; i < 2000; i++) parts.feed("p48", "x", undefined)
    const kept = (parts as unknown as { parts: { tail: string; pending: string }[] }).parts.map((p) => p.tail.length + p.pending.length)
    for (const length of kept) expect(length).toBeLessThanOrEqual(3 * REPETITION_TAIL)
  })
})

describe("the repetition corpus", () => {
  test(`${REPETITION_CORPUS.length} streams: no false positive, every loop found`, () => {
    const falsePositives: string[] = []
    const missed: string[] = []
    for (const sample of REPETITION_NEGATIVES) {
      if (stream(sample) || stream(sample, 113)) falsePositives.push(sample.name)
      // Stronger than the once-per-KB looks: silent at every point of the stream.
      for (let end = 1; end <= sample.text.length; end += 11) {
        if (findRepetition(sample.text.slice(0, end))) {
          falsePositives.push(`${sample.name} (at ${end})`)
          break
        }
      }
    }
    for (const sample of REPETITION_POSITIVES) {
      if (!stream(sample) || !findRepetition(sample.text)) missed.push(sample.name)
    }
    const chars = REPETITION_CORPUS.reduce((sum, s) => sum + s.text.length, 0)
    console.log(`repetition corpus: ${REPETITION_NEGATIVES.length} negative controls, ${REPETITION_POSITIVES.length} loops, ${chars} characters; false positives ${falsePositives.length}, missed ${missed.length}`)
    expect(falsePositives).toEqual([])
    expect(missed).toEqual([])
    expect(REPETITION_POSITIVES.some((s) => s.kind === "reasoning") && REPETITION_POSITIVES.some((s) => s.kind === "text")).toBe(true)
  })
})

describe("buildRepetitionPrompt", () => {
  test("names the passage, flattened and bounded, and asks for a different next step", () => {
    const text = buildRepetitionPrompt({ unit: "line one\nwith `ticks` " + "x".repeat(500), copies: 9 })
    expect(text).toMatch(/repeated the same passage 9 times/)
    expect(text).toContain("line one with ticks")
    expect(text).not.toContain("`")
    expect(text.length).toBeLessThan(600)
  })
})
