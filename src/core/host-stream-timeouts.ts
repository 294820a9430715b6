/**
 * Which of OpenCode's provider stream timeouts the plugin shortens, for which providers, and to
 * what.
 *
 * OpenCode has a cure of its own for a hung request: one whose response headers do not come
 * within the provider option `headerTimeout`, or whose stream then stays silent for
 * `chunkTimeout`, is cut; OpenCode reports `session.status retry` and asks again, inside the
 * same turn, with no message in the session. Both default to 300 s, later than the plugin's
 * stall budget, so the plugin hands them its own budget and lets the host recover first, in
 * every 1.x process that runs sessions:
 *  - a headless run (`opencode run`) ends at the session's first idle and fails when the
 *    session reported any error; the plugin's abort produces exactly that, so there the host's
 *    retry is the only cure that lets the run finish;
 *  - `opencode serve` and the terminal UI: the host's retry costs no abort and no visible
 *    message. The plugin's abort-first path is left for what the host's timers cannot see:
 *    a stream kept warm by keep-alive comments (each resets `chunkTimeout`), a stale busy status.
 *
 * The value is the session's `chunkTimeoutMs` for that provider (profile and modelProfiles
 * included), without `gracePeriodMs`, for both options: either hang is plain silence to the
 * plugin, which acts once it has lasted chunkTimeoutMs + gracePeriodMs. The host's retry comes
 * a grace period earlier and its retry status counts as activity; the plugin then has nothing
 * to do. With the grace added both would fire together and race.
 *
 * Pure: the caller reads the config and applies the plan.
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

/**
 * One decision per provider id (first listing wins) and option. An option is given the budget
 * only where the user set nothing for it and the budget is shorter than the host's default: a
 * longer one would make the host slower to recover than it already is. The user's value for one
 * option does not stop the other from being planned.
 */
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
