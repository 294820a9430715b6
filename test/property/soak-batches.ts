/**
 * The soak's batches: which shape a batch draws and from which seed, in one place, so the soak,
 * the replay script and pinned regression tests name a scenario the same way (seed, batch, index).
 */
import fc from "fast-check"
import { v2ScenarioArb } from "./arbitraries.ts"
import type { Scenario } from "./model.ts"

/** The 2.x faults are drawn after each timeline (v2ScenarioArb), so a seed means the same timeline for every adapter. */
export const SOAK_SHAPES = [
  { name: "timelines", arb: v2ScenarioArb({ overdue: true }), weight: 9 },
  { name: "floods", arb: v2ScenarioArb({ overdue: true, floods: true, maxChunks: 12, size: "small" }), weight: 1 },
] as const

/** The same shapes with the user's reverts in the mix (`--reverts`): other timelines for the same seed. */
const REVERT_SHAPES = [
  { name: "timelines+reverts", arb: v2ScenarioArb({ overdue: true, reverts: true }), weight: 9 },
  { name: "floods+reverts", arb: v2ScenarioArb({ overdue: true, floods: true, maxChunks: 12, size: "small", reverts: true }), weight: 1 },
] as const

export const SCENARIOS_PER_BATCH = 20

export type SoakBatch = { shape: (typeof SOAK_SHAPES)[number] | (typeof REVERT_SHAPES)[number]; batchSeed: number; scenarios: Scenario[] }

export function soakBatch(seed: number, batch: number, reverts = false): SoakBatch {
  const shapes = reverts ? REVERT_SHAPES : SOAK_SHAPES
  const shape = batch % 10 < shapes[0].weight ? shapes[0] : shapes[1]
  const batchSeed = seed * 100_003 + batch
  return { shape, batchSeed, scenarios: fc.sample(shape.arb, { seed: batchSeed, numRuns: SCENARIOS_PER_BATCH }) }
}
