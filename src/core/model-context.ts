/**
 * What a turn rule that reads the context window needs from the host (runtime/path.ts
 * PathTurnRule.readsContext): the model's limits and whether magic-context is loaded, each a
 * bounded call cached for LOOKUP_CACHE_MS, so the rule itself stays pure.
 */
import type { EngineContext } from "./context.ts"
import { modelKey } from "./fallback.ts"
import { withTimeout } from "./host-calls.ts"
import type { ModelRef } from "./port.ts"
import { hasMagicContext, type ModelLimit } from "./saturation.ts"

const LOOKUP_CACHE_MS = 5 * 60_000
const MAX_CACHED_MODELS = 32

/** What was looked up for a turn: the limit (undefined: the host gives none) and, for a parent, magic-context. */
export type ModelContext = { limit: ModelLimit | undefined; magicContext: boolean }

export class ModelContextReader {
  private readonly limits = new Map<string, { at: number; value: ModelLimit | undefined }>()
  /** Models whose limits the host did not give, already named in the log (once each). */
  private readonly unknownLimits = new Set<string>()
  private plugins: { at: number; magic: boolean } | undefined

  constructor(private readonly ctx: EngineContext) {}

  /** Throws when a look-up failed: a rule then makes no decision on a guess. */
  async read(model: ModelRef, parent: boolean, timeoutMs: number): Promise<ModelContext> {
    const limit = await this.limitFor(model, timeoutMs)
    // A subagent never gets magic-context's wrap-up: no need to ask.
    const magicContext = parent && (await this.magicContextLoaded(timeoutMs))
    if (limit === undefined) this.noteUnknownLimit(model)
    return { limit, magicContext }
  }

  private async limitFor(model: ModelRef, timeoutMs: number): Promise<ModelLimit | undefined> {
    const key = modelKey(model)
    const cached = this.limits.get(key)
    if (cached && this.ctx.time.now() - cached.at < LOOKUP_CACHE_MS) return cached.value
    const value = await withTimeout(this.ctx.time, timeoutMs, "model limits", () => this.ctx.port.modelLimits(model))
    if (this.limits.size >= MAX_CACHED_MODELS) this.limits.clear()
    this.limits.set(key, { at: this.ctx.time.now(), value })
    return value
  }

  private async magicContextLoaded(timeoutMs: number): Promise<boolean> {
    if (this.plugins && this.ctx.time.now() - this.plugins.at < LOOKUP_CACHE_MS) return this.plugins.magic
    const list = await withTimeout(this.ctx.time, timeoutMs, "plugin list", () => this.ctx.port.pluginNames())
    this.plugins = { at: this.ctx.time.now(), magic: hasMagicContext(list) }
    return this.plugins.magic
  }

  private noteUnknownLimit(model: ModelRef): void {
    const key = modelKey(model)
    if (this.unknownLimits.has(key) || this.unknownLimits.size >= MAX_CACHED_MODELS) return
    this.unknownLimits.add(key)
    this.ctx.logger.log("info", `context saturation: the host gives no context limit for model ${key}; saturation routing stays off for it`)
  }
}
