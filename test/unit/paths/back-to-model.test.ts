/**
 * Back to the user's model without writing (paths/provider-failures/fallback-switch.ts): after a
 * fallback model took over, the session goes back to the user's model at the first turn
 * boundary after the user's model's wait would have ended, with no message sent. The step is fed
 * as the runtime would, on a simulated clock.
 */
import { describe, expect, test } from "bun:test"
import { modelKey, userTurnModel } from "../../../src/core/fallback.ts"
import { newSessionState, type SessionState } from "../../../src/core/session-state.ts"
import { effectiveOptions, resolveOptions } from "../../../src/options/index.ts"
import type { FailingProvider } from "../../../src/paths/provider-failures/failing-provider.ts"
import { providerFailuresPath } from "../../../src/paths/provider-failures/path.ts"
import type { PathEffect, PathInput, StepContext } from "../../../src/runtime/path.ts"

const START = 1_000_000
const RETRY_AFTER = 20 * 60_000
const USER = { providerID: "openai", modelID: "gpt-x" }
const idle: PathInput = { type: "signal", signal: { type: "idle", sessionID: "s1" } }
const busy: PathInput = { type: "signal", signal: { type: "busy", sessionID: "s1" } }
const wake: PathInput = { type: "wake" }

type World = { s: SessionState; state: FailingProvider; now: number; held?: string; effects: PathEffect[]; wakeAt?: number; options: ReturnType<typeof effectiveOptions> }

function world(extra: Record<string, unknown> = {}): World {
  const s = newSessionState("s1", 0)
  s.busy = true
  s.setup = { agent: "build", model: USER }
  const options = effectiveOptions(resolveOptions({ fallbackModels: ["anthropic/claude-y"], ...extra }, {}))
  return { s, state: providerFailuresPath.initial(), now: START, effects: [], options }
}

/** One input at the world's time; carries out what the runtime would of the fallback episode. */
function step(w: World, input: PathInput): PathEffect[] {
  const ctx: StepContext = {
    session: w.s,
    now: w.now,
    options: () => w.options,
    mayAct: () => (w.held ? { reason: w.held } : undefined),
    goal: () => undefined,
    paused: () => false,
    unknownModels: () => new Set(),
  } as StepContext
  const result = providerFailuresPath.step(w.state, input, ctx)
  if (!result) return []
  w.state = result.state
  w.wakeAt = result.wakeAt
  w.effects.push(...result.effects)
  for (const effect of result.effects) {
    if (effect.kind !== "fallback-episode") continue
    w.s.fallback = effect.episode
    if (effect.model) w.s.setup = { ...w.s.setup, model: effect.model }
  }
  return [...result.effects]
}

/** A 429 naming a Retry-After, the failed run's idle, a look at its plain newest turn, the fallback continue delivered. */
function switched(w: World): void {
  step(w, { type: "signal", signal: { type: "error", sessionID: "s1", name: "APIError", message: "Rate limit exceeded", status: 429, retryAfterMs: RETRY_AFTER } })
  w.s.busy = false
  step(w, idle)
  const reading = w.state.switching!
  step(w, { type: "effectSettled", id: reading.id, outcome: { kind: "messages", messages: [{ id: "a1", role: "assistant", parts: [{ kind: "text", text: "Working on it." }], finish: "tool-calls" }] } })
  const sending = w.state.switching!
  expect(sending.phase).toBe("sending")
  step(w, { type: "effectSettled", id: sending.id, outcome: { kind: "delivered", outcome: "ok" } })
  expect(w.s.fallback?.active.modelID).toBe("claude-y")
}

/** The fallback's run: busy, then idle at `at`. */
function turnEndsAt(w: World, at: number): PathEffect[] {
  w.now = at - 1000
  w.s.busy = true
  step(w, busy)
  w.now = at
  w.s.busy = false
  return step(w, idle)
}

/** The episode moved back onto the user's model (a restore-model alone is 2.x's end of every fallback run). */
const wentBack = (effects: readonly PathEffect[]) => effects.some((e) => e.kind === "fallback-episode" && e.episode !== undefined && modelKey(e.episode.active) === modelKey(USER))

