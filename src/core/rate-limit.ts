/**
 * Rate-limit gates: how long a session must wait after each rate-limit hit before any
 * continue, and when it falls silent until the user speaks; plus reading the provider's
 * Retry-After. Pure: every function takes `now`, nothing is timed here, so a reload loses
 * no timer. Kept apart from the streaming chain because hits never spend its retry budget.
 */

/** Most a Retry-After is believed (24 h); a longer one reads as "silent until the user". */
export const RETRY_AFTER_MAX_MS = 86_400_000

/**
 * Retry-After from response headers (any case): `retry-after-ms` (milliseconds), else
 * `retry-after` as seconds or as an HTTP date (relative to `now`). Unparseable -> undefined.
 */
export function retryAfterFromHeaders(headers: unknown, now: number): number | undefined {
  if (!headers || typeof headers !== "object") return undefined
  let ms: string | undefined
  let plain: string | undefined
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (typeof value !== "string" && typeof value !== "number") continue
    const k = key.toLowerCase()
    if (k === "retry-after-ms") ms = String(value)
    else if (k === "retry-after") plain = String(value)
  }
  if (ms !== undefined) {
    const n = Number(ms.trim())
    if (ms.trim() !== "" && Number.isFinite(n) && n >= 0) return n
  }
  if (plain !== undefined) {
    const text = plain.trim()
    if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000
    const at = Date.parse(text)
    if (Number.isFinite(at)) return Math.max(0, at - now)
  }
  return undefined
}

/**
 * clear    no rate limit in play
 * waiting  hit number `hits` recorded; no continue of any kind before `allowedAt`
 * resumed  the gate opened and the engine sent its one continue; waiting for the outcome
 * silent   past the ladder (or an absurd Retry-After): nothing until a genuine user turn
 */
export type RateLimitPhase = "clear" | "waiting" | "resumed" | "silent"

export type RateLimitState = {
  phase: RateLimitPhase
  /** Rate-limit hits since the last model output or genuine user turn. */
  hits: number
  allowedAt: number
}

export const INITIAL_RATE_LIMIT_STATE: RateLimitState = { phase: "clear", hits: 0, allowedAt: 0 }

export type RateLimitGate =
  | { kind: "none" }
  | { kind: "wait"; allowedAt: number }
  | { kind: "resume" }
  | { kind: "silent-until-user" }

/** Hit n waits `cooldowns[n-1]` or the provider's Retry-After, whichever is longer (never shorter than asked). */
export function registerRateLimitHit(
  state: RateLimitState,
  now: number,
  cooldowns: readonly number[],
  opts: { retryAfterMs?: number; paused?: boolean } = {},
): { state: RateLimitState; gate: RateLimitGate } {
  if (opts.paused) return { state, gate: rateLimitGate(state, now) }
  if (state.phase === "silent") return { state, gate: { kind: "silent-until-user" } }
  const hits = state.hits + 1
  const cooldown = cooldowns[hits - 1]
  const retryAfter =
    typeof opts.retryAfterMs === "number" && Number.isFinite(opts.retryAfterMs) && opts.retryAfterMs > 0 ? opts.retryAfterMs : 0
  if (cooldown === undefined || retryAfter > RETRY_AFTER_MAX_MS) {
    const silent: RateLimitState = { phase: "silent", hits, allowedAt: Infinity }
    return { state: silent, gate: { kind: "silent-until-user" } }
  }
  const allowedAt = now + Math.max(cooldown, retryAfter)
  const next: RateLimitState = { phase: "waiting", hits, allowedAt }
  return { state: next, gate: rateLimitGate(next, now) }
}

/** `wait` and `silent-until-user` veto EVERY continue for the session, not just this path. */
export function rateLimitGate(state: RateLimitState, now: number): RateLimitGate {
  switch (state.phase) {
    case "clear":
    case "resumed":
      return { kind: "none" }
    case "silent":
      return { kind: "silent-until-user" }
    case "waiting":
      return now < state.allowedAt ? { kind: "wait", allowedAt: state.allowedAt } : { kind: "resume" }
  }
}

export function rateLimitResumed(state: RateLimitState): RateLimitState {
  return state.phase === "waiting" ? { ...state, phase: "resumed" } : state
}

export function clearRateLimit(): RateLimitState {
  return INITIAL_RATE_LIMIT_STATE
}
