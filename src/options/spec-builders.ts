/** The vocabulary the option table is written in, kept apart so the table reads as data. */
import { z } from "zod"

/**
 * Longest delay a platform timer honours. Node and Bun silently turn a larger delay into
 * 1 ms, so an over-generous timeout would fire at once instead of never.
 */
export const MAX_TIMER_MS = 2_147_483_647

export type OptionInfo = {
  /** One line, for the README table and the JSON schema. */
  description: string
  /** How the option behaves differently between OpenCode v1 and v2, when it does. */
  hostNote?: string
  /**
   * Per-entry validation for string lists instead of all-or-nothing: "regex" entries must compile,
   * "models" entries must read "provider/model", "strings" entries need only be non-blank.
   */
  list?: "regex" | "strings" | "models"
  /**
   * "process" options steer plugin-wide machinery (one poll timer, one registry), so a
   * per-profile or per-provider override could never take effect and is refused.
   */
  scope?: "process"
  /**
   * What this key is an old name for: one option, or several when the old name meant several
   * things. It sets each of them that the config does not set itself; it may name another alias.
   */
  aliasOf?: string | readonly string[]
  /** Options this one also sets when they are not set themselves (it once meant them too). */
  alsoSets?: readonly string[]
  /** Environment variable that can set the option when the config does not (a true/false word). */
  env?: string
  /** Display text for the default where the raw value would mislead (unset; per-profile ones are derived). */
  defaultText?: string
}

export type Spec<Inner extends z.ZodType = z.ZodType, Field extends z.ZodType = z.ZodType> = {
  /** Validates a value the user supplied (no default applied). */
  inner: Inner
  /** `inner` plus its default (or `.optional()`), as it appears in `optionsSchema`. */
  field: Field
  /** `undefined` for options whose absence means "use the built-in behaviour". */
  default: z.output<Inner> | undefined
  info: OptionInfo
}

type More = Omit<OptionInfo, "description">

export function withDefault<Inner extends z.ZodType>(inner: Inner, def: z.output<Inner>, description: string, more: More = {}): Spec<Inner, z.ZodDefault<Inner>> {
  const field = inner.default(def as z.util.NoUndefined<z.output<Inner>>).describe(description)
  return { inner, field: field as z.ZodDefault<Inner>, default: def, info: { description, ...more } }
}

export function optional<Inner extends z.ZodType>(inner: Inner, description: string, more: More = {}): Spec<Inner, z.ZodOptional<Inner>> {
  return { inner, field: inner.optional().describe(description), default: undefined, info: { description, ...more } }
}

// ---- value shapes: their error texts end up in startup warnings, so they say what a valid value looks like

/**
 * A delay or budget in milliseconds. `positive` rejects 0 for values where 0 would make a
 * timer fire at once or a window empty (e.g. a stall timeout of 0 declares every session
 * stalled); `zeroOk` is for delays where 0 means "straight away" and is a real choice.
 */
export function ms(floor: "positive" | "zeroOk") {
  const base = z.number({ error: "expected a finite number of milliseconds" })
  const bounded = floor === "positive" ? base.positive("must be greater than 0") : base.min(0, "must not be negative")
  return bounded.max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} (about 24.8 days)`)
}

/** A count of attempts or tokens. Fractions are rejected rather than rounded: 2.5 retries is a typo. */
export const count = () => z.number({ error: "expected a whole number" }).int("expected a whole number").min(0, "must not be negative")

export const flag = () => z.boolean({ error: "expected true or false" })

/** Prompt-like text; a blank prompt would send an empty message, so it is refused. */
export const text = () => z.string({ error: "expected a string" }).regex(/\S/, "must not be blank")

export const stringList = () => z.array(z.string(), { error: "expected a list of strings" })