describe("back to the user's model after its wait", () => {
  test("the first turn boundary after the Retry-After: the model changes back, one history line, nothing sent", () => {
    const w = world()
    switched(w)
    // The wake is asked for the end of the wait, and no later.
    expect(w.wakeAt).toBeLessThanOrEqual(START + RETRY_AFTER)
    // Negative control: a turn that ends before the wait is over stays on the fallback.
    expect(wentBack(turnEndsAt(w, START + RETRY_AFTER - 60_000))).toBe(false)
    expect(w.s.fallback?.active.modelID).toBe("claude-y")
    // A run still going when the wait ends: not mid-run...
    w.now = START + RETRY_AFTER - 1000
    w.s.busy = true
    step(w, busy)
    w.now = START + RETRY_AFTER
    expect(wentBack(step(w, wake))).toBe(false)
    // ...but at its idle.
    w.now = START + RETRY_AFTER + 30_000
    w.s.busy = false
    const back = step(w, idle)
    expect(wentBack(back)).toBe(true)
    expect(back).toContainEqual({ kind: "restore-model", model: USER })
    expect(back.filter((e) => e.kind === "act")).toEqual([])
    const journal = back.filter((e) => e.kind === "journal-refused")
    expect(journal).toHaveLength(1)
    expect(journal[0]).toMatchObject({ tag: { trigger: "fallback", evidence: "back to openai/gpt-x after 20m 0s" }, why: "cleared" })
    expect(back.filter((e) => e.kind === "log" && e.text.includes("back to openai/gpt-x"))).toHaveLength(1)
    // The session's prompts and the user's next message are on the user's model again.
    expect(w.s.fallback?.active).toEqual(USER)
    expect(w.s.setup.model).toEqual(USER)
    expect(userTurnModel(w.s.fallback, { providerID: "anthropic", modelID: "claude-y" })).toEqual(USER)
    expect(userTurnModel(w.s.fallback, undefined)).toEqual(USER)
    expect(userTurnModel(w.s.fallback, USER)).toBeUndefined()
    // Once: the next idle does nothing more.
    w.effects = []
    turnEndsAt(w, START + RETRY_AFTER + 90_000)
    expect(w.effects.filter((e) => e.kind === "journal-refused" || e.kind === "fallback-episode")).toEqual([])
  })

  test("a session idle when the wait ends goes back at the wake", () => {
    const w = world()
    switched(w)
    turnEndsAt(w, START + 60_000)
    w.now = START + RETRY_AFTER
    const back = step(w, wake)
    expect(wentBack(back)).toBe(true)
    expect(back).toContainEqual({ kind: "restore-model", model: USER })
    expect(modelKey(w.s.fallback!.active)).toBe("openai/gpt-x")
  })

  test("held (a question open, ESC, a pause): not over the hold; once it lifts, back", () => {
    const w = world()
    switched(w)
    turnEndsAt(w, START + 60_000)
    w.held = "the session waits on the user"
    w.now = START + RETRY_AFTER
    expect(wentBack(step(w, wake))).toBe(false)
    expect(w.wakeAt).toBe(START + RETRY_AFTER + w.options.checkIntervalMs)
    w.held = undefined
    w.now = w.wakeAt!
    expect(wentBack(step(w, wake))).toBe(true)
  })

  test("negative control: with fallbackReturnToModel off the session never goes back by itself", () => {
    const w = world({ fallbackReturnToModel: false })
    switched(w)
    expect(w.state.back).toBeUndefined()
    turnEndsAt(w, START + RETRY_AFTER + 60_000)
    w.now = START + 10 * RETRY_AFTER
    step(w, wake)
    expect(w.effects.some((e) => e.kind === "journal-refused")).toBe(false)
    expect(w.s.fallback?.active.modelID).toBe("claude-y")
  })

  test("a failure naming no wait (a model the provider does not know) goes back after the ladder's first rung", () => {
    const w = world({ rateLimitCooldownsMs: [600_000] })
    step(w, { type: "signal", signal: { type: "error", sessionID: "s1", name: "ProviderModelNotFoundError", message: "model not found", status: 404 } })
    w.s.busy = false
    step(w, idle)
    step(w, { type: "effectSettled", id: w.state.switching!.id, outcome: { kind: "messages", messages: [] } })
    step(w, { type: "effectSettled", id: w.state.switching!.id, outcome: { kind: "delivered", outcome: "ok" } })
    expect(w.state.back).toEqual({ at: START + 600_000, waitMs: 600_000 })
  })

  test("the user writing first ends the plan: the episode is over, nothing more", () => {
    const w = world()
    switched(w)
    w.now = START + 60_000
    step(w, { type: "signal", signal: { type: "userMessage", sessionID: "s1", genuine: true } })
    expect(w.state.back).toBeUndefined()
    expect(w.s.fallback).toBeUndefined()
  })
})

describe("the option", () => {
  test("a bad value is one warning naming it, and the default (on) is used; negative control: a boolean gives none", () => {
    const bad = resolveOptions({ fallbackReturnToModel: 7 } as never, {})
    expect(bad.warnings.filter((w) => w.includes("fallbackReturnToModel"))).toHaveLength(1)
    expect(bad.options.fallbackReturnToModel).toBe(true)
    expect(resolveOptions({ fallbackReturnToModel: false }, {}).warnings).toEqual([])
  })
})
