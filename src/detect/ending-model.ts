/**
 * The second layer of the finished-turn judgement: a small linear classifier over hashed
 * character n-grams and words of a reply's last sentences, trained on our own labelled text
 * (test/corpus/training, by scripts/train-ending-model.ts) and shipped as weights in
 * ending-weights.json. It answers the questions phrase tables answer badly across languages:
 * does the reply hand the turn to the user, or say it stops, is done, or moves on?
 *
 * Why this shape: character n-grams need no tokenizer and no word list, so one model reads
 * seventeen languages and scripts without spaces; the hashing keeps the weights a fixed size;
 * a linear model is a few thousand multiply-adds per judgement, linear in the capped input,
 * and its training is deterministic (same text, same seed, same bytes).
 *
 * The features are defined here once, for the trainer and for the judge, so the two cannot
 * drift apart. Any change to them needs the weights trained again (the format number says so).
 */
import { addressesUser, isQuestion } from "./ending.ts"

export const ENDING_CLASSES = ["none", "hand-off", "stop", "done", "ready"] as const
export type EndingClass = (typeof ENDING_CLASSES)[number]

/** Bumped whenever the features change: weights of another format are refused. */
export const FEATURE_FORMAT = 2

/** Characters of a sentence the features read, from its end. */
const SENTENCE_CHARS = 200

