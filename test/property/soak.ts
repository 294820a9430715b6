/**
 * The long soak, for local use (not part of `bun test`):
 *
 *   bun test/property/soak.ts [--events 1000000] [--seed 1] [--host all|both|core|v1|v2] [--strict] [--no-shrink]
 *
 * Plays generated scenarios until the event budget is spent, through the core and both
 * adapters by default (`both` is the core and v1, as before the 2.x driver), with every fault the generators know (answers that land after the plugin gave
 * up, bursts of sessions) and prints counts: events, timers, host calls, ESCs, and invariant
 * violations by kind, known bugs apart. A new (unknown) violation is shrunk with fast-check
 * and printed like a CI failure; `--strict` exits 1 on known bugs too. `--junk-reads` also
 * lets history and session-list reads answer with junk. `--no-shrink` prints the first violation
 * of each kind as it happened, unshrunk (the counts are the same: a shrink replays apart), so that
 * a measuring run does not spend minutes per new kind on shrinking. Malformed answers are faults the plugin
 * skips; a plausible lie (an empty session list, twice in a row, while a tool runs) still makes
 * discovery mark the session idle and drop its open tools, which the tool invariant then flags.
 */
import { cpus } from "node:os"
import { checkInvariants } from "./check.ts"
import { showViolation, runScenario, type DriverKind } from "./runner.ts"
import { SCENARIOS_PER_BATCH, soakBatch } from "./soak-batches.ts"

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback
}
const flag = (name: string) => process.argv.includes(`--${name}`)

const budget = Number(arg("events", "1000000"))
const seed = Number(arg("seed", "1"))
/** `--host` (or the older `--adapter`): core, v1, v2, both (core + v1) or all (the default). */
const which = arg("host", arg("adapter", "all"))
const ADAPTER_SETS: Record<string, DriverKind[]> = { all: ["core", "v1", "v2"], both: ["core", "v1"], core: ["core"], v1: ["v1"], v2: ["v2"] }
const adapters: DriverKind[] | undefined = ADAPTER_SETS[which]
if (!adapters) {
  console.error(`--host ${which}: expected one of ${Object.keys(ADAPTER_SETS).join(", ")}`)
  process.exit(2)
}
const strict = flag("strict")
const junkReads = flag("junk-reads")
const noShrink = flag("no-shrink")
/** The user's reverts in the mix (other timelines for the same seed; scan-slow.ts takes the same flag). */
const reverts = flag("reverts")


type Count = { runs: number; events: number; timers: number; sends: number; aborts: number; escs: number; maxTracked: number }
const counts = new Map<DriverKind, Count>()
const violations = new Map<string, number>()
const known = new Map<string, number>()
/** The first (shrunk) report per invariant kind. */
const firstNew = new Map<string, string>()
const started = performance.now()
let events = 0
let batch = 0

console.log(`soak: ${budget.toLocaleString()} events, seed ${seed}, adapters ${adapters.join("+")}${junkReads ? ", junk reads" : ""}${reverts ? ", reverts" : ""}; ${cpus()[0]?.model ?? "?"} x${cpus().length}, Bun ${Bun.version}`)

outer: while (events < budget) {
  const { shape, batchSeed, scenarios } = soakBatch(seed, batch, reverts)
  for (const [index, sc] of scenarios.entries()) {
    for (const kind of adapters) {
      const r = await runScenario(sc, kind, { stopAtFirst: false, junkReads })
      const c = counts.get(kind) ?? { runs: 0, events: 0, timers: 0, sends: 0, aborts: 0, escs: 0, maxTracked: 0 }
      c.runs++
      c.events += r.stats.events
      c.timers += r.stats.timers
      c.sends += r.stats.sends
      c.aborts += r.stats.aborts
      c.escs += r.stats.escs
      c.maxTracked = Math.max(c.maxTracked, r.stats.maxTracked)
      counts.set(kind, c)
      events += r.stats.events
      for (const [id, n] of r.known.counts) known.set(id, (known.get(id) ?? 0) + n)
      for (const v of r.violations) {
        violations.set(v.invariant, (violations.get(v.invariant) ?? 0) + 1)
        if (!firstNew.has(v.invariant) && firstNew.size < 6) {
          if (noShrink) {
            firstNew.set(v.invariant, `invariant property failed on the ${kind} adapter (unshrunk: --no-shrink; ${shape.name} batch seed ${batchSeed}, scenario ${index} of ${SCENARIOS_PER_BATCH})\n${showViolation(v)}`)
            continue
          }
          // fast-check replays this very scenario (its index in the batch) and shrinks it.
          const shrunk = await checkInvariants(kind, batchSeed, SCENARIOS_PER_BATCH, shape.arb, String(index), junkReads)
          firstNew.set(v.invariant, shrunk.ok ? showViolation(v) : shrunk.report)
        }
      }
      if (events >= budget) break outer
    }
  }
  batch++
  if (batch % 25 === 0) {
    const s = (performance.now() - started) / 1000
    console.log(`  ${events.toLocaleString()} events in ${s.toFixed(0)} s (${Math.round(events / s).toLocaleString()}/s); new violations ${[...violations.values()].reduce((a, b) => a + b, 0)}, known-bug hits ${[...known.values()].reduce((a, b) => a + b, 0)}`)
  }
}

const seconds = (performance.now() - started) / 1000
console.log(`\nsoak done: ${events.toLocaleString()} events in ${seconds.toFixed(1)} s`)
console.log("adapter  runs     events      timers      sends    aborts   escs    max tracked")
for (const [kind, c] of counts) {
  console.log(
    `${kind.padEnd(8)} ${String(c.runs).padEnd(8)} ${String(c.events).padEnd(11)} ${String(c.timers).padEnd(11)} ${String(c.sends).padEnd(8)} ${String(c.aborts).padEnd(8)} ${String(c.escs).padEnd(7)} ${c.maxTracked}`,
  )
}
console.log(`invariant checks: every host call (1, 2, 3a, 3b, 4, 5), every timer and step (3a release, 6 bounds)`)
console.log(`new violations: ${violations.size === 0 ? "none" : [...violations].map(([k, n]) => `${k}=${n}`).join(" ")}`)
console.log(`known-bug hits: ${known.size === 0 ? "none" : [...known].map(([k, n]) => `${k}=${n}`).join(" ")}`)
for (const report of firstNew.values()) console.log(`\n${report}`)
process.exit(violations.size > 0 || (strict && known.size > 0) ? 1 : 0)
