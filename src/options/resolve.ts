/**
 * Turns whatever the host handed the plugin as "options" into a complete, checked options
 * object plus human-readable warnings.
 *
 * Guarantees (each one is tested):
 * - never throws, whatever `raw` is: odd values, throwing getters and hostile proxies all
 *   degrade to defaults with a warning;
 * - each rejected key is named in exactly one warning that says what was wrong and which
 *   value is used instead, and one bad key never disturbs the others;
 * - unknown keys are reported once, with a "did you mean" when a known name is close;
 * - raw text from the environment never reaches an option without being parsed and checked.
 *
 * Absence: a key whose value is `undefined` or `null` counts as not given (JSON has no other
 * way to write "leave it at the default"), so it is neither warned about nor explicit.
 */
import { ENV_OVERRIDES } from "./env.ts"
import {
  ALL_OPTION_NAMES,
  OPTION_DEFAULTS,
  OPTION_SPECS,
  SECTION_NAMES,
  TUNABLE_NAMES,
  deepFreeze,
  isSectionName,
  isTunableName,
  type AnySpec,
  type OptionName,
  type Options,
  type Overrides,
  type SectionName,
  type TunableName,
} from "./schema.ts"
import { nearestName } from "./suggest.ts"

export type ResolvedOptions = {
  /** Top-level options: defaults, then environment, then the config. Frozen. */
  options: Options
  /** One line per problem found, ready to log at startup. */
  warnings: string[]
  /**
   * Top-level keys the config really set with a usable value (aliases reported under their
   * canonical name). Profile defaults do not override these.
   */
  explicit: ReadonlySet<string>
  /** Every option whose effective top-level value differs from its default, for a startup log line. */
  differences: Record<string, unknown>
}

type Outcome =
  /** Use `value`; `dropped` lists list entries that were skipped on the way. */
  | { kind: "use"; value: unknown; dropped?: string[] }
  /** Unusable: fall back, and say why. */
  | { kind: "reject"; reason: string }
  /** Treated as not given, silently (undefined, null, or an empty pattern list). */
  | { kind: "absent" }

// ---- small, never-throwing helpers ----------------------------------------------------------

const PREVIEW_LIMIT = 80

/** A short rendering of any value for a warning; never throws. */
function preview(value: unknown): string {
  try {
    switch (typeof value) {
      case "number":
      case "bigint":
      case "boolean":
      case "undefined":
        return String(value)
      case "symbol":
        return "a symbol"
      case "function":
        return "a function"
    }
    const json = JSON.stringify(value)
    if (json === undefined) return typeof value
    return json.length > PREVIEW_LIMIT ? `${json.slice(0, PREVIEW_LIMIT - 1)}…` : json
  } catch {
    return Array.isArray(value) ? "a list that cannot be shown" : "a value that cannot be shown"
  }
}

function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return error.message
    return String(error)
  } catch {
    return "unknown error"
  }
}

