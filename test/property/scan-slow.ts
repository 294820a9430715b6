/**
 * Finds the soak scenario that runs long: replays the soak's batches `from`..`to` (the same
 * seeds and shapes as soak.ts) one scenario at a time on one adapter, printing each before it
 * runs, so the last line printed is the one still running.
 *
 *   bun test/property/scan-slow.ts --host v1 --seed 1 --from 240 --to 280
 */
import fc from "fast-check"
import { v2ScenarioArb } from "./arbitraries.ts"
import { runScenario, type DriverKind } from "./runner.ts"

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback
}
const host = arg("host", "v1") as DriverKind
const seed = Number(arg("seed", "1"))
const from = Number(arg("from", "0"))
const to = Number(arg("to", String(from + 25)))
// The same two shapes, weights and batch seeds as soak.ts.
const timelines = v2ScenarioArb({ overdue: true })
const floods = v2ScenarioArb({ overdue: true, floods: true, maxChunks: 12, size: "small" })

for (let batch = from; batch < to; batch++) {
  const flood = batch % 10 >= 9
  const batchSeed = seed * 100_003 + batch
  for (const [index, sc] of fc.sample(flood ? floods : timelines, { seed: batchSeed, numRuns: 20 }).entries()) {
    const started = performance.now()
    console.log(`batch ${batch} (seed ${batchSeed}) scenario ${index} ${flood ? "floods" : "timelines"}`)
    await runScenario(sc, host, { stopAtFirst: false, junkReads: false })
    const ms = performance.now() - started
    if (ms > 2_000) console.log(`  took ${ms.toFixed(0)} ms`)
  }
}
console.log("done")
