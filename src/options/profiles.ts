/**
 * Per-session patience. A model running on the user's own hardware can legitimately take
 * minutes per chunk, so "local" providers get the slow profile; everything else (cloud
 * APIs, including OpenCode's own `opencode/*` models) gets the fast one.
 *
 * The profile is worked out each time a stall is judged, not when the session starts, so a
 * mid-session model switch takes effect at once.
 */
import { BoundedMap } from "../core/bounded.ts"
import type { ResolvedOptions } from "./resolve.ts"
import type { Options, Overrides } from "./schema.ts"

export type Profile = "fast" | "slow"

/** The four budgets the old `maxRetries` set at once keep its per-profile defaults. */
function retryBudgets(count: number): Overrides {
  return { stallEpisodeMaxContinues: count, streamingFailureMaxPrompts: count, finishedTurnMaxNudges: count, taskCompleteMaxRefusals: count }
}

/** Values each profile starts from. Explicit top-level options still beat these. */
export const PROFILE_DEFAULTS: Readonly<Record<Profile, Readonly<Overrides>>> = Object.freeze({
  fast: Object.freeze({ chunkTimeoutMs: 180_000, gracePeriodMs: 3_000, lifetimeMaxContinues: 9, ...retryBudgets(3) }),
  slow: Object.freeze({ chunkTimeoutMs: 600_000, gracePeriodMs: 60_000, lifetimeMaxContinues: 20, ...retryBudgets(5) }),
})

/**
 * Provider names that run models locally, with separators and case removed (see `squash`: so
 * "llama.cpp", "lm-studio" and "text-generation-inference" match). A name matches only as a whole:
 * "ollama-cloud" is Ollama's hosted service, a remote API, and so stays on the fast profile.
 */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(
  ["llamaserver", "llamacpp", "ollama", "vllm", "lmstudio", "koboldcpp", "kobold", "exllama", "exllamav2", "textgenerationinference", "tgi"],
)

function squash(name: string): string {
  return name.toLowerCase().replace(/[\s._-]+/g, "")
}

/** A "provider/model" reference counts by its provider part. */
export function isLocalProvider(providerID?: string): boolean {
  if (typeof providerID !== "string") return false
  const provider = providerID.split("/")[0] ?? ""
  return LOCAL_PROVIDERS.has(squash(provider))
}

export function profileOf(providerID?: string): Profile {
  return isLocalProvider(providerID) ? "slow" : "fast"
}

/**
 * modelProfiles keys match the provider id exactly apart from case and surrounding spaces:
 * unlike the local/online test there is no fuzziness, because the user typed both names.
 */
function providerOverrides(options: Options, providerID: string | undefined): Overrides | undefined {
  const table = options.modelProfiles
  if (table === undefined || typeof providerID !== "string") return undefined
  const wanted = providerID.trim().toLowerCase()
  for (const [name, overrides] of Object.entries(table)) {
    if (name.trim().toLowerCase() === wanted) return overrides
  }
  return undefined
}

function layer(resolved: ResolvedOptions, providerID: string | undefined): Options {
  const profile = profileOf(providerID)
  const out: Record<string, unknown> = { ...resolved.options }
  // Profile defaults only fill what the user did not set at the top level.
  for (const [name, value] of Object.entries(PROFILE_DEFAULTS[profile])) {
    if (!resolved.explicit.has(name)) out[name] = value
  }
  Object.assign(out, profile === "slow" ? resolved.options.defaultSlow : resolved.options.defaultFast)
  Object.assign(out, providerOverrides(resolved.options, providerID))
  return Object.freeze(out) as Options
}

/** Results per resolved options object and provider; a handful of providers is the norm. */
const cache = new WeakMap<ResolvedOptions, Map<string, Options>>()
const MAX_CACHED_PROVIDERS = 64

/**
 * Weakest layer first: schema defaults < profile defaults < explicit top-level options <
 * defaultFast/defaultSlow < modelProfiles[providerID]. Memoised and frozen: copy before changing.
 */
export function effectiveOptions(resolved: ResolvedOptions, providerID?: string): Options {
  // "\u0000" cannot be a real provider id, so it safely stands for "no provider known".
  const key = typeof providerID === "string" ? providerID : "\u0000"
  let perProvider = cache.get(resolved)
  if (perProvider === undefined) {
    perProvider = new BoundedMap(MAX_CACHED_PROVIDERS)
    cache.set(resolved, perProvider)
  }
  const hit = perProvider.get(key)
  if (hit !== undefined) return hit
  const result = layer(resolved, providerID)
  perProvider.set(key, result)
  return result
}
