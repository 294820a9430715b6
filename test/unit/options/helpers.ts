import type { ResolvedOptions } from "../../../src/options/index.ts"

/** Warnings that name `key` as an option (quoted), e.g. `"chunkTimeoutMs"` or `"defaultSlow.gracePeriodMs"`. */
export function warningsFor(resolved: ResolvedOptions, key: string): string[] {
  return resolved.warnings.filter((line) => line.includes(`"${key}"`))
}

/** The option bag as a plain record, for table-driven lookups by name. */
export function optionValue(resolved: ResolvedOptions, key: string): unknown {
  return (resolved.options as Record<string, unknown>)[key]
}

export const NO_ENV: Record<string, string | undefined> = {}
