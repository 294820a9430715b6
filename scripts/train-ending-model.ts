/**
 * Trains the ending classifier (src/detect/ending-model.ts) on our own labelled text and writes
 * src/detect/ending-weights.json. Deterministic: the same text and options give the same bytes.
 *
 *   bun scripts/train-ending-model.ts            train on everything, write the weights
 *   bun scripts/train-ending-model.ts --cv 5     k-fold figures on the training text, nothing written
 *   bun scripts/train-ending-model.ts --check    train again and fail unless the checked-in weights are reproduced
 *
 * Training text: every test/corpus/training/*.jsonl file (one sample per line: lang, family,
 * text) and the older hand-written corpus in test/corpus/*.ts (see handWrittenCorpus). Held-out
 * batches (test/corpus/heldout)
 * are never read here: a batch is folded in by moving it into training/ after its figures are
 * reported, and the next claim needs a fresh batch.
 */
import fs from "node:fs"
import path from "node:path"
import { endingSentences } from "../src/detect/ending.ts"
import { CORPUS } from "../test/corpus/index.ts"
import { beforeSignOff, readEnding } from "../src/detect/turn-ending.ts"
import { ENDING_CLASSES, FEATURE_FORMAT, classify, decodeModel, endingFeatures, type EndingClass, type EndingFeatures, type EndingModel, type EndingWeightsFile } from "../src/detect/ending-model.ts"

const ROOT = path.resolve(import.meta.dir, "..")
export const TRAINING_DIR = path.join(ROOT, "test", "corpus", "training")
export const WEIGHTS_FILE = path.join(ROOT, "src", "detect", "ending-weights.json")

export const TRAINING = {
  buckets: 1 << 16,
  epochs: 20,
  rate: 0.2,
  l2: 1e-5,
  seed: 20261204,
}

export type LabelledText = { lang: string; family: string; text: string; source: string }

/** What the classifier learns each family as; families other layers decide are read as endings that need nothing. */
export function classOf(family: string): EndingClass | undefined {
  switch (family) {
    case "hand-off":
    case "stop":
    case "done":
    case "ready":
      return family
    case "celebration":
      return "done"
    case "none":
    case "tool-call":
      return "none"
    default:
      // action-intent and dead-stream are structural rules of their own; the model is not taught either way.
      return undefined
  }
}

export function readJsonl(file: string): LabelledText[] {
  const out: LabelledText[] = []
  const lines = fs.readFileSync(file, "utf8").split("\n")
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue
    try {
      const row = JSON.parse(line) as Record<string, unknown>
      if (typeof row.text === "string" && typeof row.family === "string") out.push({ lang: String(row.lang ?? "any"), family: row.family, text: row.text, source: `${path.basename(file)}:${i + 1}` })
    } catch {
      throw new Error(`${file}:${i + 1}: not JSON`)
    }
  }
  return out
}

/**
 * The hand-written corpus (test/corpus/*.ts) as training text. It was written beside the phrase
 * rules, so it proves nothing about unseen text; but its near misses ("When the build is
 * complete, the artefacts land in dist/", "I'm not stopping here: ...") are the errors a
 * classifier makes first, and only the held-out batches carry a claim anyway.
 */
function handWrittenCorpus(): LabelledText[] {
  return CORPUS.map((sample, i) => ({ lang: sample.lang, family: sample.family, text: sample.text, source: `corpus:${i}` }))
}

export function trainingText(): LabelledText[] {
  const files = fs.existsSync(TRAINING_DIR) ? fs.readdirSync(TRAINING_DIR).filter((f) => f.endsWith(".jsonl")).sort() : []
  return [...files.flatMap((f) => readJsonl(path.join(TRAINING_DIR, f))), ...handWrittenCorpus()]
}

type Example = { ids: Uint32Array; values: Float64Array; label: number }

/**
 * Sentences that say nothing about how a turn ends (the earlier sentences of "none" samples), by
 * language: put before a short sample, they teach the model that the ending is what counts, not
 * how many sentences came before it.
 */
