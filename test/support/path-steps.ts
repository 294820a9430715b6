/**
 * Feeds a recovery path's step a list of inputs, the way the runtime would: each answer's state
 * becomes the next step's, and every effect asked for is collected. Shared by the path tests so
 * each states only its inputs and what it expects.
 */
import { expect } from "bun:test"
import type { PathEffect, PathInput, RecoveryPath, StepContext } from "../../src/runtime/path.ts"

export type Fed<S> = { state: S; effects: PathEffect[]; wakeAt: number | undefined }

/** `wakes`: the path may ask for a wake (the last one asked is returned); otherwise none may. A path fed here never holds. */
export function feed<S>(path: RecoveryPath<S>, inputs: readonly PathInput[], ctx: StepContext, from: S = path.initial(), wakes = false): Fed<S> {
  let state = from
  let wakeAt: number | undefined
  const effects: PathEffect[] = []
  for (const input of inputs) {
    const result = path.step(state, input, ctx)
    if (!result) continue
    if (!wakes) expect(result.wakeAt).toBeUndefined()
    expect(result.hold).toBeUndefined()
    state = result.state
    wakeAt = result.wakeAt
    effects.push(...result.effects)
  }
  return { state, effects, wakeAt }
}
