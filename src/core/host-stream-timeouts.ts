/**
 * Which of OpenCode's provider stream timeouts (`headerTimeout`, `chunkTimeout`, 300 s by
 * default) the plugin shortens to its own stall budget, so the host's in-turn retry (no abort,
 * no visible message) recovers first. In a headless `opencode run` it is the only cure: the
 * plugin's abort would make the run fail.
 *
 * The value is `chunkTimeoutMs` without `gracePeriodMs`: the host's retry then comes a grace
 * period before the plugin would act; with the grace added both would fire together and race.
 */

/** OpenCode 1.18's value for each option when a provider sets none. */
export const HOST_TIMEOUT_DEFAULTS_MS = Object.freeze({ chunkTimeout: 300_000, headerTimeout: 300_000 })

export type HostTimeoutOption = keyof typeof HOST_TIMEOUT_DEFAULTS_MS

/** The options planned, in the order they are reported. */
export const HOST_TIMEOUT_OPTIONS: readonly HostTimeoutOption[] = Object.freeze(["chunkTimeout", "headerTimeout"])

/** A run never names more providers than this; anything past it is left alone. */
export const MAX_PLANNED_PROVIDERS = 64

export type ProviderTimeoutFacts = {
  providerID: string
  /** The options the user's config sets for this provider (any value, `false` included). */
  userSet: readonly HostTimeoutOption[]
}

export type HostTimeoutPlan = {
  /** Options to write, provider by provider in the order they were listed. */
  set: Array<{ providerID: string; option: HostTimeoutOption; ms: number }>
  /** Options that stay as the user wrote them. */
  kept: Array<{ providerID: string; option: HostTimeoutOption }>
}

/** Only where the user set nothing and the budget is shorter than the host's default: a longer one would slow the host's own recovery. */
export function planHostTimeouts(providers: readonly ProviderTimeoutFacts[], budgetMs: (providerID: string) => number): HostTimeoutPlan {
  const plan: HostTimeoutPlan = { set: [], kept: [] }
  const seen = new Set<string>()
  for (const p of providers) {
    if (seen.size >= MAX_PLANNED_PROVIDERS) break
    if (p.providerID === "" || seen.has(p.providerID)) continue
    seen.add(p.providerID)
    let ms: number | undefined
    for (const option of HOST_TIMEOUT_OPTIONS) {
      if (p.userSet.includes(option)) {
        plan.kept.push({ providerID: p.providerID, option })
        continue
      }
      ms ??= budgetMs(p.providerID)
      if (!Number.isFinite(ms) || ms <= 0 || ms >= HOST_TIMEOUT_DEFAULTS_MS[option]) continue
      plan.set.push({ providerID: p.providerID, option, ms: Math.round(ms) })
    }
  }
  return plan
}
