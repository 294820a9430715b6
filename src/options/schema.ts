/**
 * Everything derived from the option table (option-table.ts): the zod schemas for a config
 * and for an override section, the `Options` and `Overrides` types, the lookups the resolver
 * and the docs use, and `OPTION_DEFAULTS`. Deriving them all from one table is what keeps the
 * validator, the types, the defaults and the docs from drifting apart.
 */
import { z } from "zod"
import { PROFILE_SECTION_INFO, TUNABLE_SPECS } from "./option-table.ts"
import { PROFILE_DEFAULTS } from "./profiles.ts"
import type { Spec } from "./spec-builders.ts"

export type TunableName = keyof typeof TUNABLE_SPECS
/** Old names, folded into the options they stand for (test/unit/options/aliases.test.ts checks this list). */
export type AliasName = "maxRetries" | "maxRecoveryRetries"
export type OptionName = Exclude<TunableName, AliasName>
export type SectionName = keyof typeof PROFILE_SECTION_INFO

export const OPTION_SPECS: Readonly<Record<TunableName, Spec>> = TUNABLE_SPECS
export const TUNABLE_NAMES = Object.freeze(Object.keys(TUNABLE_SPECS) as TunableName[])
export const SECTION_NAMES = Object.freeze(Object.keys(PROFILE_SECTION_INFO) as SectionName[])
/** Every key a config may use at the top level, aliases and sections included. */
export const ALL_OPTION_NAMES: readonly string[] = Object.freeze([...TUNABLE_NAMES, ...SECTION_NAMES])

const specsWhere = (keep: (spec: Spec) => boolean) => TUNABLE_NAMES.filter((name) => keep(OPTION_SPECS[name]))

export const tunablesSchema = z.object(
  Object.fromEntries(TUNABLE_NAMES.map((name) => [name, OPTION_SPECS[name].field])) as { [K in TunableName]: (typeof TUNABLE_SPECS)[K]["field"] },
)

type Tunables = Omit<z.output<typeof tunablesSchema>, AliasName>

/**
 * A partial set of options applied on top of the top-level ones for one profile or
 * provider. Only valid, per-session keys survive resolution.
 */
export type Overrides = Partial<Tunables>

/**
 * Schema of one override object: the same value types without defaults, so the JSON
 * schema does not suggest that an unset override has a value.
 */
export const overridesSchema: z.ZodType<Overrides> = z
  .object(
    Object.fromEntries(
      specsWhere((spec) => spec.info.scope !== "process").map((name) => [name, OPTION_SPECS[name].inner.optional().describe(OPTION_SPECS[name].info.description)]),
    ),
  )
  .describe("Option overrides: any option except the plugin-wide ones and the profile sections.") as never

export const optionsSchema = tunablesSchema.extend({
  defaultFast: overridesSchema.optional().describe(PROFILE_SECTION_INFO.defaultFast.description),
  defaultSlow: overridesSchema.optional().describe(PROFILE_SECTION_INFO.defaultSlow.description),
  modelProfiles: z.record(z.string(), overridesSchema).optional().describe(PROFILE_SECTION_INFO.modelProfiles.description),
})

/** Effective options after resolution: every default filled in, aliases folded away. */
export type Options = Tunables & {
  defaultFast?: Overrides
  defaultSlow?: Overrides
  modelProfiles?: Record<string, Overrides>
}

export const isTunableName = (key: string): key is TunableName => Object.prototype.hasOwnProperty.call(TUNABLE_SPECS, key)
export const isSectionName = (key: string): key is SectionName => Object.prototype.hasOwnProperty.call(PROFILE_SECTION_INFO, key)
/** Names a section may override: everything except plugin-wide options. */
export const OVERRIDABLE_NAMES: readonly string[] = specsWhere((spec) => spec.info.scope !== "process")

/** The names an alias stands for directly (empty for a canonical option). */
export function aliasTargets(name: TunableName): readonly TunableName[] {
  const target = OPTION_SPECS[name].info.aliasOf
  return (target === undefined ? [] : typeof target === "string" ? [target] : target) as readonly TunableName[]
}

/**
 * The canonical options an alias ends up setting, through any chain of old names, first named
 * first. The table holds no cycle (test/unit/options/aliases.test.ts).
 */
export function canonicalTargets(name: TunableName): OptionName[] {
  const found = aliasTargets(name).flatMap((target) => (aliasTargets(target).length > 0 ? canonicalTargets(target) : [target as OptionName]))
  return [...new Set(found)]
}

/** The default as a table or a warning should show it, when the raw value would mislead (per profile, unset). */
export function defaultTextOf(name: TunableName): string | undefined {
  const { fast, slow } = PROFILE_DEFAULTS as Record<"fast" | "slow", Record<string, unknown>>
  return OPTION_SPECS[name].info.defaultText ?? (name in fast ? `${fast[name]} (fast) / ${slow[name]} (slow)` : undefined)
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

/**
 * Every option at its default. Frozen, arrays included: the same arrays are shared by every
 * resolved options object, so a caller mutating one would silently change everyone's config.
 */
export const OPTION_DEFAULTS: Readonly<Options> = deepFreeze(
  Object.fromEntries(
    specsWhere((spec) => spec.info.aliasOf === undefined && spec.default !== undefined).map((name) => [name, OPTION_SPECS[name].default]),
  ) as Options,
)
