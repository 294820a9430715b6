/**
 * The `config` hook that lets OpenCode itself retry a hung request, in every 1.x process that
 * runs sessions (why: core/host-stream-timeouts.ts): `chunkTimeout` and `headerTimeout` for every
 * listed provider and the model's, each only where the user's config sets none.
 * Measured on 1.18.33 (test/e2e/HOST-NOTES.md): an entry created for a built-in provider merges
 * with OpenCode's own (models, headers, key stay); one for a provider OpenCode does not know is
 * dropped silently.
 */
import { HOST_TIMEOUT_OPTIONS, planHostTimeouts, type HostTimeoutOption, type ProviderTimeoutFacts } from "../../core/host-stream-timeouts.ts"
import type { LogLevel } from "../../core/port.ts"
import { asObj, get, str } from "../shape.ts"
import { providerOf, readRunArgv } from "./run-argv.ts"

export type StreamTimeoutDeps = {
  argv: readonly unknown[] | undefined
  /** The session's `chunkTimeoutMs` on that provider (effective options). */
  budgetMs: (providerID: string) => number
  log: (level: LogLevel, message: string) => void
  /** Provider ids that are the plugin's own (the /auto-resume reply model): never touched. */
  ownProviders?: readonly string[]
}

/** Applies the plan to `config` (mutating it); returns the providers that were given a value. Never throws. */
export function applyProviderStreamTimeouts(config: unknown, deps: StreamTimeoutDeps): string[] {
  try {
    // Only a headless run names its model on the command line; serve and the TUI use config.model.
    const run = readRunArgv(deps.argv)
    const cfg = asObj(config)
    if (!cfg) return []
    const listed = asObj(cfg.provider)
    const own = new Set(deps.ownProviders ?? [])
    const ids = [...Object.keys(listed ?? {}), run.modelProvider, providerOf(str(cfg.model))]
    const facts: ProviderTimeoutFacts[] = []
    for (const id of ids) {
      if (id === undefined || own.has(id)) continue
      const entry = listed?.[id]
      // A listed entry of the wrong shape is the user's to fix; writing into it could hide that.
      if (entry !== undefined && !asObj(entry)) continue
      const options = get(entry, "options")
      if (options !== undefined && !asObj(options)) continue
      const userOptions = asObj(options)
      facts.push({ providerID: id, userSet: HOST_TIMEOUT_OPTIONS.filter((o) => userOptions?.[o] !== undefined) })
    }
    const plan = planHostTimeouts(facts, deps.budgetMs)
    if (plan.set.length > 0) {
      const providers = listed ?? {}
      for (const { providerID, option, ms } of plan.set) {
        const entry = asObj(providers[providerID]) ?? {}
        const options = asObj(entry.options) ?? {}
        options[option] = ms
        entry.options = options
        providers[providerID] = entry
      }
      cfg.provider = providers
      const kept = plan.kept.length > 0 ? `; kept as configured: ${byProvider(plan.kept)}` : ""
      deps.log("info", `provider timeouts set to chunkTimeoutMs so OpenCode retries a hung request itself: ${byProvider(plan.set)}${kept}`)
    } else if (plan.kept.length > 0) {
      deps.log("debug", `provider timeouts left as configured: ${byProvider(plan.kept)}`)
    }
    return [...new Set(plan.set.map((s) => s.providerID))]
  } catch (error) {
    try {
      deps.log("warn", `could not set provider timeouts: ${error instanceof Error ? error.message : String(error)}`)
    } catch {
      // Logging must not throw into the host either.
    }
    return []
  }
}

/** "fake chunkTimeout+headerTimeout=3000ms, anthropic headerTimeout=45000ms": a plan lists one provider's entries together, with one budget. */
function byProvider(entries: ReadonlyArray<{ providerID: string; option: HostTimeoutOption; ms?: number }>): string {
  const groups: Array<{ providerID: string; options: string[]; ms?: number }> = []
  for (const e of entries) {
    const last = groups.at(-1)
    if (last?.providerID === e.providerID) last.options.push(e.option)
    else groups.push({ providerID: e.providerID, options: [e.option], ms: e.ms })
  }
  return groups.map((g) => `${g.providerID} ${g.options.join("+")}${g.ms === undefined ? "" : `=${g.ms}ms`}`).join(", ")
}
