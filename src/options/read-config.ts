/**
 * Reading the config object key by key, so one bad key never disturbs the others and each
 * problem becomes exactly one warning that says which value is used instead.
 */
import { checkValue, type Outcome } from "./check-value.ts"
import { isPlainObject, preview, readKeys, readProperty } from "./safe-read.ts"
import { ALL_OPTION_NAMES, OPTION_SPECS, OVERRIDABLE_NAMES, TUNABLE_NAMES, aliasTargets, canonicalTargets, defaultTextOf, isSectionName, isTunableName } from "./schema.ts"
import type { OptionName, Overrides, SectionName, TunableName } from "./schema.ts"
import { nearestName } from "./suggest.ts"

export type BagContext = {
  /** "" at the top level, "defaultSlow." or "modelProfiles.ollama." inside a section. */
  prefix: string
  inSection: boolean
  warnings: string[]
}

const renderDefault = (name: TunableName) => defaultTextOf(name) ?? preview(OPTION_SPECS[name].default)

function fallbackText(ctx: BagContext, name: TunableName): string {
  return ctx.inSection ? "this override is skipped" : `using the default ${renderDefault(name)}`
}

function listText(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`
}

/** What an unusable alias leaves the options it would have set at. */
function aliasFallbackText(ctx: BagContext, targets: readonly OptionName[]): string {
  if (ctx.inSection) return "this override is skipped"
  const defaults = [...new Set(targets.map(renderDefault))]
  return `using ${defaults.length === 1 ? `the default ${defaults[0]}` : "their defaults"} for ${listText(targets)}`
}

/** Why an alias given next to what it stands for changes nothing. */
function supersededText(key: TunableName, present: ReadonlySet<string>): string {
  const direct = aliasTargets(key)
  if (direct.every((name) => present.has(name))) {
    return `it is the old name of ${listText(direct)}, ${direct.length === 1 ? "which is also set" : "which are all set"}`
  }
  return `every option it stands for is already set (${listText(canonicalTargets(key))})`
}

export function readBag(source: object, ctx: BagContext, onSection?: (name: SectionName, value: unknown) => void): Map<OptionName, unknown> {
  const accepted = new Map<OptionName, unknown>()
  const listed = readKeys(source)
  if (!listed.ok) {
    const what = ctx.prefix === "" ? "plugin options" : `option "${ctx.prefix.slice(0, -1)}"`
    ctx.warnings.push(`${what} could not be listed (${listed.error}); ${ctx.inSection ? "no overrides apply" : "every option keeps its default"}`)
    return accepted
  }
  const keys = listed.value
  // Names whose key is present with a value (valid or not): an alias for them is ignored.
  const present = new Set<string>()
  const aliases: TunableName[] = []

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
      const suggestion = nearestName(key, ctx.inSection ? OVERRIDABLE_NAMES : ALL_OPTION_NAMES)
      ctx.warnings.push(`unknown option "${path}" ignored` + (suggestion === undefined ? "" : `; did you mean "${ctx.prefix}${suggestion}"?`))
      continue
    }
    const spec = OPTION_SPECS[key]
    if (ctx.inSection && spec.info.scope === "process") {
      ctx.warnings.push(`option "${path}" ignored: ${key} applies to the whole plugin, not per profile or provider; set it at the top level`)
      continue
    }
    if (spec.info.aliasOf !== undefined) {
      aliases.push(key)
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

  // An option that once meant two things also sets the one split off, unless that is set itself.
  for (const [name, value] of [...accepted]) {
    for (const target of (OPTION_SPECS[name].info.alsoSets ?? []) as OptionName[]) {
      if (present.has(target)) continue
      const outcome = checkValue(OPTION_SPECS[target], value)
      if (outcome.kind === "use") accepted.set(target, outcome.value)
    }
  }

  // In table order, where an alias of an alias follows it: the older name only fills what the
  // nearer one left open.
  aliases.sort((a, b) => TUNABLE_NAMES.indexOf(a) - TUNABLE_NAMES.indexOf(b))
  for (const key of aliases) {
    const path = `${ctx.prefix}${key}`
    const read = readProperty(source, key)
    if (read.ok && (read.value === undefined || read.value === null)) continue
    const open = canonicalTargets(key).filter((target) => !present.has(target))
    if (open.length === 0) {
      ctx.warnings.push(`option "${path}" ignored: ${supersededText(key, present)}`)
      continue
    }
    // Given, usable or not, it speaks for all it stands for: an older name for them is ignored.
    present.add(key)
    for (const target of open) present.add(target)
    if (!read.ok) {
      ctx.warnings.push(`option "${path}" could not be read (${read.error}); ${aliasFallbackText(ctx, open)}`)
      continue
    }
    const outcome = checkValue(OPTION_SPECS[key], read.value)
    if (outcome.kind === "reject") {
      ctx.warnings.push(`option "${path}" ignored: ${outcome.reason}; ${aliasFallbackText(ctx, open)}`)
    } else if (outcome.kind === "use") {
      for (const target of open) accepted.set(target, outcome.value)
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
  for (const provider of listed.value) {
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
