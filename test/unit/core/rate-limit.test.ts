import { describe, expect, test } from "bun:test"
import { OPTION_DEFAULTS } from "../../../src/options/index.ts"
import { INITIAL_FAILURE_STATE, nextFailureStep } from "../../../src/paths/provider-failures/failure-chain.ts"
import {
  clearRateLimit,
  INITIAL_RATE_LIMIT_STATE,
  rateLimitGate,
  rateLimitResumed,
  registerRateLimitHit,
  retryAfterFromHeaders,
  RETRY_AFTER_MAX_MS,
  type RateLimitState,
} from "../../../src/core/rate-limit.ts"
import { rateLimitResumeReason } from "../../../src/paths/provider-failures/prompts.ts"

const ladder = [100, 200, 400]

describe("rate-limit ladder", () => {
  test("hit n waits cooldowns[n-1]; the gate is a wait until then, then one resume", () => {
    let s: RateLimitState = INITIAL_RATE_LIMIT_STATE
    const hit1 = registerRateLimitHit(s, 1_000, ladder)
    expect(hit1.gate).toEqual({ kind: "wait", allowedAt: 1_100 })
    s = hit1.state
    expect(rateLimitGate(s, 1_099)).toEqual({ kind: "wait", allowedAt: 1_100 })
    expect(rateLimitGate(s, 1_100)).toEqual({ kind: "resume" })
    s = rateLimitResumed(s)
    // Negative control: after the one continue, the gate does not open again by itself.
    expect(rateLimitGate(s, 5_000)).toEqual({ kind: "none" })
    const hit2 = registerRateLimitHit(s, 2_000, ladder)
    expect(hit2.gate).toEqual({ kind: "wait", allowedAt: 2_200 })
    const hit3 = registerRateLimitHit(rateLimitResumed(hit2.state), 3_000, ladder)
    expect(hit3.gate).toEqual({ kind: "wait", allowedAt: 3_400 })
  })

  test("past the ladder: silent until a genuine user turn", () => {
    let s: RateLimitState = INITIAL_RATE_LIMIT_STATE
    for (let i = 0; i < ladder.length; i++) s = rateLimitResumed(registerRateLimitHit(s, i * 1_000, ladder).state)
    const over = registerRateLimitHit(s, 10_000, ladder)
    expect(over.gate).toEqual({ kind: "silent-until-user" })
    expect(rateLimitGate(over.state, 10_000_000)).toEqual({ kind: "silent-until-user" })
    // More hits keep it silent and do not count further.
    expect(registerRateLimitHit(over.state, 20_000, ladder).state).toBe(over.state)
    // Only the user lifts it.
    expect(rateLimitGate(clearRateLimit(), 10_000_001)).toEqual({ kind: "none" })
  })

  test("the default ladder covers about 12 hours and stands down on the 9th hit", () => {
    const cooldowns = OPTION_DEFAULTS.rateLimitCooldownsMs
    let s: RateLimitState = INITIAL_RATE_LIMIT_STATE
    let total = 0
    for (let i = 0; i < cooldowns.length; i++) {
      const hit = registerRateLimitHit(s, total, cooldowns)
      expect(hit.gate.kind).toBe("wait")
      if (hit.gate.kind === "wait") total = hit.gate.allowedAt
      s = rateLimitResumed(hit.state)
    }
    expect(total).toBeGreaterThan(11 * 3_600_000)
    expect(registerRateLimitHit(s, total, cooldowns).gate.kind).toBe("silent-until-user")
  })

  test("Retry-After is honoured when longer than the rung, never shortened", () => {
    expect(registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder, { retryAfterMs: 5_000 }).gate).toEqual({ kind: "wait", allowedAt: 5_000 })
    expect(registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder, { retryAfterMs: 50 }).gate).toEqual({ kind: "wait", allowedAt: 100 })
    // Garbage Retry-After is ignored.
    for (const bad of [Number.NaN, -5, Infinity]) {
      expect(registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder, { retryAfterMs: bad }).gate).toEqual({ kind: "wait", allowedAt: 100 })
    }
  })

  test("a Retry-After longer than a day reads as silent until the user", () => {
    expect(registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder, { retryAfterMs: RETRY_AFTER_MAX_MS + 1 }).gate.kind).toBe("silent-until-user")
    expect(registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder, { retryAfterMs: RETRY_AFTER_MAX_MS }).gate.kind).toBe("wait")
  })

  test("a paused session never arms the ladder", () => {
    const paused = registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder, { paused: true })
    expect(paused.state).toBe(INITIAL_RATE_LIMIT_STATE)
    expect(paused.gate).toEqual({ kind: "none" })
  })

  test("evaluated as a gate: no timer, a reload that keeps the state still knows the deadline", () => {
    const { state } = registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder)
    const reloaded = JSON.parse(JSON.stringify(state)) as RateLimitState
    expect(rateLimitGate(reloaded, 50).kind).toBe("wait")
    expect(rateLimitGate(reloaded, 100).kind).toBe("resume")
  })

  test("model output or a user turn starts again from the first rung", () => {
    const twice = registerRateLimitHit(rateLimitResumed(registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder).state), 0, ladder)
    expect(twice.state.hits).toBe(2)
    expect(registerRateLimitHit(clearRateLimit(), 0, ladder).gate).toEqual({ kind: "wait", allowedAt: 100 })
  })

  test("quota hits never touch the streaming chain's retry budget", () => {
    // The chain only sees `failure` events the engine classified as streaming; a rate-limit
    // hit is not one, so a chain left alone stays clear with no attempts spent.
    const chain = nextFailureStep(INITIAL_FAILURE_STATE, { type: "tick" }, 0, {
      streamingFailureMaxPrompts: 3,
      baseBackoffMs: 1,
      maxBackoffMs: 1,
      streamingFailureWatchdogMs: 1,
    })
    registerRateLimitHit(INITIAL_RATE_LIMIT_STATE, 0, ladder)
    expect(chain.state).toMatchObject({ phase: "clear", attempts: 0, consecutive: 0 })
  })

  test("rateLimitResumed on a state that is not waiting is a no-op", () => {
    expect(rateLimitResumed(INITIAL_RATE_LIMIT_STATE)).toBe(INITIAL_RATE_LIMIT_STATE)
  })

  test("resume reason", () => {
    expect(rateLimitResumeReason(1, 900_000)).toContain("once; waited 15m 0s")
    expect(rateLimitResumeReason(3, 1_000)).toContain("3 times")
  })
})

describe("retryAfterFromHeaders", () => {
  const now = Date.parse("2025-01-01T00:00:00Z")
  test.each<[unknown, number | undefined]>([
    [{ "retry-after-ms": "50" }, 50],
    [{ "Retry-After-Ms": 1500 }, 1500],
    [{ "retry-after": "30" }, 30_000],
    [{ "retry-after": "1.5" }, 1_500],
    [{ "retry-after": "Wed, 01 Jan 2025 00:01:00 GMT" }, 60_000],
    [{ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }, 0],
    [{ "retry-after-ms": "nope", "retry-after": "2" }, 2_000],
    [{ "retry-after": "soon" }, undefined],
    [{ other: "1" }, undefined],
    [undefined, undefined],
    ["retry-after: 5", undefined],
  ])("%j -> %p", (headers, expected) => {
    expect(retryAfterFromHeaders(headers, now)).toBe(expected as never)
  })
})
