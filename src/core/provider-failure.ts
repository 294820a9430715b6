/**
 * Provider failures, as pure decisions: what kind of error this is, the recovery chain for a
 * broken stream, the rate-limit gates, and the out-of-context lock. No clock, no timers:
 * every function takes `now`, and results carry the next time worth looking again (`wakeAt`).
 *
 * What reaches these functions: only `session.error` (v1) / the failed-turn event (v2), i.e.
 * what the host GAVE UP on. OpenCode 1.x already retries 429 and 5xx five times by itself
 * (honouring Retry-After) and reports `session.status retry` meanwhile; those retry statuses
 * are liveness, never failures, so the plugin never stacks a retry of its own on top of them.
 */
import type { Options } from "../options/index.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../options/constants.ts"
import { backoffDelay } from "./ladder.ts"

// ---- classification -------------------------------------------------------------------------

export type ErrorSignal = {
  name: string
  message: string
  /** HTTP status when the host reports one (1.x `data.statusCode`). */
  status?: number
  /** The provider's Retry-After, in ms, when known (see `retryAfterFromHeaders`). */
  retryAfterMs?: number
}

export type FailureClass = "streaming" | "rate-limit" | "context-overflow" | "aborted" | "other"

export type FailureClassifierOptions = Pick<Options, "streamingFailureErrorNames" | "streamingFailureMessagePatterns">

/** Characters of an error message that are looked at (the head: that is where providers put the reason). */
export const ERROR_MESSAGE_CAP = 4_096

const ABORT_NAMES = new Set(["MessageAbortedError", "AbortError"])

/**
 * Rate limits and quota. Decided list: HTTP 429, or a message saying "too many requests",
 * "rate limit" (also rate_limit / ratelimit / rate-limited), "rate exceeded", anything about
 * a "quota" (quota exceeded, insufficient_quota, exceeded your current quota), "resource
 * exhausted" (Google), "usage limit" (subscription plans) or "throttl…" (Bedrock).
 * Checked before everything but aborts: a 429 arrives as APIError, which is also a
 * streaming name, and must wait out its window instead of being retried.
 */
const RATE_LIMIT_PATTERNS = [
  /too many requests/i,
  /rate[\s_-]?limit/i,
  /rate exceeded/i,
  /quota/i,
  /resource[\s_-]?exhausted/i,
  /usage limit/i,
  /throttl/i,
]

/**
 * The prompt no longer fits the model's window. Decided list: "context length"
 * (context_length_exceeded), "maximum context", "context window", "prompt is too long",
 * "input is too long", "too many tokens", and error names mentioning a context overflow.
 * `MessageOutputLengthError` is NOT an overflow: the answer hit its own output cap, the
 * context is fine, and treating it as full would lock a healthy session; it classifies as
 * "other". A rate-limit message that mentions tokens ("tokens per minute") stays a rate limit,
 * because the rate-limit check runs first.
 */
const OVERFLOW_PATTERNS = [
  /context[\s_-]?length/i,
  /maximum context/i,
  /context[\s_-]?window/i,
  /prompt is too long/i,
  /input is too long/i,
  /too many tokens/i,
]
const OVERFLOW_NAME = /context.?(overflow|length|window)/i

/** 4xx statuses that say "try again later" rather than "this request is wrong". */
const TRANSIENT_CLIENT_STATUSES = new Set([408, 409, 425, 429])

type CompiledPatterns = {
  names: readonly string[]
  patterns: readonly string[]
  nameSet: Set<string>
  matchers: ((message: string) => boolean)[]
}

const compiled = new WeakMap<object, CompiledPatterns>()

/**
 * True for a source whose matching time could blow up: a backreference, or a group that
 * contains a quantifier or an alternation and is itself repeated (`(a+)+`, `(a|ab)*`,
 * `(\w+\s?){2,}`). Such a pattern is matched as plain text instead (deliberately
 * conservative); every built-in pattern is linear.
 */
export function looksSuperLinear(source: string): boolean {
  if (/\\[1-9]|\\k</.test(source)) return true
  const stack: boolean[] = []
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === "\\") {
      i++
      continue
    }
    if (inClass) {
      if (c === "]") inClass = false
      continue
    }
    if (c === "[") inClass = true
    else if (c === "(") stack.push(false)
    else if (c === "*" || c === "+" || c === "{" || c === "|") {
      if (stack.length) stack[stack.length - 1] = true
    } else if (c === ")") {
      const hadQuantifier = stack.pop() ?? false
      const next = source[i + 1]
      if (hadQuantifier && (next === "*" || next === "+" || next === "{")) return true
      if (hadQuantifier && stack.length) stack[stack.length - 1] = true
    }
  }
  return false
}

