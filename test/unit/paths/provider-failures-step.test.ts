/**
 * The failing-provider path as a pure step (paths/provider-failures/): a wait or a give-up is
 * offered to a fallback model as data, and a switch that does not happen after all becomes the
 * wait again within a step, with no callback riding on any effect. The whole behaviour through
 * the engine is in provider-failures.test.ts, fallback.test.ts and rate-wait-carry.test.ts.
 */
import { describe, expect, test } from "bun:test"
import type { FallbackEpisode } from "../../../src/core/fallback.ts"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { newSessionState, type SessionState } from "../../../src/core/session-state.ts"
import { effectiveOptions, resolveOptions } from "../../../src/options/index.ts"
import { providerFailuresPath } from "../../../src/paths/provider-failures/path.ts"
import type { FailingProvider } from "../../../src/paths/provider-failures/failing-provider.ts"
import type { PathEffect, PathInput, StepContext } from "../../../src/runtime/path.ts"

const NOW = 1_000_000
const rateLimit: PathInput = { type: "signal", signal: { type: "error", sessionID: "s1", name: "APIError", message: "Rate limit exceeded", status: 429 } }
const idle: PathInput = { type: "signal", signal: { type: "idle", sessionID: "s1" } }

function session(): SessionState {
  const s = newSessionState("s1", 0)
  s.busy = true
  s.setup = { agent: "build", model: { providerID: "openai", modelID: "gpt-x" } }
  return s
}

function context(s: SessionState, fallbackModels: string[]): StepContext {
  const options = effectiveOptions(resolveOptions({ fallbackModels, rateLimitCooldownsMs: [3_600_000] }, {}))
  return { session: s, now: NOW, options: () => options, mayAct: () => undefined, goal: () => undefined, paused: () => false, unknownModels: () => new Set() }
}

/** Feeds the inputs; carries out what the runtime would of the effects that change the session record (the fallback episode). */
function run(s: SessionState, ctx: StepContext, inputs: readonly PathInput[], from: FailingProvider = providerFailuresPath.initial()) {
  let state = from
  const effects: PathEffect[] = []
  for (const input of inputs) {
    const result = providerFailuresPath.step(state, input, ctx)
    if (!result) continue
    state = result.state
    effects.push(...result.effects)
    for (const effect of result.effects) if (effect.kind === "fallback-episode") s.fallback = effect.episode
  }
  return { state, effects }
}

const kinds = (effects: readonly PathEffect[]) => effects.filter((e) => e.kind !== "log").map((e) => e.kind)

describe("a rate-limit wait offered to a fallback model", () => {
  test("taken: no wait, the episode starts, and the continue waits for the failed run's idle and a look at its newest turn", () => {
    const s = session()
    const ctx = context(s, ["anthropic/claude-y"])
    const hit = run(s, ctx, [rateLimit])
    expect(hit.state.rate.phase).toBe("clear")
    expect(kinds(hit.effects)).toEqual(["watch-output", "fallback-episode"])
    expect(hit.state.switching?.phase).toBe("at-idle")
    s.busy = false
    const atIdle = run(s, ctx, [idle], hit.state)
    expect(atIdle.effects).toContainEqual({ kind: "read-messages", id: atIdle.state.switching!.id, limit: 3, timeoutMs: expect.any(Number) })
  })

  test("a switch the newest turn refuses (it asks the user) is undone, and the wait it skipped applies after all", () => {
    const s = session()
    const ctx = context(s, ["anthropic/claude-y"])
    const hit = run(s, ctx, [rateLimit])
    const episode = s.fallback as FallbackEpisode
    s.busy = false
    const reading = run(s, ctx, [idle], hit.state)
    const id = reading.state.switching!.id
    const asks: TranscriptMessage[] = [{ id: "a1", role: "assistant", parts: [{ kind: "text", text: "Which of the two files should I change?" }], finish: "stop" }]
    const undone = run(s, ctx, [{ type: "effectSettled", id, outcome: { kind: "messages", messages: asks } }], reading.state)
    expect(undone.state.switching).toBeUndefined()
    expect(s.fallback).toBeUndefined()
    expect(episode.active.modelID).toBe("claude-y")
    // The wait: armed at the time of the hit, in the wait file, one hold for every recovery.
    expect(undone.state.rate).toMatchObject({ phase: "waiting", hits: 1, allowedAt: NOW + 3_600_000 })
    expect(undone.effects).toContainEqual({ kind: "carry-wait", wait: { rung: 1, until: NOW + 3_600_000, since: NOW, carriedOver: false }, why: "the wait runs" })
    expect(providerFailuresPath.holds!(undone.state, NOW)).toContain("rate limited until")
  })

  test("negative control: with no fallback model listed the same hit is waited out at once", () => {
    const s = session()
    const hit = run(s, context(s, []), [rateLimit])
    expect(hit.state.switching).toBeUndefined()
    expect(s.fallback).toBeUndefined()
    expect(hit.state.rate).toMatchObject({ phase: "waiting", hits: 1 })
    expect(kinds(hit.effects)).toEqual(["watch-output", "carry-wait"])
    // The hold ends with the wait, at its time.
    expect(providerFailuresPath.holds!(hit.state, NOW + 3_600_000)).toBeUndefined()
  })
})

describe("the host proposing its own retry (2.x)", () => {
  const proposal = (message: string, status: number): PathInput => ({ type: "retryProposed", proposal: { name: "APIError", message, status, attempt: 1, proposed: { retry: true, delayMs: 2000 } } })

  test("a failure a retry cannot fix is not retried; negative control: a broken stream's retry stands", () => {
    const s = session()
    const ctx = context(s, [])
    expect(providerFailuresPath.step(providerFailuresPath.initial(), proposal("content filter triggered", 400), ctx)?.retry).toEqual({ retry: false })
    expect(providerFailuresPath.step(providerFailuresPath.initial(), proposal("Streaming response failed: connection reset", 503), ctx)?.retry).toBeUndefined()
  })
})
