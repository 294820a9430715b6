/**
 * Which providers get a shorter host hung-stream timeout in a headless run, and how short.
 *
 * A headless run (`opencode run`) ends at the session's first idle and fails when the session
 * reported any error. The plugin's own cure for a hung stream (abort, then continue) produces
 * exactly that: the abort's MessageAbortedError and idle end the run before the continue lands.
 * OpenCode has a cure of its own that ends neither: when a provider stream stays silent for the
 * provider option `chunkTimeout`, it reports `session.status retry` and asks again. Its default
 * (300 s) is later than the plugin's stall budget, so in a headless run the plugin hands that
 * option its own budget and lets the host recover first.
 *
 * The value is the session's `chunkTimeoutMs` for that provider (profile and modelProfiles
 * included), without `gracePeriodMs`: the plugin only acts once a stream has been silent for
 * chunkTimeoutMs + gracePeriodMs, so the host's retry comes a grace period earlier and its
 * retry status counts as activity; the plugin then has nothing to do. With the grace added
 * both would fire together and race.
 *
 * Pure: the caller reads the config and applies the plan.
 */

/** OpenCode 1.18's `chunkTimeout` for a provider that sets none. */
export const HOST_DEFAULT_CHUNK_TIMEOUT_MS = 300_000

/** A run never names more providers than this; anything past it is left alone. */
export const MAX_PLANNED_PROVIDERS = 64

export type ProviderTimeoutFacts = {
  providerID: string
  /** The user's config sets `chunkTimeout` for this provider (any value, `false` included). */
  userValue: boolean
}

export type ChunkTimeoutPlan = {
  /** Providers to give `chunkTimeout: ms`, in the order they were listed. */
  set: Array<{ providerID: string; ms: number }>
  /** Providers whose own `chunkTimeout` stays as the user wrote it. */
  kept: string[]
}

/**
 * One entry per provider id (first listing wins). A provider is given the budget only where
 * the user set nothing and the budget is shorter than the host's default: a longer one would
 * make the host slower to recover than it already is.
 */
export function planChunkTimeouts(providers: readonly ProviderTimeoutFacts[], budgetMs: (providerID: string) => number): ChunkTimeoutPlan {
  const plan: ChunkTimeoutPlan = { set: [], kept: [] }
  const seen = new Set<string>()
  for (const p of providers) {
    if (seen.size >= MAX_PLANNED_PROVIDERS) break
    if (p.providerID === "" || seen.has(p.providerID)) continue
    seen.add(p.providerID)
    if (p.userValue) {
      plan.kept.push(p.providerID)
      continue
    }
    const ms = budgetMs(p.providerID)
    if (!Number.isFinite(ms) || ms <= 0 || ms >= HOST_DEFAULT_CHUNK_TIMEOUT_MS) continue
    plan.set.push({ providerID: p.providerID, ms: Math.round(ms) })
  }
  return plan
}