function makeMatcher(pattern: string): ((message: string) => boolean) | undefined {
  if (pattern === "") return undefined
  const literal = pattern.toLowerCase()
  const substring = (message: string) => message.toLowerCase().includes(literal)
  if (looksSuperLinear(pattern)) return substring
  try {
    const re = new RegExp(pattern, "i")
    return (message: string) => re.test(message)
  } catch {
    return substring
  }
}

function compile(options: FailureClassifierOptions): CompiledPatterns {
  const names = options.streamingFailureErrorNames ?? []
  const patterns = options.streamingFailureMessagePatterns ?? []
  const cached = compiled.get(options)
  if (cached && cached.names === names && cached.patterns === patterns) return cached
  const fresh: CompiledPatterns = {
    names,
    patterns,
    nameSet: new Set(names),
    matchers: patterns.map(makeMatcher).filter((m): m is (message: string) => boolean => m !== undefined),
  }
  compiled.set(options, fresh)
  return fresh
}

/** Exact name, or a configured message pattern (case-insensitive; bad regex -> substring). */
export function isStreamingFailure(signal: Pick<ErrorSignal, "name" | "message">, options: FailureClassifierOptions): boolean {
  const c = compile(options)
  if (c.nameSet.has(signal.name)) return true
  const message = capMessage(signal.message)
  return message !== "" && c.matchers.some((m) => m(message))
}

function capMessage(message: unknown): string {
  if (typeof message !== "string") return ""
  return message.length > ERROR_MESSAGE_CAP ? message.slice(0, ERROR_MESSAGE_CAP) : message
}

export type FailureVerdict = { kind: FailureClass; why: string }

/**
 * Precedence, first match wins:
 *  1. aborted: MessageAbortedError / AbortError (the engine decides whether it was ESC);
 *  2. rate-limit: status 429 or a rate-limit/quota message;
 *  3. context-overflow: an overflow message or name;
 *  4. other: a 4xx status that is not transient (400, 401, 403, 404, 413, 422 ...): the same
 *     request would fail the same way, so it is a deterministic failure even when its name
 *     (APIError) is a streaming name;
 *  5. streaming: a streaming name or message pattern;
 *  6. other.
 */
export function explainFailure(signal: ErrorSignal, options: FailureClassifierOptions): FailureVerdict {
  const name = typeof signal.name === "string" ? signal.name : ""
  const message = capMessage(signal.message)
  const status = typeof signal.status === "number" && Number.isFinite(signal.status) ? signal.status : undefined
  if (ABORT_NAMES.has(name)) return { kind: "aborted", why: `${name}` }
  if (status === 429) return { kind: "rate-limit", why: "HTTP 429" }
  const rate = RATE_LIMIT_PATTERNS.find((re) => re.test(message))
  if (rate) return { kind: "rate-limit", why: `message matches ${rate.source}` }
  if (OVERFLOW_NAME.test(name)) return { kind: "context-overflow", why: `error name ${name}` }
  const overflow = OVERFLOW_PATTERNS.find((re) => re.test(message))
  if (overflow) return { kind: "context-overflow", why: `message matches ${overflow.source}` }
  if (status !== undefined && status >= 400 && status < 500 && !TRANSIENT_CLIENT_STATUSES.has(status)) {
    return { kind: "other", why: `HTTP ${status} is a deterministic client error` }
  }
  if (isStreamingFailure({ name, message }, options)) return { kind: "streaming", why: `streaming failure (${name || "message"})` }
  return { kind: "other", why: `unclassified ${name || "error"}` }
}

export function classifyFailure(signal: ErrorSignal, options: FailureClassifierOptions): FailureClass {
  return explainFailure(signal, options).kind
}

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

// ---- the streaming-failure recovery chain ---------------------------------------------------

/**
 * clear          nothing to do
 * armed          a streaming failure was seen; waiting for idle and `notBefore` (backoff)
 * prompted       a recovery prompt went out at `sentAt`; the watchdog expects busy soon
 * abort-resumed  retries ran out; abort + resume went out at `sentAt`
 * gave-up        abort + resume did not revive the session either
 * loop-latched   `failureLoopLimit` recoveries in a row with no model output between them:
 *                the endpoint is down for good, stop cycling
 * gave-up and loop-latched are lifted by model output or a genuine user turn.
 */
