/**
 * What a docs generator needs: one row per option for the README table, and the JSON
 * schema for editors. Both come from `schema.ts`, so they cannot drift from the code.
 */
import { z } from "zod"
import { PROFILE_SECTION_INFO } from "./option-table.ts"
import type { OptionInfo } from "./spec-builders.ts"
import { OPTION_SPECS, SECTION_NAMES, TUNABLE_NAMES, defaultTextOf, optionsSchema } from "./schema.ts"

export type OptionDoc = Pick<OptionInfo, "description" | "hostNote" | "aliasOf" | "alsoSets" | "env"> & {
  name: string
  /** Type as a reader would write it: "number", "integer", "string[]", '"a" | "b"', "object". */
  type: string
  /** The default value; undefined when unset means built-in behaviour. */
  default: unknown
  /** The default as it should read in a table (covers unset and per-profile defaults). */
  defaultText: string
  /** True for plugin-wide options, which profile sections cannot override. */
  pluginWide?: boolean
}

type JsonSchema = { type?: string | string[]; enum?: unknown[]; items?: JsonSchema }

function typeLabel(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ")
  if (schema.type === "array") return `${schema.items ? typeLabel(schema.items) : "unknown"}[]`
  return typeof schema.type === "string" ? schema.type : "unknown"
}

function optionDocs(): OptionDoc[] {
  const rows: OptionDoc[] = TUNABLE_NAMES.map((name) => {
    const spec = OPTION_SPECS[name]
    const { hostNote, aliasOf, alsoSets, env } = spec.info
    const row: OptionDoc = {
      name,
      type: typeLabel(z.toJSONSchema(spec.inner, { io: "input" }) as JsonSchema),
      default: spec.default,
      defaultText: defaultTextOf(name) ?? JSON.stringify(spec.default),
      description: spec.info.description,
    }
    // Only the keys an option has, so a row compares equal to a hand-written one.
    const extras = { hostNote, aliasOf, alsoSets, env, pluginWide: spec.info.scope === "process" ? true : undefined }
    for (const [key, value] of Object.entries(extras)) if (value !== undefined) Object.assign(row, { [key]: value })
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
