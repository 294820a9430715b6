/**
 * Replays the soak's batches `from`..`to` (the same seeds and shapes as soak.ts) one scenario at
 * a time on one adapter, printing each before it runs (so the last line printed is the one still
 * running, if one ever does) and the violations it found. A soak report names a violation by its
 * batch seed: batch = batch seed - seed * 100003.
 *
 *   bun test/property/scan-slow.ts --host v1 --seed 1 --from 240 --to 280
 *   bun test/property/scan-slow.ts --host v2 --seed 1 --from 228 --scenario 19     # one scenario
 */
import { runScenario, showViolation, type DriverKind } from "./runner.ts"
import { soakBatch } from "./soak-batches.ts"
import { showScenario } from "./model.ts"

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback
}
const host = arg("host", "v1") as DriverKind
const seed = Number(arg("seed", "1"))
const from = Number(arg("from", "0"))
const only = process.argv.includes("--scenario") ? Number(arg("scenario", "0")) : undefined
const to = Number(arg("to", String(only === undefined ? from + 25 : from + 1)))

for (let batch = from; batch < to; batch++) {
  const { shape, batchSeed, scenarios } = soakBatch(seed, batch, process.argv.includes("--reverts"))
  for (const [index, sc] of scenarios.entries()) {
    if (only !== undefined && index !== only) continue
    const started = performance.now()
    console.log(`batch ${batch} (seed ${batchSeed}) scenario ${index} ${shape.name}`)
    const r = await runScenario(sc, host, { stopAtFirst: false, junkReads: false })
    const ms = performance.now() - started
    if (ms > 2_000) console.log(`  took ${ms.toFixed(0)} ms, ${r.stats.timers} timers`)
    for (const [id, n] of r.known.counts) console.log(`  known bug ${id} x${n}`)
    for (const v of r.violations) console.log(`  ${showViolation(v).replaceAll("\n", "\n  ")}`)
    if (only !== undefined && r.violations.length > 0) console.log(showScenario(sc))
  }
}
console.log("done")
