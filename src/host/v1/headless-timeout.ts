/**
 * The `config` hook that lets OpenCode itself retry a hung stream in a headless `opencode run`
 * (why: core/host-chunk-timeout.ts). It writes `provider[id].options.chunkTimeout` for every
 * provider the config lists and for the provider of the run's model (`--model`, else
 * `config.model`), never where the user's config already sets `chunkTimeout`. Any other
 * process (`opencode serve`, the TUI) is left untouched: there the plugin's own recovery works.
 *
 * Measured on 1.18.33: an entry created here for a built-in provider (`anthropic`, `opencode`)
 * merges with OpenCode's own entry (models, headers and the key from the environment stay);
 * an entry for a provider id OpenCode does not know is dropped silently, as a config-file
 * entry without models would be. See test/e2e/HOST-NOTES.md.
 */
import { planChunkTimeouts, type ProviderTimeoutFacts } from "../../core/host-chunk-timeout.ts"
import type { LogLevel } from "../port.ts"
import { asObj, get, str } from "../shape.ts"
import { providerOf, readRunArgv } from "./run-argv.ts"

export type HeadlessTimeoutDeps = {
  argv: readonly unknown[] | undefined
  /** The session's `chunkTimeoutMs` on that provider (effective options). */
  budgetMs: (providerID: string) => number
  log: (level: LogLevel, message: string) => void
  /** Provider ids that are the plugin's own (the /auto-resume reply model): never touched. */
  ownProviders?: readonly string[]
}

/** Applies the plan to `config` (mutating it); returns the providers that were given a value. Never throws. */
export function applyHeadlessChunkTimeouts(config: unknown, deps: HeadlessTimeoutDeps): string[] {
  try {
    const run = readRunArgv(deps.argv)
    if (!run.headless) return []
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
      facts.push({ providerID: id, userValue: asObj(options)?.chunkTimeout !== undefined })
    }
    const plan = planChunkTimeouts(facts, deps.budgetMs)
    if (plan.set.length > 0) {
      const providers = listed ?? {}
      for (const { providerID, ms } of plan.set) {
        const entry = asObj(providers[providerID]) ?? {}
        const options = asObj(entry.options) ?? {}
        options.chunkTimeout = ms
        entry.options = options
        providers[providerID] = entry
      }
      cfg.provider = providers
      const what = plan.set.map((s) => `${s.providerID}=${s.ms}ms`).join(", ")
      const kept = plan.kept.length > 0 ? `; kept the configured value for ${plan.kept.join(", ")}` : ""
      deps.log("info", `headless run: provider chunkTimeout set to chunkTimeoutMs (${what}) so OpenCode retries a hung stream itself${kept}`)
    } else if (plan.kept.length > 0) {
      deps.log("debug", `headless run: provider chunkTimeout left as configured for ${plan.kept.join(", ")}`)
    }
    return plan.set.map((s) => s.providerID)
  } catch (error) {
    try {
      deps.log("warn", `headless run: could not set provider chunkTimeout: ${error instanceof Error ? error.message : String(error)}`)
    } catch {
      // Logging must not throw into the host either.
    }
    return []
  }
}
