/**
 * The 2.x session hooks that let the host's own retries and the plugin's waits be one:
 * `retry` hears each retry the host proposes (`{ sessionID, agent, model, error, attempt,
 * decision }`, `decision` rewritable) and asks the core what to make of it (core/host-retry.ts);
 * `http.response` is where the provider's Retry-After can be read, since 2.x error objects carry
 * no headers. I/O only here: reading the host's shapes, and writing back the core's answer.
 *
 * Feature-detected: a host without `session.hook` gets one log line and the ladder as on 1.x.
 * A hook callback never throws into the host and makes no host call (the host awaits it).
 * The host stops calling `retry` once its budget is spent; the run's failure then reaches the
 * core as an error signal, as it does without the hook.
 */
import type { TimeSource } from "../../core/clock.ts"
import { BoundedMap } from "../../core/bounded.ts"
import type { HostRetryDecision, HostRetryProposal } from "../../core/host-retry.ts"
import { withTimeout } from "../../core/host-calls.ts"
import { errorText } from "../../core/logger.ts"
import type { LogLevel } from "../../core/port.ts"
import { retryAfterFromHeaders } from "../../core/rate-limit.ts"
import { get, num, str } from "../shape.ts"
import { hostError } from "./events.ts"
import { callCtx, hasMethod, safeDisposer } from "./context.ts"

/** Sessions whose last provider response's Retry-After is remembered (oldest forgotten first). */
const MAX_REMEMBERED_RESPONSES = 500
/** A Retry-After older than this belongs to an earlier failure, not the one being retried. */
const RETRY_AFTER_FRESH_MS = 60_000

export type RetryHookDeps = {
  /** The core's answer; undefined lets the host's proposal stand. */
  decide: (sessionID: string, proposal: HostRetryProposal) => HostRetryDecision | undefined
  /** False once the instance stopped: a superseded instance leaves the decision alone. */
  live: () => boolean
  time: TimeSource
  /** Wall-clock now, for a Retry-After given as an HTTP date. */
  wallNow: () => number
  log: (level: LogLevel, message: string) => void
  /** Bound on each registration call (sendTimeoutMs). */
  timeoutMs: () => number
}

type Remembered = { retryAfterMs: number; at: number }

/** The host's mutable decision, read defensively: a proposal whose shape we do not know is left alone. */
function proposedOf(decision: unknown): HostRetryDecision | undefined {
  if (get(decision, "retry") === false) return { retry: false }
  const delay = num(get(decision, "delay"))
  if (get(decision, "retry") === true && delay !== undefined) return { retry: true, delayMs: delay }
  return undefined
}

/** Retry-After from a fetch `Response` (or anything with `headers.get` or plain header fields). */
function retryAfterOf(response: unknown, now: number): number | undefined {
  const headers = get(response, "headers")
  const read = get(headers, "get")
  if (typeof read === "function") {
    const plain: Record<string, string> = {}
    for (const key of ["retry-after-ms", "retry-after"]) {
      const value: unknown = read.call(headers, key)
      if (typeof value === "string") plain[key] = value
    }
    return retryAfterFromHeaders(plain, now)
  }
  return retryAfterFromHeaders(headers, now)
}

/** Registers both hooks; resolves to one disposer for both, or undefined without `session.hook`. */
export async function registerRetryHooks(ctx: unknown, deps: RetryHookDeps): Promise<{ dispose(): void } | undefined> {
  if (!hasMethod(ctx, "session", "hook")) {
    deps.log("info", "ctx.session.hook is missing: the host's own retries are not shaped (the cooldown ladder waits after them, as on 1.x)")
    return undefined
  }
  const retryAfter = new BoundedMap<string, Remembered>(MAX_REMEMBERED_RESPONSES, { refresh: true })

  const onResponse = (event: unknown) => {
    try {
      if (!deps.live()) return
      const sessionID = str(get(event, "sessionID"))
      const status = num(get(event, "response", "status"))
      if (!sessionID || status === undefined || status < 400) return
      const ms = retryAfterOf(get(event, "response"), deps.wallNow())
      if (ms !== undefined) retryAfter.set(sessionID, { retryAfterMs: ms, at: deps.time.now() })
    } catch (error) {
      deps.log("debug", `http.response hook: ${errorText(error)}`)
    }
  }

  const onRetry = (event: unknown) => {
    try {
      if (!deps.live()) return
      const sessionID = str(get(event, "sessionID"))
      const proposed = proposedOf(get(event, "decision"))
      if (!sessionID || !proposed) {
        deps.log("debug", "retry hook: an event without a session or a readable decision; left to the host")
        return
      }
      const error = hostError(get(event, "error"))
      const remembered = retryAfter.get(sessionID)
      retryAfter.delete(sessionID)
      const fresh = remembered && deps.time.now() - remembered.at <= RETRY_AFTER_FRESH_MS ? remembered.retryAfterMs : undefined
      const proposal: HostRetryProposal = { name: error.name, message: error.message.slice(0, 2000), attempt: num(get(event, "attempt")) ?? 0, proposed }
      if (error.status !== undefined) proposal.status = error.status
      const asked = error.retryAfterMs ?? (error.headers === undefined ? undefined : retryAfterFromHeaders(error.headers, deps.wallNow())) ?? fresh
      if (asked !== undefined) proposal.retryAfterMs = asked
      const decision = deps.decide(sessionID, proposal)
      if (!decision) return
      ;(event as { decision: unknown }).decision = decision.retry ? { retry: true, delay: decision.delayMs } : { retry: false }
    } catch (error) {
      deps.log("debug", `retry hook: ${errorText(error)}; the host's decision stands`)
    }
  }

  const registrations: { dispose(): void }[] = []
  for (const [name, cb] of [["http.response", onResponse], ["retry", onRetry]] as const) {
    try {
      registrations.push(safeDisposer(await withTimeout(deps.time, deps.timeoutMs(), `session.hook("${name}")`, () => callCtx(ctx, "session", "hook", name, cb))))
    } catch (error) {
      deps.log("warn", `session.hook("${name}") refused: ${errorText(error)}`)
    }
  }
  if (registrations.length === 0) return undefined
  deps.log("info", "the host's own retries are shaped by the cooldown ladder (session retry hook)")
  return { dispose: () => registrations.forEach((r) => r.dispose()) }
}
