/**
 * What a docs generator needs: one row per option for the README table, and the JSON
 * schema for editors. Both come from `schema.ts`, so they cannot drift from the code.
 */
import { z } from "zod"
import { PROFILE_SECTION_INFO } from "./option-table.ts"
import { OPTION_SPECS, SECTION_NAMES, TUNABLE_NAMES, optionsSchema } from "./schema.ts"

export type OptionDoc = {
  name: string
  /** Type as a reader would write it: "number", "integer", "string[]", '"a" | "b"', "object". */
  type: string
  /** The default value; undefined when unset means built-in behaviour. */
  default: unknown
  /** The default as it should read in a table (covers unset and per-profile defaults). */
  defaultText: string
  description: string
  hostNote?: string
  /** Set for old names that are still accepted: what they stand for. */
  aliasOf?: string | readonly string[]
  /** Options this one also sets when they are not set themselves. */
  alsoSets?: readonly string[]
  /** Environment variable that can set this option when the config does not. */
  env?: string
  /** True for plugin-wide options, which profile sections cannot override. */
  pluginWide?: boolean
}

type JsonSchema = { type?: string | string[]; enum?: unknown[]; items?: JsonSchema }

function typeLabel(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ")
  if (schema.type === "array") return `${schema.items ? typeLabel(schema.items) : "unknown"}[]`
  if (typeof schema.type === "string") return schema.type
  return "unknown"
}

function optionDocs(): OptionDoc[] {
  const rows: OptionDoc[] = TUNABLE_NAMES.map((name) => {
    const spec = OPTION_SPECS[name]
    const row: OptionDoc = {
      name,
      type: typeLabel(z.toJSONSchema(spec.inner, { io: "input" }) as JsonSchema),
      default: spec.default,
      defaultText: spec.info.defaultText ?? JSON.stringify(spec.default),
      description: spec.info.description,
    }
    if (spec.info.hostNote !== undefined) row.hostNote = spec.info.hostNote
    if (spec.info.aliasOf !== undefined) row.aliasOf = spec.info.aliasOf
    if (spec.info.alsoSets !== undefined) row.alsoSets = spec.info.alsoSets
    if (spec.info.env !== undefined) row.env = spec.info.env
    if (spec.info.scope === "process") row.pluginWide = true
    return row
  })
  for (const name of SECTION_NAMES) {
    rows.push({ name, type: "object", default: undefined, defaultText: "unset", description: PROFILE_SECTION_INFO[name].description })
  }
  return rows
}

/** One row per accepted option name, in declaration order. */
export const OPTION_DOCS: readonly Readonly<OptionDoc>[] = Object.freeze(optionDocs().map((row) => Object.freeze(row)))

/** JSON schema of the options object as a config file writes it (defaults shown, none required). */
export function optionsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(optionsSchema, { io: "input" }) as Record<string, unknown>
}