export type FailurePhase = "clear" | "armed" | "prompted" | "abort-resumed" | "gave-up" | "loop-latched"

export type FailureState = {
  phase: FailurePhase
  /** Last busy/idle status seen. */
  busy: boolean
  /** Error name of the current incident. */
  reason: string
  /** Recovery prompts sent in the current incident. */
  attempts: number
  notBefore: number
  sentAt: number
  /** Failure recoveries started with no model output since. */
  consecutive: number
}

export const INITIAL_FAILURE_STATE: FailureState = {
  phase: "clear",
  busy: false,
  reason: "",
  attempts: 0,
  notBefore: 0,
  sentAt: 0,
  consecutive: 0,
}

export type FailureEvent =
  | { type: "failure"; name: string }
  | { type: "idle" }
  | { type: "busy" }
  | { type: "modelOutput" }
  | { type: "tick" }
  | { type: "genuineUser" }
  | { type: "cancelled" }

export type FailureAction =
  | { type: "none" }
  | { type: "prompt"; attempt: number; maxAttempts: number; reason: string }
  | { type: "abort-resume"; reason: string }
  | { type: "give-up"; reason: string }

export type FailureBudgets = Pick<Options, "maxRetries" | "baseBackoffMs" | "maxBackoffMs" | "toolTextCheckDelayMs"> & {
  /** Recoveries in a row without model output before the failure loop latches (default 3). */
  failureLoopLimit?: number
}

export type FailureStep = {
  state: FailureState
  action: FailureAction
  /** When a `tick` could next change something (the engine's one watchdog deadline). */
  wakeAt?: number
}

export const DEFAULT_FAILURE_LOOP_LIMIT = 3
/** The watchdog never judges "still not busy" sooner than this, even with toolTextCheckDelayMs 0. */
export const FAILURE_WATCHDOG_MIN_MS = 1_000

const NONE: FailureAction = { type: "none" }

function watchdogMs(budgets: FailureBudgets): number {
  return Math.max(budgets.toolTextCheckDelayMs, FAILURE_WATCHDOG_MIN_MS)
}

/**
 * One step of the chain. The engine feeds:
 *  - `failure` for a `session.error` classified "streaming" (nothing else);
 *  - `busy` / `idle` for status changes; `modelOutput` for any new text, reasoning or tool call;
 *  - `genuineUser` for a real user message; `cancelled` for the user's ESC;
 *  - `tick` at `wakeAt` (and on its periodic sweep).
 * and performs the action: `prompt` -> a recovery prompt (continue text) to the session;
 * `abort-resume` -> own abort, then a continue after ABORT_CONTINUE_DELAY_MS;
 * `give-up` -> one log line. It must check its guards (cancelled, paused, awaiting the user,
 * completed, the out-of-context lock, the rate-limit gate) before `tick`/`idle`, and feed
 * nothing while they refuse: the chain then just waits.
 */
export function nextFailureStep(state: FailureState, event: FailureEvent, now: number, budgets: FailureBudgets): FailureStep {
  switch (event.type) {
    case "genuineUser":
      return { state: { ...INITIAL_FAILURE_STATE, busy: state.busy }, action: NONE }
    case "cancelled":
      return { state: { ...state, phase: "clear", attempts: 0 }, action: NONE }
    case "modelOutput":
      return { state: { ...state, phase: "clear", attempts: 0, consecutive: 0 }, action: NONE }
    case "busy":
      // Whatever made it busy (our prompt, the host, the user), nothing is pending any more.
      if (state.phase === "armed" || state.phase === "prompted" || state.phase === "abort-resumed") {
        return { state: { ...state, busy: true, phase: "clear", attempts: 0 }, action: NONE }
      }
      return { state: { ...state, busy: true }, action: NONE }
    case "failure": {
      if (state.phase === "gave-up" || state.phase === "loop-latched") return { state, action: NONE }
      const limit = budgets.failureLoopLimit ?? DEFAULT_FAILURE_LOOP_LIMIT
      if (state.consecutive >= limit) {
        return {
          state: { ...state, phase: "loop-latched", reason: event.name },
          action: { type: "give-up", reason: `failure loop: ${state.consecutive} recoveries in a row brought no model output (${event.name})` },
        }
      }
      const notBefore = now + backoffDelay(0, budgets.baseBackoffMs, budgets.maxBackoffMs)
      const next: FailureState = { ...state, phase: "armed", reason: event.name, attempts: 0, notBefore, sentAt: 0 }
      return state.busy ? { state: next, action: NONE } : { state: next, action: NONE, wakeAt: notBefore }
    }
    case "idle":
      return evaluate({ ...state, busy: false }, now, budgets)
    case "tick":
      return evaluate(state, now, budgets)
  }
}

