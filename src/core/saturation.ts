/**
 * Context saturation: how full a session's context window is (the usage the adapters report,
 * the limits the host gives), and whether magic-context is loaded. Whether and how to reclaim
 * the window is the context path's (paths/context/saturation.ts).
 *
 * An unknown output limit reserves the full 20 000 (the conservative choice); an unknown
 * context limit means "limits unknown", never a guess. Used tokens count everything that
 * occupies the window next turn (cache reads and writes too).
 */

/** Most output room OpenCode sets aside when it works out whether a prompt overflows. */
export const OUTPUT_RESERVE_CAP = 20_000

/** `input`: a cap on the prompt itself that some models have (2.x `limit.input`), tighter than the window. */
export type ModelLimit = { context: number; output?: number; input?: number }

export function usableContext(limit: ModelLimit | undefined): number | undefined {
  if (!limit || !Number.isFinite(limit.context) || limit.context <= 0) return undefined
  let usable = limit.context - Math.min(OUTPUT_RESERVE_CAP, n(limit.output) || OUTPUT_RESERVE_CAP)
  if (n(limit.input) > 0) usable = Math.min(usable, n(limit.input))
  return usable > 0 ? usable : undefined
}

export type TokenUsage = {
  total?: number
  input?: number
  output?: number
  reasoning?: number
  cacheRead?: number
  cacheWrite?: number
}

/** A positive finite count, or 0 for anything else. */
function n(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0
}

export function usedTokens(usage: TokenUsage): number {
  if (n(usage.total) > 0) return n(usage.total)
  return n(usage.input) + n(usage.output) + n(usage.reasoning) + n(usage.cacheRead) + n(usage.cacheWrite)
}

export function saturationRatio(used: number, limit: ModelLimit | undefined): number | undefined {
  const usable = usableContext(limit)
  if (usable === undefined || !Number.isFinite(used) || used < 0) return undefined
  return used / usable
}

/** v1 `config.plugin` entries are strings or `[spec, options]` tuples; a path segment must match exactly. */
export function hasMagicContext(plugins: unknown): boolean {
  if (!Array.isArray(plugins)) return false
  for (const entry of plugins) {
    const spec = Array.isArray(entry) ? entry[0] : entry
    if (typeof spec === "string" && isMagicContextSpec(spec)) return true
    if (spec && typeof spec === "object" && !Array.isArray(spec)) {
      // v2 PluginInfo-like objects: { id?, source: { name? | path? | package? ... } }
      for (const v of [(spec as Record<string, unknown>).id, ...Object.values(((spec as Record<string, unknown>).source ?? {}) as object)]) {
        if (typeof v === "string" && isMagicContextSpec(v)) return true
      }
    }
  }
  return false
}

const MAGIC_SEGMENT = /^(opencode-)?magic-context(-plugin)?$/

export function isMagicContextSpec(spec: string): boolean {
  let s = spec.trim().toLowerCase().slice(0, 1_000)
  s = s.replace(/^(npm:|file:\/\/|file:|git\+[a-z]+:\/\/|github:)/, "")
  for (let segment of s.split(/[\\/]/)) {
    // Drop a version (`name@1.2.3`, but keep a scope's leading `@`) and an extension.
    const at = segment.indexOf("@", 1)
    if (at > 0) segment = segment.slice(0, at)
    segment = segment.replace(/#.*$/, "").replace(/^@/, "").replace(/\.((m|c)?(j|t)sx?|git)$/, "")
    if (MAGIC_SEGMENT.test(segment)) return true
  }
  return false
}
