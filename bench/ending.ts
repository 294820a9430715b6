/**
 * What reading a turn's ending costs: the first call in a process (the shipped weights decoded,
 * then one reading) and a warm reading of a real final message, over the labelled training text.
 *
 *   bun bench/ending.ts [rounds]
 *
 * Prints the cold cost, the median and the 99th percentile of a warm reading, and the weights'
 * size on disk and in memory.
 */
import fs from "node:fs"
import { trainingText, WEIGHTS_FILE } from "../scripts/train-ending-model.ts"

const ROUNDS = Number(process.argv[2] ?? 3)
const texts = trainingText().map((row) => row.text)

const coldStart = performance.now()
const { readEnding, endingModel } = await import("../src/detect/turn-ending.ts")
readEnding(texts[0]!)
const coldMs = performance.now() - coldStart

const samples: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  for (const text of texts) {
    const t0 = performance.now()
    readEnding(text)
    samples.push(performance.now() - t0)
  }
}
samples.sort((a, b) => a - b)
const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
const model = endingModel()
console.log(`texts: ${texts.length} x ${ROUNDS} rounds`)
console.log(`cold (import, decode the weights, one reading): ${coldMs.toFixed(1)} ms`)
console.log(`warm reading: median ${(at(0.5) * 1000).toFixed(0)} µs, p99 ${(at(0.99) * 1000).toFixed(0)} µs, max ${(samples.at(-1)! * 1000).toFixed(0)} µs`)
console.log(`weights: ${(fs.statSync(WEIGHTS_FILE).size / 1024).toFixed(0)} KB on disk, ${((model.weights.byteLength + model.bias.byteLength) / 1024).toFixed(0)} KB in memory (${model.buckets} buckets x ${model.classes.length} classes)`)