function bodySentences(rows: readonly LabelledText[]): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const row of rows) {
    if (row.family !== "none") continue
    const sentences = endingSentences(row.text)
    const list = out.get(row.lang) ?? []
    for (const s of sentences.slice(0, -1)) if (s.length > 20 && !s.includes("?")) list.push(s)
    out.set(row.lang, list)
  }
  return out
}

function example(features: EndingFeatures, buckets: number, label: number): Example {
  return { ids: Uint32Array.from(features.ids, (f) => f % buckets), values: Float64Array.from(features.values), label }
}

function examples(rows: readonly LabelledText[], buckets: number, augment = true): Example[] {
  const out: Example[] = []
  const bodies = augment ? bodySentences(rows) : new Map<string, string[]>()
  const next = random(TRAINING.seed ^ 0x5bd1e995)
  for (const row of rows) {
    const cls = classOf(row.family)
    if (cls === undefined) continue
    const label = ENDING_CLASSES.indexOf(cls)
    // Taught from the ending before a closing courtesy ("... all green.\n\nCheers!"), so that the
    // courtesy alone is never learnt as the family (the judge weighs both readings).
    const whole = endingSentences(row.text)
    const sentences = beforeSignOff(whole) ?? whole
    out.push(example(endingFeatures(sentences), buckets, label))
    const pool = bodies.get(row.lang)
    if (pool && pool.length > 0 && sentences.length > 0 && sentences.length < 3) {
      const padded = [pool[Math.floor(next() * pool.length)]!, ...sentences].slice(-3)
      out.push(example(endingFeatures(padded), buckets, label))
    }
  }
  return out
}

/** mulberry32: a small seeded generator, so the shuffle is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Trained = { weights: Float64Array; bias: Float64Array }

/** Softmax regression by AdaGrad, classes weighted against their frequency. */
function fit(data: readonly Example[], options = TRAINING): Trained {
  const c = ENDING_CLASSES.length
  const weights = new Float64Array(options.buckets * c)
  const squares = new Float64Array(options.buckets * c)
  const bias = new Float64Array(c)
  const biasSquares = new Float64Array(c)
  const counts = new Array<number>(c).fill(0)
  for (const e of data) counts[e.label]!++
  const classWeight = counts.map((n) => (n === 0 ? 0 : data.length / (c * n)))
  const order = data.map((_, i) => i)
  const next = random(options.seed)
  const scores = new Float64Array(c)
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1))
      ;[order[i], order[j]] = [order[j]!, order[i]!]
    }
    for (const index of order) {
      const e = data[index]!
      for (let k = 0; k < c; k++) scores[k] = bias[k]!
      for (let i = 0; i < e.ids.length; i++) {
        const base = e.ids[i]! * c
        const v = e.values[i]!
        for (let k = 0; k < c; k++) scores[k] = scores[k]! + v * weights[base + k]!
      }
      let max = -Infinity
      for (let k = 0; k < c; k++) if (scores[k]! > max) max = scores[k]!
      let sum = 0
      for (let k = 0; k < c; k++) sum += scores[k] = Math.exp(scores[k]! - max)
      const w = classWeight[e.label]!
      for (let k = 0; k < c; k++) {
        const g = w * (scores[k]! / sum - (k === e.label ? 1 : 0))
        if (g === 0) continue
        biasSquares[k] = biasSquares[k]! + g * g
        bias[k] = bias[k]! - (options.rate * g) / Math.sqrt(biasSquares[k]!)
        for (let i = 0; i < e.ids.length; i++) {
          const at = e.ids[i]! * c + k
          const grad = g * e.values[i]! + options.l2 * weights[at]!
          squares[at] = squares[at]! + grad * grad
          weights[at] = weights[at]! - (options.rate * grad) / Math.sqrt(squares[at]!)
        }
      }
    }
  }
  return { weights, bias }
}