function isPlainObject(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

type Read = { ok: true; value: unknown } | { ok: false; error: string }

function readProperty(source: object, key: string): Read {
  try {
    return { ok: true, value: (source as Record<string, unknown>)[key] }
  } catch (error) {
    return { ok: false, error: errorText(error) }
  }
}

function readKeys(source: object): { ok: true; keys: string[] } | { ok: false; error: string } {
  try {
    return { ok: true, keys: Object.keys(source) }
  } catch (error) {
    return { ok: false, error: errorText(error) }
  }
}

function renderDefault(name: TunableName): string {
  const spec = OPTION_SPECS[name]
  return spec.info.defaultText ?? preview(spec.default)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const aKeys = Object.keys(a)
  const bKeys = Object.keys(b)
  if (aKeys.length !== bKeys.length) return false
  return aKeys.every((key) =>
    deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  )
}

// ---- checking one value --------------------------------------------------------------------

function checkList(spec: AnySpec, value: unknown): Outcome {
  if (!Array.isArray(value)) return { kind: "reject", reason: `expected a list of strings, got ${preview(value)}` }
  const kept: string[] = []
  const dropped: string[] = []
  for (const entry of value) {
    if (typeof entry !== "string") {
      dropped.push(`${preview(entry)} (not a string)`)
      continue
    }
    // A blank pattern matches every text (and a blank name nothing useful): never intended.
    if (entry.trim() === "") {
      dropped.push(`${preview(entry)} (blank)`)
      continue
    }
    if (spec.info.list === "regex") {
      try {
        new RegExp(entry)
      } catch (error) {
        dropped.push(`${preview(entry)} (${errorText(error)})`)
        continue
      }
    }
    kept.push(entry)
  }
  if (kept.length > 0) return dropped.length > 0 ? { kind: "use", value: kept, dropped } : { kind: "use", value: kept }
  if (dropped.length > 0) return { kind: "reject", reason: `no usable entries (${dropped.join(", ")})` }
  // An empty list: pattern lists document "empty keeps the built-in set"; for name lists an
  // empty list is a real choice (e.g. interrupt any tool).
  return spec.info.list === "regex" ? { kind: "absent" } : { kind: "use", value: [] }
}

function checkValue(spec: AnySpec, value: unknown): Outcome {
  if (value === undefined || value === null) return { kind: "absent" }
  try {
    if (spec.info.list !== undefined) return checkList(spec, value)
    const result = spec.inner.safeParse(value)
    if (result.success) return { kind: "use", value: result.data }
    const issue = result.error.issues[0]
    const where = issue && issue.path.length > 0 ? `entry ${issue.path.join(".")}: ` : ""
    return { kind: "reject", reason: `${where}${issue?.message ?? "invalid value"}, got ${preview(value)}` }
  } catch (error) {
    // A proxy or getter inside the value blew up while being inspected.
    return { kind: "reject", reason: `the value could not be read (${errorText(error)})` }
  }
}

// ---- reading one bag of options (top level or one override section) -------------------------

type BagContext = {
  /** "" at the top level, "defaultSlow." or "modelProfiles.ollama." inside a section. */
  prefix: string
  inSection: boolean
  warnings: string[]
}

/** Names a section may override: everything except plugin-wide options. */
const OVERRIDABLE_NAMES: readonly string[] = TUNABLE_NAMES.filter((name) => OPTION_SPECS[name].info.scope !== "process")

function fallbackText(ctx: BagContext, name: TunableName): string {
  return ctx.inSection ? "this override is skipped" : `using the default ${renderDefault(name)}`
}

/**
 * Reads every option key of `source`. Accepted values land in the returned map under their
 * canonical name; section keys are handed to `onSection` (top level only).
 */
function readBag(
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

function readOverrides(value: unknown, path: string, warnings: string[]): Overrides | undefined {
  if (value === undefined || value === null) return undefined
  if (!isPlainObject(value)) {
    warnings.push(`option "${path}" ignored: expected an object of option overrides, got ${preview(value)}; no overrides apply`)
    return undefined
  }
  const accepted = readBag(value, { prefix: `${path}.`, inSection: true, warnings })
  return accepted.size > 0 ? (Object.fromEntries(accepted) as Overrides) : undefined
}

function readModelProfiles(value: unknown, warnings: string[]): Record<string, Overrides> | undefined {
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

// ---- environment ----------------------------------------------------------------------------

function applyEnvironment(
  env: Record<string, string | undefined> | undefined,
  options: Record<string, unknown>,
  explicit: ReadonlySet<string>,
  warnings: string[],
): void {
  if (env === undefined || env === null) return
  for (const row of ENV_OVERRIDES) {
    if (explicit.has(row.option)) continue // the config always wins
    let text: unknown
    try {
      text = env[row.variable]
    } catch (error) {
      warnings.push(`environment variable ${row.variable} could not be read (${errorText(error)}); ignored`)
      continue
    }
    if (typeof text !== "string" || text.trim() === "") continue
    const parsed = row.parse(text)
    // Re-check with the option's own rules, so a parser bug cannot smuggle in a bad value.
    const checked = parsed.ok ? checkValue(OPTION_SPECS[row.option], parsed.value) : undefined
    if (checked?.kind === "use") options[row.option] = checked.value
    else {
      const expected = parsed.ok ? "a valid value" : parsed.expected
      warnings.push(`environment variable ${row.variable}=${preview(text)} ignored: expected ${expected}`)
    }
  }
}

// ---- entry point ----------------------------------------------------------------------------

function finish(options: Record<string, unknown>, warnings: string[], explicit: Set<string>): ResolvedOptions {
  const differences: Record<string, unknown> = {}
  for (const name of [...TUNABLE_NAMES, ...SECTION_NAMES]) {
    if (!(name in options)) continue
    const value = options[name]
    if (!deepEqual(value, (OPTION_DEFAULTS as Record<string, unknown>)[name])) differences[name] = value
  }
  return {
    options: deepFreeze(options as Options),
    warnings,
    explicit,
    differences: deepFreeze(differences),
  }
}

function resolveUnchecked(raw: unknown, env: Record<string, string | undefined>, warnings: string[]): ResolvedOptions {
  const options: Record<string, unknown> = { ...OPTION_DEFAULTS }
  const explicit = new Set<string>()

  if (raw !== undefined && raw !== null) {
    if (!isPlainObject(raw)) {
      warnings.push(`plugin options should be an object, got ${preview(raw)}; every option keeps its default`)
    } else {
      const accepted = readBag(raw, { prefix: "", inSection: false, warnings }, (section, value) => {
        const overrides = section === "modelProfiles" ? readModelProfiles(value, warnings) : readOverrides(value, section, warnings)
        if (overrides !== undefined) {
          options[section] = overrides
          explicit.add(section)
        }
      })
      for (const [name, value] of accepted) {
        options[name] = value
        explicit.add(name)
      }
    }
  }

  applyEnvironment(env, options, explicit, warnings)
  return finish(options, warnings, explicit)
}

/**
 * Resolves raw plugin options. `env` is normally `process.env`; it is a parameter so tests
 * (and the two host builds) decide what the plugin sees. Never throws.
 */
export function resolveOptions(raw: unknown, env: Record<string, string | undefined>): ResolvedOptions {
  const warnings: string[] = []
  try {
    return resolveUnchecked(raw, env, warnings)
  } catch (error) {
    // Last line of defence against a bug above: a broken config must not take the plugin down.
    return finish(
      { ...OPTION_DEFAULTS },
      [`plugin options could not be resolved (${errorText(error)}); every option keeps its default`],
      new Set(),
    )
  }
}
