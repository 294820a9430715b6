/**
 * Options that an environment variable may set (the table's `env`); config beats environment beats
 * default. Raw environment text never reaches an option, so `Number("abc")` cannot end up in a timer.
 */
import { OPTION_SPECS, TUNABLE_NAMES, type OptionName } from "./schema.ts"

export type EnvParse = { ok: true; value: unknown } | { ok: false; expected: string }

export type EnvOverride = { variable: string; option: OptionName; parse: (text: string) => EnvParse }

const TRUE_WORDS = new Set(["1", "true", "on", "yes"])
const FALSE_WORDS = new Set(["0", "false", "off", "no"])

export function parseSwitch(text: string): EnvParse {
  const word = text.trim().toLowerCase()
  if (TRUE_WORDS.has(word)) return { ok: true, value: true }
  if (FALSE_WORDS.has(word)) return { ok: true, value: false }
  return { ok: false, expected: "one of 1/true/on/yes or 0/false/off/no" }
}

/** Every variable is a switch: the only options an environment may set are flags. */
export const ENV_OVERRIDES: readonly EnvOverride[] = Object.freeze(
  TUNABLE_NAMES.flatMap((name) => {
    const variable = OPTION_SPECS[name].info.env
    return variable === undefined ? [] : [{ variable, option: name as OptionName, parse: parseSwitch }]
  }),
)
