/**
 * Reading the config object key by key: the top level, the defaultFast/defaultSlow sections
 * and the per-provider modelProfiles. Each key is checked on its own, so one bad key never
 * disturbs the others, and each problem becomes exactly one warning that says which value is
 * used instead. Unknown keys get a "did you mean"; old names are folded into their new ones.
 */
import { checkValue, type Outcome } from "./check-value.ts"
import { isPlainObject, preview, readKeys, readProperty } from "./safe-read.ts"
import {
  ALL_OPTION_NAMES,
  OPTION_SPECS,
  TUNABLE_NAMES,
  isSectionName,
  isTunableName,
  type OptionName,
  type Overrides,
  type SectionName,
  type TunableName,
} from "./schema.ts"
import { nearestName } from "./suggest.ts"

export type BagContext = {
  /** "" at the top level, "defaultSlow." or "modelProfiles.ollama." inside a section. */
  prefix: string
  inSection: boolean
  warnings: string[]
}

/** Names a section may override: everything except plugin-wide options. */
const OVERRIDABLE_NAMES: readonly string[] = TUNABLE_NAMES.filter((name) => OPTION_SPECS[name].info.scope !== "process")

function renderDefault(name: TunableName): string {
  const spec = OPTION_SPECS[name]
  return spec.info.defaultText ?? preview(spec.default)
}

function fallbackText(ctx: BagContext, name: TunableName): string {
  return ctx.inSection ? "this override is skipped" : `using the default ${renderDefault(name)}`
}

/**
 * Reads every option key of `source`. Accepted values land in the returned map under their
 * canonical name; section keys are handed to `onSection` (top level only).
 */
export function readBag(
  source: object,
  ctx: BagContext,
  onSection?: (name: SectionName, value: unknown) => void,
): Map<OptionName, unknown> {
  const accepted = new Map<OptionName, unknown>()
  const listed = readKeys(source)
  if (!listed.ok) {
    const what = ctx.prefix === "" ? "plugin options" : `option "${ctx.prefix.slice(0, -1)}"`
    ctx.warnings.push(`${what} could not be listed (${listed.error}); ${ctx.inSection ? "no overrides apply" : "every option keeps its default"}`)
    return accepted
  }
  const keys = listed.keys
  // Canonical names whose key is present with a value (valid or not): an alias for them is ignored.
  const present = new Set<string>()
  const aliases: Array<{ key: TunableName; target: OptionName }> = []

  for (const key of keys) {
    const path = `${ctx.prefix}${key}`
    if (isSectionName(key)) {
      if (onSection === undefined) {
        ctx.warnings.push(`option "${path}" ignored: profile sections cannot be nested inside one another`)
        continue
      }
      const read = readProperty(source, key)
      if (!read.ok) ctx.warnings.push(`option "${path}" could not be read (${read.error}); no overrides apply`)
      else onSection(key, read.value)
      continue
    }
    if (!isTunableName(key)) {
      const candidates = ctx.inSection ? OVERRIDABLE_NAMES : ALL_OPTION_NAMES
      const suggestion = nearestName(key, candidates)
      ctx.warnings.push(
        `unknown option "${path}" ignored` + (suggestion === undefined ? "" : `; did you mean "${ctx.prefix}${suggestion}"?`),
      )
      continue
    }
    const spec = OPTION_SPECS[key]
    if (ctx.inSection && spec.info.scope === "process") {
      ctx.warnings.push(
        `option "${path}" ignored: ${key} applies to the whole plugin, not per profile or provider; set it at the top level`,
      )
      continue
    }
    const target = spec.info.aliasOf as OptionName | undefined
    if (target !== undefined) {
      aliases.push({ key, target })
      continue
    }
    const name = key as OptionName
    const read = readProperty(source, key)
    if (!read.ok) {
      present.add(name)
      ctx.warnings.push(`option "${path}" could not be read (${read.error}); ${fallbackText(ctx, name)}`)
      continue
    }
    const outcome = checkValue(spec, read.value)
    if (outcome.kind !== "absent") present.add(name)
    record(outcome, path, name, ctx, accepted)
  }

  for (const { key, target } of aliases) {
    const path = `${ctx.prefix}${key}`
    const read = readProperty(source, key)
    if (read.ok && (read.value === undefined || read.value === null)) continue
    if (present.has(target)) {
      ctx.warnings.push(`option "${path}" ignored: it is the old name of ${target}, which is also set`)
      continue
    }
    if (!read.ok) {
      ctx.warnings.push(`option "${path}" could not be read (${read.error}); ${fallbackText(ctx, target)} for ${target}`)
      continue
    }
    // The alias is checked with its own spec (the same value rules as the target).
    const outcome = checkValue(OPTION_SPECS[key], read.value)
    if (outcome.kind === "reject") {
      ctx.warnings.push(`option "${path}" ignored: ${outcome.reason}; ${fallbackText(ctx, target)} for ${target}`)
    } else if (outcome.kind === "use") {
      accepted.set(target, outcome.value)
    }
  }
  return accepted
}

function record(outcome: Outcome, path: string, name: OptionName, ctx: BagContext, accepted: Map<OptionName, unknown>): void {
  if (outcome.kind === "absent") return
  if (outcome.kind === "reject") {
    ctx.warnings.push(`option "${path}" ignored: ${outcome.reason}; ${fallbackText(ctx, name)}`)
    return
  }
  if (outcome.dropped !== undefined) {
    const kept = (outcome.value as unknown[]).length
    ctx.warnings.push(`option "${path}": skipped ${outcome.dropped.join(", ")}; the other ${kept} still apply`)
  }
  accepted.set(name, outcome.value)
}

export function readOverrides(value: unknown, path: string, warnings: string[]): Overrides | undefined {
  if (value === undefined || value === null) return undefined
  if (!isPlainObject(value)) {
    warnings.push(`option "${path}" ignored: expected an object of option overrides, got ${preview(value)}; no overrides apply`)
    return undefined
  }
  const accepted = readBag(value, { prefix: `${path}.`, inSection: true, warnings })
  return accepted.size > 0 ? (Object.fromEntries(accepted) as Overrides) : undefined
}

export function readModelProfiles(value: unknown, warnings: string[]): Record<string, Overrides> | undefined {
  if (value === undefined || value === null) return undefined
  if (!isPlainObject(value)) {
    warnings.push(`option "modelProfiles" ignored: expected an object keyed by provider name, got ${preview(value)}; no overrides apply`)
    return undefined
  }
  const listed = readKeys(value)
  if (!listed.ok) {
    warnings.push(`option "modelProfiles" could not be listed (${listed.error}); no overrides apply`)
    return undefined
  }
  const seen = new Map<string, string>()
  const entries: Array<[string, Overrides]> = []
  for (const provider of listed.keys) {
    const path = `modelProfiles.${provider}`
    const normalised = provider.trim().toLowerCase()
    if (normalised === "") {
      warnings.push(`option "${path}" ignored: the provider name is blank`)
      continue
    }
    const first = seen.get(normalised)
    if (first !== undefined) {
      warnings.push(`option "${path}" ignored: provider names match in any case, and "${first}" is already configured`)
      continue
    }
    seen.set(normalised, provider)
    const read = readProperty(value, provider)
    if (!read.ok) {
      warnings.push(`option "${path}" could not be read (${read.error}); no overrides apply`)
      continue
    }
    const overrides = readOverrides(read.value, path, warnings)
    if (overrides !== undefined) entries.push([provider, overrides])
  }
  // fromEntries defines own properties, so a provider called "__proto__" stays a plain key.
  return entries.length > 0 ? Object.fromEntries(entries) : undefined
}
