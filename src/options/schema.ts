/**
 * Everything derived from the option table (option-table.ts): the zod schemas for a config
 * and for an override section, the `Options` and `Overrides` types, the lookups the resolver
 * and the docs use, and `OPTION_DEFAULTS`. Deriving them all from one table is what keeps the
 * validator, the types, the defaults and the docs from drifting apart.
 */
import { z } from "zod"
import { PROFILE_SECTION_INFO, TUNABLE_SPECS } from "./option-table.ts"
import type { OptionInfo, Spec } from "./spec-builders.ts"

export type TunableName = keyof typeof TUNABLE_SPECS
/** Old names, folded into the options they stand for (test/unit/options/aliases.test.ts checks this list). */
export type AliasName = "maxRetries" | "maxRecoveryRetries"
export type OptionName = Exclude<TunableName, AliasName>

type TunableShape = { [K in TunableName]: (typeof TUNABLE_SPECS)[K]["field"] }

function mapSpecs<R>(pick: (spec: Spec<z.ZodType, z.ZodType>) => R): Record<TunableName, R> {
  const out = {} as Record<TunableName, R>
  for (const name of Object.keys(TUNABLE_SPECS) as TunableName[]) {
    out[name] = pick(TUNABLE_SPECS[name] as Spec<z.ZodType, z.ZodType>)
  }
  return out
}

export const tunablesSchema = z.object(mapSpecs((spec) => spec.field) as TunableShape)

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
      Object.entries(mapSpecs((spec) => (spec.info.scope === "process" ? undefined : spec)))
        .filter((entry): entry is [string, Spec<z.ZodType, z.ZodType>] => entry[1] !== undefined)
        .map(([name, spec]) => [name, spec.inner.optional().describe(spec.info.description)]),
    ),
  )
  .describe("Option overrides: any option except the plugin-wide ones and the profile sections.") as never

export type SectionName = keyof typeof PROFILE_SECTION_INFO

export const optionsSchema = tunablesSchema.extend({
  defaultFast: overridesSchema.optional().describe(PROFILE_SECTION_INFO.defaultFast.description),
  defaultSlow: overridesSchema.optional().describe(PROFILE_SECTION_INFO.defaultSlow.description),
  modelProfiles: z
    .record(z.string(), overridesSchema)
    .optional()
    .describe(PROFILE_SECTION_INFO.modelProfiles.description),
})

/** Effective options after resolution: every default filled in, aliases folded away. */
export type Options = Tunables & {
  defaultFast?: Overrides
  defaultSlow?: Overrides
  modelProfiles?: Record<string, Overrides>
}

// ---- lookups used by the resolver and the docs ----------------------------------------------

export type AnySpec = { inner: z.ZodType; default: unknown; info: OptionInfo }

export const OPTION_SPECS: Readonly<Record<TunableName, AnySpec>> = TUNABLE_SPECS

export const TUNABLE_NAMES = Object.freeze(Object.keys(TUNABLE_SPECS) as TunableName[])
export const SECTION_NAMES = Object.freeze(Object.keys(PROFILE_SECTION_INFO) as SectionName[])
/** Every key a config may use at the top level, aliases and sections included. */
export const ALL_OPTION_NAMES: readonly string[] = Object.freeze([...TUNABLE_NAMES, ...SECTION_NAMES])

export function isTunableName(key: string): key is TunableName {
  return Object.prototype.hasOwnProperty.call(TUNABLE_SPECS, key)
}

export function isSectionName(key: string): key is SectionName {
  return Object.prototype.hasOwnProperty.call(PROFILE_SECTION_INFO, key)
}

/** The names an alias stands for directly (empty for a canonical option). */
export function aliasTargets(name: TunableName): readonly TunableName[] {
  const target = OPTION_SPECS[name].info.aliasOf
  if (target === undefined) return []
  return (typeof target === "string" ? [target] : target) as readonly TunableName[]
}

/**
 * The canonical options an alias ends up setting, through any chain of old names, first named
 * first. The table holds no cycle (test/unit/options/aliases.test.ts).
 */
export function canonicalTargets(name: TunableName): OptionName[] {
  const found = aliasTargets(name).flatMap((target) => (aliasTargets(target).length > 0 ? canonicalTargets(target) : [target as OptionName]))
  return [...new Set(found)]
}

function deepFreeze<T>(value: T): T {
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
  (() => {
    const out: Record<string, unknown> = {}
    for (const name of TUNABLE_NAMES) {
      const spec = OPTION_SPECS[name]
      if (spec.info.aliasOf === undefined && spec.default !== undefined) out[name] = spec.default
    }
    return out as Options
  })(),
)

export { deepFreeze }