function evaluate(state: FailureState, now: number, budgets: FailureBudgets): FailureStep {
  const maxAttempts = Math.max(0, budgets.maxRetries)
  switch (state.phase) {
    case "armed": {
      if (state.busy) return { state, action: NONE }
      if (now < state.notBefore) return { state, action: NONE, wakeAt: state.notBefore }
      if (maxAttempts === 0) {
        return { state: { ...state, phase: "gave-up" }, action: { type: "give-up", reason: `retry budget is 0 (${state.reason})` } }
      }
      const attempt = state.attempts + 1
      return {
        state: {
          ...state,
          phase: "prompted",
          attempts: attempt,
          sentAt: now,
          consecutive: state.attempts === 0 ? state.consecutive + 1 : state.consecutive,
        },
        action: { type: "prompt", attempt, maxAttempts, reason: state.reason },
        wakeAt: now + watchdogMs(budgets),
      }
    }
    case "prompted": {
      if (state.busy) return { state, action: NONE }
      const due = state.sentAt + watchdogMs(budgets)
      if (now < due) return { state, action: NONE, wakeAt: due }
      if (state.attempts < maxAttempts) {
        const notBefore = now + backoffDelay(state.attempts, budgets.baseBackoffMs, budgets.maxBackoffMs)
        return evaluate({ ...state, phase: "armed", notBefore }, now, budgets)
      }
      return {
        state: { ...state, phase: "abort-resumed", sentAt: now },
        action: { type: "abort-resume", reason: `${state.attempts} recovery prompt(s) did not restart the session (${state.reason})` },
        wakeAt: now + ABORT_CONTINUE_DELAY_MS + watchdogMs(budgets),
      }
    }
    case "abort-resumed": {
      if (state.busy) return { state, action: NONE }
      const due = state.sentAt + ABORT_CONTINUE_DELAY_MS + watchdogMs(budgets)
      if (now < due) return { state, action: NONE, wakeAt: due }
      return {
        state: { ...state, phase: "gave-up" },
        action: { type: "give-up", reason: `abort + resume did not restart the session (${state.reason})` },
      }
    }
    default:
      return { state, action: NONE }
  }
}

// ---- rate-limit gates -----------------------------------------------------------------------

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

/**
 * A rate-limit failure arrived (session.error classified "rate-limit"). Hit n (1-based)
 * waits `cooldowns[n-1]`, or the provider's Retry-After when that is longer (never shorter
 * than what the provider asked for); a hit past the ladder, or a Retry-After over 24 h,
 * turns the session silent until the user speaks. A paused session records nothing.
 * Hits never touch the streaming chain's retry budget.
 */
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

/**
 * The gate, evaluated on every failure and every watchdog tick (no timer to lose on reload).
 * `wait` and `silent-until-user` veto EVERY continue for the session, not just this path;
 * `resume` means the engine may send one continue now and then call `rateLimitResumed`.
 */
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

/** The engine sent the continue the open gate allowed. */
export function rateLimitResumed(state: RateLimitState): RateLimitState {
  return state.phase === "waiting" ? { ...state, phase: "resumed" } : state
}

/** Model output (the window is over) or a genuine user turn: start from the first rung again. */
export function clearRateLimit(): RateLimitState {
  return INITIAL_RATE_LIMIT_STATE
}

// ---- out-of-context lock --------------------------------------------------------------------

/**
 * Once a context-overflow error is seen, no continue of any kind is sent until a genuine user
 * turn: each continue would re-send the same full context and fail the same way.
 */
export type ContextLock = { locked: boolean; since: number }

export const UNLOCKED_CONTEXT: ContextLock = { locked: false, since: 0 }

export function nextContextLock(
  lock: ContextLock,
  event: { type: "failure"; kind: FailureClass } | { type: "genuineUser" },
  now: number,
): ContextLock {
  if (event.type === "genuineUser") return UNLOCKED_CONTEXT
  if (event.kind === "context-overflow" && !lock.locked) return { locked: true, since: now }
  return lock
}
