/**
 * Classifying a provider error the host gave up on: aborted, rate limit, context overflow,
 * deterministic client error, broken stream, or other. Pure: no clock, no state beyond a
 * cache of the user's compiled patterns.
 *
 * What reaches these functions: only `session.error` (v1) / the failed-turn event (v2), i.e.
 * what the host GAVE UP on. OpenCode 1.x already retries 429 and 5xx five times by itself
 * (honouring Retry-After) and reports `session.status retry` meanwhile; those retry statuses
 * are liveness, never failures, so the plugin never stacks a retry of its own on top of them.
 *
 * What each class then leads to lives next door: failure-chain.ts (streaming), rate-limit.ts
 * (rate-limit gates) and context-lock.ts (context overflow).
 */
import type { Options } from "../options/index.ts"

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

/** 1.x error names, and the 2.x `type` of an interrupted step. */
const ABORT_NAMES = new Set(["MessageAbortedError", "AbortError", "aborted"])

/** Whether an error's name (1.x) or type (2.x) says the run was interrupted, not failed. */
export function isAbortName(name: string | undefined): boolean {
  return name !== undefined && ABORT_NAMES.has(name)
}

/**
 * OpenCode 2.x reports an error's `type` where 1.x gave a name (the adapter passes it as the
 * name). Rate limits and quota are told by type; so are the failures a continue cannot fix:
 * a content filter would only block the answer again, and bad credentials, a malformed
 * request or a missing route fail the same way every time. These are decided before the
 * streaming check, so no `streamingFailureErrorNames` entry can turn them into retries.
 */
const RATE_LIMIT_TYPES = new Set(["provider.rate-limit", "provider.quota"])
const DETERMINISTIC_TYPES = new Set(["provider.content-filter", "provider.auth", "provider.invalid-request", "provider.no-route", "permission.rejected"])

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
 *  1. aborted: MessageAbortedError / AbortError / 2.x "aborted" (the engine decides whether
 *     it was ESC);
 *  2. rate-limit: status 429, a 2.x rate-limit or quota type, or a rate-limit/quota message;
 *  3. context-overflow: an overflow message or name;
 *  4. other: a 2.x type no retry can fix (content filter, auth, invalid request, no route);
 *  5. other: a 4xx status that is not transient (400, 401, 403, 404, 413, 422 ...): the same
 *     request would fail the same way, so it is a deterministic failure even when its name
 *     (APIError) is a streaming name;
 *  6. streaming: a streaming name (1.x name or 2.x type) or message pattern;
 *  7. other.
 */
export function explainFailure(signal: ErrorSignal, options: FailureClassifierOptions): FailureVerdict {
  const name = typeof signal.name === "string" ? signal.name : ""
  const message = capMessage(signal.message)
  const status = typeof signal.status === "number" && Number.isFinite(signal.status) ? signal.status : undefined
  if (ABORT_NAMES.has(name)) return { kind: "aborted", why: `${name}` }
  if (status === 429) return { kind: "rate-limit", why: "HTTP 429" }
  if (RATE_LIMIT_TYPES.has(name)) return { kind: "rate-limit", why: `error type ${name}` }
  const rate = RATE_LIMIT_PATTERNS.find((re) => re.test(message))
  if (rate) return { kind: "rate-limit", why: `message matches ${rate.source}` }
  if (OVERFLOW_NAME.test(name)) return { kind: "context-overflow", why: `error name ${name}` }
  const overflow = OVERFLOW_PATTERNS.find((re) => re.test(message))
  if (overflow) return { kind: "context-overflow", why: `message matches ${overflow.source}` }
  if (DETERMINISTIC_TYPES.has(name)) return { kind: "other", why: `error type ${name} is not fixed by a retry` }
  if (status !== undefined && status >= 400 && status < 500 && !TRANSIENT_CLIENT_STATUSES.has(status)) {
    return { kind: "other", why: `HTTP ${status} is a deterministic client error` }
  }
  if (isStreamingFailure({ name, message }, options)) return { kind: "streaming", why: `streaming failure (${name || "message"})` }
  return { kind: "other", why: `unclassified ${name || "error"}` }
}