/** FNV-1a over a namespace code and a slice of `text`, without building the gram string. */
function hashGram(namespace: number, text: string, start: number, end: number): number {
  let h = (0x811c9dc5 ^ namespace) >>> 0
  h = Math.imul(h, 0x01000193)
  for (let i = start; i < end; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

function hashWord(namespace: number, word: string): number {
  return hashGram(namespace, word, 0, word.length)
}

/** Lower case, compatibility forms folded (full-width letters, U+037E), digits as "0", spaces single. */
function normalize(sentence: string): string {
  const tail = sentence.length > SENTENCE_CHARS ? sentence.slice(sentence.length - SENTENCE_CHARS) : sentence
  return tail.normalize("NFKC").toLowerCase().replace(/\d+/g, "0").replace(/\s+/g, " ").trim()
}

function words(text: string): string[] {
  return text.split(/[^\p{L}\p{M}\p{N}']+/u).filter((w) => w !== "")
}

// Namespaces: a feature's meaning is its gram plus where it was read.
const NS = {
  lastChars: 1,
  lastWord: 2,
  lastBigram: 3,
  lastEnd: 4,
  prevChars: 5,
  prevWord: 6,
  prevBigram: 7,
  prevEnd: 8,
  earlierWord: 9,
  shape: 10,
} as const

function charGrams(out: number[], namespace: number, text: string, min: number, max: number): void {
  const padded = ` ${text} `
  for (let n = min; n <= max; n++) for (let i = 0; i + n <= padded.length; i++) out.push(hashGram(namespace * 8 + n, padded, i, i + n))
}

/**
 * An ending's features: hashed ids (unreduced 32-bit; the model reduces them to its bucket
 * count) with a value each. Features come in blocks (the last sentence, the one before it,
 * the one before that, the shape facts), and each block is scaled to unit length on its own,
 * so a long last sentence does not drown the short "Done." before it, and a long ending does
 * not outvote a short one by its length alone.
 */
export type EndingFeatures = { ids: number[]; values: number[] }

function block(out: EndingFeatures, ids: readonly number[]): void {
  if (ids.length === 0) return
  const value = 1 / Math.sqrt(ids.length)
  for (const id of ids) {
    out.ids.push(id)
    out.values.push(value)
  }
}

function sentenceBlock(sentence: string, chars: number, wordNs: number, bigramNs: number, edgeNs: number): number[] {
  const ids: number[] = []
  charGrams(ids, chars, sentence, 2, 5)
  const w = words(sentence)
  for (const word of w) ids.push(hashWord(wordNs, word))
  for (let i = 0; i + 1 < w.length; i++) ids.push(hashWord(bigramNs, `${w[i]} ${w[i + 1]}`))
  if (w.length > 0) {
    ids.push(hashWord(edgeNs, `^${w[0]}`), hashWord(edgeNs, `${w[w.length - 1]}$`))
    if (w.length > 1) ids.push(hashWord(edgeNs, `^${w[0]} ${w[1]}`), hashWord(edgeNs, `${w[w.length - 2]} ${w[w.length - 1]}$`))
  }
  const end = sentence.slice(-3)
  for (let k = 1; k <= end.length; k++) ids.push(hashGram(edgeNs, end, end.length - k, end.length))
  return ids
}

/**
 * The last sentence read closely, the one before it as closely in its own block (a stop or a
 * done claim is often followed by one sentence of detail), the one before that by its words,
 * and a few facts of shape (is it a question, does it address the reader).
 */
export function endingFeatures(sentences: readonly string[]): EndingFeatures {
  const out: EndingFeatures = { ids: [], values: [] }
  const n = sentences.length
  const last = n > 0 ? normalize(sentences[n - 1]!) : ""
  const prev = n > 1 ? normalize(sentences[n - 2]!) : ""
  const earlier = n > 2 ? normalize(sentences[n - 3]!) : ""
  block(out, sentenceBlock(last, NS.lastChars, NS.lastWord, NS.lastBigram, NS.lastEnd))
  if (prev !== "") block(out, sentenceBlock(prev, NS.prevChars, NS.prevWord, NS.prevBigram, NS.prevEnd))
  if (earlier !== "") block(out, words(earlier).map((w) => hashWord(NS.earlierWord, w)))
  const shape: number[] = [hashWord(NS.shape, `sentences:${n}`), hashWord(NS.shape, `length:${Math.min(6, Math.floor(Math.log2(1 + words(last).length)))}`)]
  if (n > 0 && isQuestion(sentences[n - 1]!)) shape.push(hashWord(NS.shape, "last-asks"))
  if (n > 1 && isQuestion(sentences[n - 2]!)) shape.push(hashWord(NS.shape, "prev-asks"))
  if (n > 2 && isQuestion(sentences[n - 3]!)) shape.push(hashWord(NS.shape, "earlier-asks"))
  if (n > 0 && addressesUser(sentences[n - 1]!)) shape.push(hashWord(NS.shape, "last-addresses"))
  if (n > 1 && addressesUser(sentences[n - 2]!)) shape.push(hashWord(NS.shape, "prev-addresses"))
  block(out, shape)
  return out
}

/** The trained model: weights[bucket * classes + class], plus a bias per class and the decision thresholds. */
export type EndingModel = {
  buckets: number
  classes: readonly EndingClass[]
  weights: Float32Array
  bias: Float32Array
  /** Least probability at which a class is believed (hand-off low: silence wins a doubt). */
  thresholds: Record<EndingClass, number>
}

/** The weights file as the trainer writes it: int8 weights with one scale per class, in base64. */
export type EndingWeightsFile = {
  format: number
  buckets: number
  classes: string[]
  scales: number[]
  bias: number[]
  thresholds: Record<string, number>
  weights: string
  trainedOn?: Record<string, unknown>
}

export function decodeModel(file: EndingWeightsFile): EndingModel {
  if (file.format !== FEATURE_FORMAT) throw new Error(`ending weights of format ${file.format}, expected ${FEATURE_FORMAT}: train them again`)
  const classes = file.classes as EndingClass[]
  if (classes.length !== ENDING_CLASSES.length || classes.some((c, i) => c !== ENDING_CLASSES[i])) throw new Error("ending weights name other classes")
  const bytes = Buffer.from(file.weights, "base64")
  const c = classes.length
  if (bytes.length !== file.buckets * c) throw new Error(`ending weights hold ${bytes.length} values, expected ${file.buckets * c}`)
  const weights = new Float32Array(bytes.length)
  const signed = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length)
  for (let i = 0; i < signed.length; i++) weights[i] = signed[i]! * file.scales[i % c]!
  const thresholds = Object.fromEntries(ENDING_CLASSES.map((k) => [k, file.thresholds[k] ?? 1])) as Record<EndingClass, number>
  return { buckets: file.buckets, classes, weights, bias: Float32Array.from(file.bias), thresholds }
}

/** Class probabilities (softmax of the linear scores), in ENDING_CLASSES order. */
export function classify(model: EndingModel, features: EndingFeatures): Float64Array {
  const c = model.classes.length
  const scores = new Float64Array(c)
  for (let k = 0; k < c; k++) scores[k] = model.bias[k]!
  for (let i = 0; i < features.ids.length; i++) {
    const base = (features.ids[i]! % model.buckets) * c
    const value = features.values[i]!
    for (let k = 0; k < c; k++) scores[k] = scores[k]! + value * model.weights[base + k]!
  }
  let max = -Infinity
  for (let k = 0; k < c; k++) if (scores[k]! > max) max = scores[k]!
  let sum = 0
  for (let k = 0; k < c; k++) sum += scores[k] = Math.exp(scores[k]! - max)
  for (let k = 0; k < c; k++) scores[k] = scores[k]! / sum
  return scores
}
