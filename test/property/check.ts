/**
 * Runs the invariant property for one adapter with fast-check and, on failure, turns the
 * shrunk counterexample into a readable report (seed, replay path, timeline, trace).
 */
import fc from "fast-check"
import { scenarioArb } from "./arbitraries.ts"
import { propertyPath } from "./config.ts"
import { showScenario, type Scenario } from "./model.ts"
import { runScenario, showViolation, type DriverKind, type RunStats } from "./runner.ts"

export type Totals = {
  runs: number
  sends: number
  aborts: number
  escs: number
  /** Reverts the user staged (a new one each). */
  reverts: number
  events: number
  timers: number
  maxTracked: number
  /** The 2.x faults that happened (v2 driver only). */
  v2: { resubscribes: number; foreign: number; undurable: number; lost: number }
  /** Known-bug id -> violations seen (they do not fail the property). */
  known: Record<string, number>
}

export type CheckOutcome = { ok: true; totals: Totals } | { ok: false; totals: Totals; report: string }

function add(t: Totals, s: RunStats): void {
  t.runs++
  t.sends += s.sends
  t.aborts += s.aborts
  t.escs += s.escs
  t.reverts += s.reverts
  t.events += s.events
  t.timers += s.timers
  t.maxTracked = Math.max(t.maxTracked, s.maxTracked)
  t.v2.resubscribes += s.v2.resubscribes
  t.v2.foreign += s.v2.foreign
  t.v2.undurable += s.v2.undurable
  t.v2.lost += s.v2.lost
}

export async function checkInvariants(
  kind: DriverKind,
  seed: number,
  numRuns: number,
  arb: fc.Arbitrary<Scenario> = scenarioArb(),
  replayPath: string | undefined = propertyPath(),
  /** The soak's junk reads, so a violation they caused shrinks too. */
  junkReads = false,
): Promise<CheckOutcome> {
  const totals: Totals = { runs: 0, sends: 0, aborts: 0, escs: 0, reverts: 0, events: 0, timers: 0, maxTracked: 0, v2: { resubscribes: 0, foreign: 0, undurable: 0, lost: 0 }, known: {} }
  const path = replayPath
  const details = await fc.check(
    fc.asyncProperty(arb, async (sc) => {
      const result = await runScenario(sc, kind, { junkReads })
      add(totals, result.stats)
      for (const [id, n] of result.known.counts) totals.known[id] = (totals.known[id] ?? 0) + n
      return result.violations.length === 0
    }),
    { seed, numRuns, path, endOnFailure: false, markInterruptAsFailure: true, interruptAfterTimeLimit: 120_000 },
  )
  if (!details.failed) return { ok: true, totals }

  const lines = [`invariant property failed on the ${kind} adapter`, `  replay: PROPERTY_SEED=${details.seed} PROPERTY_PATH=${details.counterexamplePath ?? ""} bun test test/property`]
  const sc = details.counterexample?.[0]
  if (sc) {
    const rerun = await runScenario(sc, kind, { junkReads })
    const v = rerun.violations[0]
    lines.push(`shrunk after ${details.numShrinks} shrinks to ${sc.steps.length} steps:`)
    lines.push(showScenario(sc, v?.step))
    if (v) lines.push(showViolation(v))
  } else if (details.errorInstance) {
    lines.push(String(details.errorInstance))
  }
  return { ok: false, totals, report: lines.join("\n") }
}