function asModel(trained: Trained, buckets: number, thresholds: Record<EndingClass, number>): EndingModel {
  return { buckets, classes: ENDING_CLASSES, weights: Float32Array.from(trained.weights), bias: Float32Array.from(trained.bias), thresholds }
}

/** The verdict of the model alone at the given thresholds: hand-off first, then the most likely other class if it clears its bar. */
export function decide(p: ArrayLike<number>, thresholds: Record<EndingClass, number>): EndingClass {
  const h = ENDING_CLASSES.indexOf("hand-off")
  if (p[h]! >= thresholds["hand-off"]) return "hand-off"
  let best = 0
  for (let k = 1; k < ENDING_CLASSES.length; k++) if (k !== h && p[k]! > p[best]!) best = k
  const cls = ENDING_CLASSES[best]!
  return cls !== "none" && p[best]! >= thresholds[cls] ? cls : "none"
}

/**
 * Chosen on the held-out batches 6 and 7, each left out of training in its turn (the rest of
 * the text trained): at 0.7 a stop and a done claim kept their precision at 0.98 on both and
 * gained 3 to 4 points of recall; a ready, which sends a continue, fell to 0.96 on batch 7 below
 * 0.8, so it stays there. Hand-off low: a doubt resolves to the user.
 */
export const DEFAULT_THRESHOLDS: Record<EndingClass, number> = { none: 0, "hand-off": 0.4, stop: 0.7, done: 0.7, ready: 0.8 }

function quantize(trained: Trained, buckets: number, thresholds: Record<EndingClass, number>, trainedOn: Record<string, unknown>): EndingWeightsFile {
  const c = ENDING_CLASSES.length
  const scales = ENDING_CLASSES.map((_, k) => {
    let max = 0
    for (let b = 0; b < buckets; b++) max = Math.max(max, Math.abs(trained.weights[b * c + k]!))
    return max === 0 ? 1 : Number((max / 127).toPrecision(8))
  })
  const bytes = new Int8Array(buckets * c)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.max(-127, Math.min(127, Math.round(trained.weights[i]! / scales[i % c]!)))
  return {
    format: FEATURE_FORMAT,
    buckets,
    classes: [...ENDING_CLASSES],
    scales,
    bias: [...trained.bias].map((b) => Number(b.toPrecision(8))),
    thresholds,
    weights: Buffer.from(bytes.buffer).toString("base64"),
    trainedOn,
  }
}

/** Precision and recall per class of a list of (wanted, got) pairs, and the confusion table. */
function scoreTable(pairs: readonly [EndingClass, EndingClass][]): string {
  const lines: string[] = []
  for (const cls of ENDING_CLASSES) {
    const tp = pairs.filter(([w, g]) => w === cls && g === cls).length
    const fp = pairs.filter(([w, g]) => w !== cls && g === cls).length
    const fn = pairs.filter(([w, g]) => w === cls && g !== cls).length
    lines.push(`${cls.padEnd(9)} precision ${(tp / Math.max(1, tp + fp)).toFixed(3)} recall ${(tp / Math.max(1, tp + fn)).toFixed(3)} (${tp}/${fp}/${fn})`)
  }
  lines.push(`want \\ got  ${ENDING_CLASSES.map((c) => c.padStart(9)).join("")}`)
  for (const want of ENDING_CLASSES) lines.push(`${want.padEnd(12)} ${ENDING_CLASSES.map((got) => String(pairs.filter(([w, g]) => w === want && g === got).length).padStart(9)).join("")}`)
  return lines.join("\n")
}

/** What the whole reading (rules, then the model) makes of a text, as one class. */
function readAs(text: string, model: EndingModel): EndingClass {
  const reading = readEnding(text, {}, model)
  return reading.handOff ? "hand-off" : (reading.family?.family ?? "none")
}

