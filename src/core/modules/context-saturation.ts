/**
 * Context saturation: a session that keeps working until its context is full. At the end of a
 * turn above `contextSaturationThreshold`, a parent gets magic-context's `ctx-wrapup` command
 * when magic-context is loaded, else native compaction and one continue (handed to the context
 * window module, context-window.ts, which owns that episode); a subagent native compaction (only
 * when `subagentNativeCompactionEnabled`). Unknown limits or failed look-ups mean no intervention.
 */
import type { ModelRef } from "../port.ts"
import { modelKey } from "../fallback.ts"
import { withTimeout } from "../host-calls.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { JUDGE_PRIORITY } from "./finished-turn.ts"
import { decideSaturation, hasMagicContext, saturationRatio, type ModelLimit } from "../saturation.ts"
import type { CompactionHandoff } from "./context-window.ts"

const LOOKUP_CACHE_MS = 5 * 60_000
const MAX_CACHED_MODELS = 32

export function contextSaturationModule({ ctx }: ModuleEnv, handoff?: CompactionHandoff): EngineModule {
  const contextTokens = new Map<string, number>()
  const limits = new Map<string, { at: number; value: ModelLimit | undefined }>()
  /** Models whose limits the host did not give, already named in the log (once each). */
  const unknownLimits = new Set<string>()
  let plugins: { at: number; magic: boolean } | undefined

  function noteUnknownLimit(model: ModelRef): void {
    const key = modelKey(model)
    if (unknownLimits.has(key) || unknownLimits.size >= MAX_CACHED_MODELS) return
    unknownLimits.add(key)
    ctx.logger.log("info", `context saturation: the host gives no context limit for model ${key}; saturation routing stays off for it`)
  }

  async function limitFor(model: ModelRef, timeoutMs: number) {
    const key = modelKey(model)
    const cached = limits.get(key)
    if (cached && ctx.time.now() - cached.at < LOOKUP_CACHE_MS) return cached.value
    const value = await withTimeout(ctx.time, timeoutMs, "model limits", () => ctx.port.modelLimits(model))
    if (limits.size >= MAX_CACHED_MODELS) limits.clear()
    limits.set(key, { at: ctx.time.now(), value })
    return value
  }

  async function magicContextLoaded(timeoutMs: number): Promise<boolean> {
    if (plugins && ctx.time.now() - plugins.at < LOOKUP_CACHE_MS) return plugins.magic
    const list = await withTimeout(ctx.time, timeoutMs, "plugin list", () => ctx.port.pluginNames())
    plugins = { at: ctx.time.now(), magic: hasMagicContext(list) }
    return plugins.magic
  }

  return {
    name: "context-saturation",
    signals: ["usage", "compaction"],
    turnRules: [
      {
        name: "context-saturation",
        pass: "first",
        priority: JUDGE_PRIORITY + 5,
        async decide(facts) {
          const state = facts.state
          const used = contextTokens.get(state.id)
          const model = state.setup.model
          if (used === undefined || !model) return undefined
          const timeout = facts.options.sendTimeoutMs
          let limit: ModelLimit | undefined
          let magic = false
          try {
            limit = await limitFor(model, timeout)
            magic = state.parentID === undefined && (await magicContextLoaded(timeout))
          } catch {
            return undefined // a failed look-up means no intervention
          }
          if (limit === undefined) noteUnknownLimit(model)
          const ratio = saturationRatio(used, limit)
          const decision = decideSaturation({
            ratio,
            threshold: facts.options.contextSaturationThreshold,
            isSubagent: state.parentID !== undefined,
            magicContextLoaded: magic,
            subagentNativeCompactionEnabled: facts.options.subagentNativeCompactionEnabled,
            alreadyIntervenedThisBusyCycle: state.intervention.sentThisTurn.has("context-saturation"),
            cancelled: state.cancelledByUser,
            completed: state.completed,
            limitsKnown: limit !== undefined,
          })
          // A parent's compaction is followed by one continue: the context window module runs both.
          if (decision.kind !== "compact" || state.parentID !== undefined || !handoff) return decision
          return handoff.saturated(state, decision.reason) ? { kind: "stand-down", reason: decision.reason } : undefined
        },
      },
    ],
    onSignal(state, signal) {
      // The window now holds the summary: the figure measured before it (or of the summary's own request) is gone.
      if (signal.type === "compaction" && signal.phase === "ended") contextTokens.delete(state.id)
      if (signal.type === "usage" && signal.contextTokens !== undefined && Number.isFinite(signal.contextTokens)) {
        contextTokens.set(state.id, signal.contextTokens)
      }
    },
    forget(state) {
      contextTokens.delete(state.id)
    },
  }
}
