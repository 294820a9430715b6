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
 * - raw text from the environment never reaches an option without being parsed and checked
 *   (so `Number("abc")` cannot end up in a timer).
 *
 * Absence: a key whose value is `undefined` or `null` counts as not given (JSON has no other
 * way to write "leave it at the default"), so it is neither warned about nor explicit.
 */
import { checkValue } from "./check-value.ts"
import { readBag, readModelProfiles, readOverrides } from "./read-config.ts"
import { errorText, isPlainObject, preview, readProperty } from "./safe-read.ts"
import { OPTION_DEFAULTS, OPTION_SPECS, SECTION_NAMES, TUNABLE_NAMES, deepFreeze, type OptionName, type Options } from "./schema.ts"

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

export type EnvOverride = { variable: string; option: OptionName }

const TRUE_WORDS = new Set(["1", "true", "on", "yes"])
const FALSE_WORDS = new Set(["0", "false", "off", "no"])

export function parseSwitch(text: string): { ok: true; value: boolean } | { ok: false; expected: string } {
  const word = text.trim().toLowerCase()
  if (TRUE_WORDS.has(word)) return { ok: true, value: true }
  if (FALSE_WORDS.has(word)) return { ok: true, value: false }
  return { ok: false, expected: "one of 1/true/on/yes or 0/false/off/no" }
}

/** Options an environment variable may set (the table's `env`): all flags, so every variable is a switch. Config beats environment beats default. */
export const ENV_OVERRIDES: readonly EnvOverride[] = Object.freeze(
  TUNABLE_NAMES.flatMap((name) => {
    const variable = OPTION_SPECS[name].info.env
    return variable === undefined ? [] : [{ variable, option: name as OptionName }]
  }),
)

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false
  const aKeys = Object.keys(a)
  if (aKeys.length !== Object.keys(b).length) return false
  return aKeys.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

function applyEnvironment(env: Record<string, string | undefined> | undefined, options: Record<string, unknown>, explicit: ReadonlySet<string>, warnings: string[]): void {
  if (env === undefined || env === null) return
  for (const row of ENV_OVERRIDES) {
    if (explicit.has(row.option)) continue // the config always wins
    const read = readProperty(env, row.variable)
    if (!read.ok) warnings.push(`environment variable ${row.variable} could not be read (${read.error}); ignored`)
    const text = read.ok ? read.value : undefined
    if (typeof text !== "string" || text.trim() === "") continue
    const parsed = parseSwitch(text)
    // Re-check with the option's own rules, so a parser bug cannot smuggle in a bad value.
    const checked = parsed.ok ? checkValue(OPTION_SPECS[row.option], parsed.value) : undefined
    if (checked?.kind === "use") options[row.option] = checked.value
    else {
      const expected = parsed.ok ? "a valid value" : parsed.expected
      warnings.push(`environment variable ${row.variable}=${preview(text)} ignored: expected ${expected}`)
    }
  }
}

function finish(options: Record<string, unknown>, warnings: string[], explicit: Set<string>): ResolvedOptions {
  const differences: Record<string, unknown> = {}
  for (const name of [...TUNABLE_NAMES, ...SECTION_NAMES]) {
    if (!(name in options)) continue
    const value = options[name]
    if (!deepEqual(value, (OPTION_DEFAULTS as Record<string, unknown>)[name])) differences[name] = value
  }
  return { options: deepFreeze(options as Options), warnings, explicit, differences: deepFreeze(differences) }
}

function resolveUnchecked(raw: unknown, env: Record<string, string | undefined>, warnings: string[]): ResolvedOptions {
  const options: Record<string, unknown> = { ...OPTION_DEFAULTS }
  const explicit = new Set<string>()
  const set = (name: string, value: unknown) => {
    options[name] = value
    explicit.add(name)
  }
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) {
    warnings.push(`plugin options should be an object, got ${preview(raw)}; every option keeps its default`)
  } else if (raw !== undefined && raw !== null) {
    const accepted = readBag(raw, { prefix: "", inSection: false, warnings }, (section, value) => {
      const overrides = section === "modelProfiles" ? readModelProfiles(value, warnings) : readOverrides(value, section, warnings)
      if (overrides !== undefined) set(section, overrides)
    })
    for (const [name, value] of accepted) set(name, value)
  }
  applyEnvironment(env, options, explicit, warnings)
  return finish(options, warnings, explicit)
}

/** `env` is a parameter so tests and the two host builds decide what the plugin sees. */
export function resolveOptions(raw: unknown, env: Record<string, string | undefined>): ResolvedOptions {
  const warnings: string[] = []
  try {
    return resolveUnchecked(raw, env, warnings)
  } catch (error) {
    // Last line of defence against a bug above: a broken config must not take the plugin down.
    return finish({ ...OPTION_DEFAULTS }, [`plugin options could not be resolved (${errorText(error)}); every option keeps its default`], new Set())
  }
}