function crossValidate(rows: readonly LabelledText[], folds: number): void {
  const kept = rows.filter((r) => classOf(r.family) !== undefined)
  const alone: [EndingClass, EndingClass][] = []
  const whole: [EndingClass, EndingClass][] = []
  const models: EndingModel[] = []
  for (let f = 0; f < folds; f++) {
    const model = asModel(fit(examples(kept.filter((_, i) => i % folds !== f), TRAINING.buckets)), TRAINING.buckets, DEFAULT_THRESHOLDS)
    models.push(model)
    kept.forEach((row, i) => {
      if (i % folds !== f) return
      const want = classOf(row.family)!
      const p = classify(model, endingFeatures(endingSentences(row.text)))
      alone.push([want, decide(p, DEFAULT_THRESHOLDS)])
      const got = readAs(row.text, model)
      whole.push([want, got])
      if (process.env.SHOW_ERRORS === row.lang && got !== want) {
        const r = readEnding(row.text, {}, model)
        console.log(`${want} -> ${got} (${r.handOff?.detail ?? r.family?.detail ?? "-"}) [${[...p].map((x) => x.toFixed(2)).join(" ")}] ${JSON.stringify(endingSentences(row.text))}`)
      }
    })
  }
  console.log(`${folds}-fold on ${kept.length} texts, thresholds ${JSON.stringify(DEFAULT_THRESHOLDS)}`)
  console.log(`the model alone:\n${scoreTable(alone)}`)
  console.log(`rules, then the model:\n${scoreTable(whole)}`)
  if (process.env.SWEEP) {
    // The whole reading again at other thresholds, to choose them on training text only.
    for (const h of [0.5, 0.6, 0.7]) {
      for (const t of [0.6, 0.7, 0.75, 0.8, 0.85, 0.9]) {
        const thresholds = { none: 0, "hand-off": h, stop: t, done: t, ready: t }
        const pairs: [EndingClass, EndingClass][] = kept.map((row, i) => [classOf(row.family)!, readAs(row.text, { ...models[i % folds]!, thresholds })])
        const f = (cls: EndingClass) => {
          const tp = pairs.filter(([w, g]) => w === cls && g === cls).length
          const fp = pairs.filter(([w, g]) => w !== cls && g === cls).length
          const fn = pairs.filter(([w, g]) => w === cls && g !== cls).length
          return `${(tp / Math.max(1, tp + fp)).toFixed(3)}/${(tp / Math.max(1, tp + fn)).toFixed(3)}`
        }
        console.log(`hand-off>=${h} others>=${t}: ${ENDING_CLASSES.slice(1).map((c) => `${c} ${f(c)}`).join("  ")}`)
      }
    }
  }
}

export function trainWeights(rows: readonly LabelledText[] = trainingText()): EndingWeightsFile {
  const data = examples(rows, TRAINING.buckets)
  const perClass = Object.fromEntries(ENDING_CLASSES.map((cls, k) => [cls, data.filter((e) => e.label === k).length]))
  const languages = [...new Set(rows.map((r) => r.lang))].sort()
  return quantize(fit(data), TRAINING.buckets, DEFAULT_THRESHOLDS, { examples: data.length, perClass, languages, ...TRAINING })
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const cv = args.indexOf("--cv")
  if (cv >= 0) {
    crossValidate(trainingText(), Number(args[cv + 1] ?? 5))
  } else {
    const file = trainWeights()
    const text = `${JSON.stringify(file)}\n`
    if (args.includes("--check")) {
      const current = fs.readFileSync(WEIGHTS_FILE, "utf8")
      if (current !== text) {
        console.error("ending weights are not reproduced by training: run bun scripts/train-ending-model.ts")
        process.exit(1)
      }
      console.log("ending weights reproduced byte for byte")
    } else {
      fs.writeFileSync(WEIGHTS_FILE, text)
      decodeModel(file)
      console.log(`wrote ${path.relative(ROOT, WEIGHTS_FILE)}: ${file.trainedOn?.examples} examples, ${(text.length / 1024).toFixed(0)} KB`)
    }
  }
}
