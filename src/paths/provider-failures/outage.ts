/**
 * Which provider failures mean "this model cannot serve you for now": a rate limit, a spent
 * quota, or an overloaded endpoint. Read from what either host reports: 1.x gives an error
 * name, `data.statusCode` and a message (also in a retry status), 2.x a `type`, a `status` and
 * a message. Pure; every pattern is linear and runs on a capped head of the message.
 *
 * Used to name the reason a fallback model took over; whether a session waits at all is still
 * decided by provider-failure.ts (rate limits) and the failure chain (everything else).
 */
import { capMessage } from "../../core/provider-failure.ts"

export type OutageKind = "rate-limit" | "quota" | "overloaded"

export type OutageInput = { name?: string; message?: string; status?: number }

export type Outage = { kind: OutageKind; why: string }

/** 2.x error types that name an outage outright. */
const OUTAGE_TYPES: Record<string, OutageKind> = {
  "provider.rate-limit": "rate-limit",
  "provider.quota": "quota",
  "provider.overloaded": "overloaded",
}

/** Quota first: "insufficient_quota" arrives with a 429 and is a quota, not a rate. */
const QUOTA = [/insufficient[\s_-]?quota/i, /quota/i, /usage limit/i, /billing/i, /credit balance/i]
const RATE = [/rate[\s_-]?limit/i, /too many requests/i, /rate exceeded/i, /throttl/i, /resource[\s_-]?exhausted/i]
const OVERLOAD = [/overloaded/i, /queue (is )?full/i, /server is busy/i, /over capacity/i, /capacity exceeded/i, /temporarily unavailable/i]

/** Longest quoted excerpt of the provider's words in a reason (the reason reaches the model). */
const QUOTE_CAP = 60

/** The provider's own words the first matching pattern found, quoted: what the log and the continue show. */
function first(patterns: readonly RegExp[], text: string): string | undefined {
  for (const re of patterns) {
    const found = re.exec(text)
    if (found) return `"${found[0].slice(0, QUOTE_CAP)}"`
  }
  return undefined
}

export function classifyOutage(input: OutageInput): Outage | undefined {
  const name = typeof input.name === "string" ? input.name : ""
  const message = capMessage(input.message)
  const status = typeof input.status === "number" && Number.isFinite(input.status) ? input.status : undefined
  const typed = OUTAGE_TYPES[name]
  if (typed) return { kind: typed, why: `error type ${name}` }
  const quota = first(QUOTA, message)
  if (quota) return { kind: "quota", why: quota }
  if (status === 429) return { kind: "rate-limit", why: "HTTP 429" }
  const rate = first(RATE, message)
  if (rate) return { kind: "rate-limit", why: rate }
  if (status === 529) return { kind: "overloaded", why: "HTTP 529" }
  const overload = first(OVERLOAD, message)
  if (overload) return { kind: "overloaded", why: `${status === 503 ? "HTTP 503, " : ""}${overload}` }
  if (status === 503) return { kind: "overloaded", why: "HTTP 503" }
  return undefined
}

/** A short label for logs and the continue: `rate limited: HTTP 429`, `quota exhausted: "insufficient_quota"`. */
export function outageLabel(outage: Outage | undefined, fallback: string): string {
  if (!outage) return fallback
  const what = outage.kind === "quota" ? "quota exhausted" : outage.kind === "overloaded" ? "provider overloaded" : "rate limited"
  return `${what}: ${outage.why}`
}
