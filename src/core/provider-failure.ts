/**
 * Classifying a provider error the host GAVE UP on (v1 `session.error`, the v2 failed turn).
 * OpenCode 1.x already retries 429 and 5xx itself and reports `session.status retry`
 * meanwhile: those statuses are liveness, never failures, so no retry of ours stacks on them.
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
const ERROR_MESSAGE_CAP = 4_096

/** 1.x error names, and the 2.x `type` of an interrupted step. */
const ABORT_NAMES = new Set(["MessageAbortedError", "AbortError", "aborted"])

export function isAbortName(name: string | undefined): boolean {
  return name !== undefined && ABORT_NAMES.has(name)
}

/**
 * 2.x error types (passed as the name). The deterministic ones fail the same way every time and
 * are decided before the streaming check, so no `streamingFailureErrorNames` entry makes them retries.
 */
const RATE_LIMIT_TYPES = new Set(["provider.rate-limit", "provider.quota"])
const DETERMINISTIC_TYPES = new Set(["provider.content-filter", "provider.auth", "provider.invalid-request", "provider.no-route", "permission.rejected"])

/**
 * Checked before everything but aborts: a 429 arrives as APIError, which is also a streaming
 * name, and must wait out its window instead of being retried.
 */
const RATE_LIMIT_PATTERNS = [/too many requests/i, /rate[\s_-]?limit/i, /rate exceeded/i, /quota/i, /resource[\s_-]?exhausted/i, /usage limit/i, /throttl/i]

/**
 * `MessageOutputLengthError` is NOT an overflow: the answer hit its own output cap, and taking
 * it for one would lock a healthy session. "tokens per minute" stays a rate limit (checked first).
 */
const OVERFLOW_PATTERNS = [/context[\s_-]?length/i, /maximum context/i, /context[\s_-]?window/i, /prompt is too long/i, /input is too long/i, /too many tokens/i]
const OVERFLOW_NAME = /context.?(overflow|length|window)/i

/**
 * Failures of the model or its provider rather than of the request: the model does not exist
 * there (404, no route, an unknown model) or the provider refuses our credentials (401, 403).
 * The same request may well be served by another model, so with `fallbackModels` configured it
 * goes there at once. Not here, deliberately: a full context (another model's window is no
 * larger; compaction is the answer), a content filter (a refusal of the content itself: sending
 * it on to another provider to have it answered would be going around that provider's policy
 * behind the user's back), and other 400s (usually the request's own shape, which the next
 * model would get unchanged).
 */
const MODEL_BOUND_TYPES = new Set(["provider.no-route", "provider.auth"])
const MODEL_BOUND_NAMES = new Set(["ProviderAuthError", "ProviderModelNotFoundError"])
const MODEL_BOUND_STATUSES = new Set([401, 403, 404])
const MODEL_GONE_PATTERNS = [/model[\w\s`'"./:-]{0,60}(?:not found|does not exist|doesn't exist)/i, /\b(?:unknown|invalid|unsupported) model\b/i, /model_not_found/i, /no such model/i]

/** 4xx statuses that say "try again later" rather than "this request is wrong". */
const TRANSIENT_CLIENT_STATUSES = new Set([408, 409, 425, 429])

type CompiledPatterns = {
  names: readonly string[]
  patterns: readonly string[]
  nameSet: Set<string>
  matchers: ((message: string) => boolean)[]
}

const compiled = new WeakMap<object, CompiledPatterns>()

/** A backreference or a repeated group with a quantifier or alternation: matched as plain text instead, deliberately conservative. */
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

/** The head of an error message that is looked at ("" for anything but a string). */
export function capMessage(message: unknown): string {
  return typeof message === "string" ? message.slice(0, ERROR_MESSAGE_CAP) : ""
}

/**
 * `deterministic`: the same request fails the same way again (no retry can fix it).
 * `modelBound`: and the failure is the model's or its provider's, not the request's (see
 * MODEL_BOUND_TYPES): another model may serve the same request.
 */
export type FailureVerdict = { kind: FailureClass; why: string; deterministic?: true; modelBound?: true }

/** First match wins. A non-transient 4xx fails the same way again, even when named APIError (a streaming name). */
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
  if (MODEL_BOUND_TYPES.has(name) || MODEL_BOUND_NAMES.has(name)) return { kind: "other", why: `${name}: the model cannot serve any request here`, deterministic: true, modelBound: true }
  if (status !== undefined && MODEL_BOUND_STATUSES.has(status)) return { kind: "other", why: `HTTP ${status}: the model cannot serve any request here`, deterministic: true, modelBound: true }
  // Not for a 5xx: "model ... not found" there is the provider's own trouble, and may pass.
  const gone = status === undefined || status < 500 ? MODEL_GONE_PATTERNS.find((re) => re.test(message)) : undefined
  if (gone) return { kind: "other", why: `the model is unknown to its provider (message matches ${gone.source})`, deterministic: true, modelBound: true }
  if (DETERMINISTIC_TYPES.has(name)) return { kind: "other", why: `error type ${name} is not fixed by a retry`, deterministic: true }
  if (status !== undefined && status >= 400 && status < 500 && !TRANSIENT_CLIENT_STATUSES.has(status)) {
    return { kind: "other", why: `HTTP ${status} is a deterministic client error`, deterministic: true }
  }
  if (isStreamingFailure({ name, message }, options)) return { kind: "streaming", why: `streaming failure (${name || "message"})` }
  return { kind: "other", why: `unclassified ${name || "error"}` }
}

