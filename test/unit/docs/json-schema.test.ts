/**
 * The JSON schema shipped for editors (dist/options.schema.json) is optionsJsonSchema(), which
 * zod derives from the same schema the plugin validates with. Checked here with a small
 * validator of our own (not zod), so the test reads the JSON document the way an editor would.
 */
import { describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { OPTION_DEFAULTS, OPTION_DOCS, optionsJsonSchema, optionsSchema } from "../../../src/options/index.ts"
import { writeSchema } from "../../../scripts/build.ts"

type Schema = Record<string, any>

/** The keywords the validator below understands; any other keyword fails the test loudly. */
const KNOWN = new Set([
  "$schema",
  "type",
  "properties",
  "additionalProperties",
  "propertyNames",
  "items",
  "enum",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "pattern",
  "default",
  "description",
])

function keywordsOf(schema: Schema, into = new Set<string>()): Set<string> {
  for (const [key, value] of Object.entries(schema)) {
    into.add(key)
    if (key === "properties") for (const sub of Object.values(value as Record<string, Schema>)) keywordsOf(sub, into)
    else if (key === "items" || key === "additionalProperties" || key === "propertyNames") {
      if (value && typeof value === "object") keywordsOf(value as Schema, into)
    }
  }
  return into
}

function typeOf(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number"
  return typeof value
}

/** Problems with `value` under `schema`, as "path: what" lines; empty when valid. */
function validate(schema: Schema, value: unknown, at = "$"): string[] {
  const out: string[] = []
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type]
    const actual = typeOf(value)
    const ok = types.some((t) => t === actual || (t === "number" && actual === "integer"))
    if (!ok) return [`${at}: expected ${types.join("|")}, got ${actual}`]
  }
  if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))) out.push(`${at}: not one of ${JSON.stringify(schema.enum)}`)
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${at}: below minimum ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${at}: above maximum ${schema.maximum}`)
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) out.push(`${at}: not above ${schema.exclusiveMinimum}`)
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) out.push(`${at}: not below ${schema.exclusiveMaximum}`)
  }
  if (typeof value === "string" && schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) out.push(`${at}: does not match /${schema.pattern}/`)
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.push(`${at}: fewer than ${schema.minItems} items`)
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`${at}: more than ${schema.maxItems} items`)
    if (schema.items) value.forEach((item, i) => out.push(...validate(schema.items, item, `${at}[${i}]`)))
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const props: Record<string, Schema> = schema.properties ?? {}
    for (const [key, sub] of Object.entries(value as Record<string, unknown>)) {
      if (schema.propertyNames) out.push(...validate(schema.propertyNames, key, `${at} key ${JSON.stringify(key)}`))
      if (key in props) out.push(...validate(props[key]!, sub, `${at}.${key}`))
      else if (schema.additionalProperties === false) out.push(`${at}.${key}: not allowed`)
      else if (schema.additionalProperties && typeof schema.additionalProperties === "object") out.push(...validate(schema.additionalProperties, sub, `${at}.${key}`))
    }
  }
  return out
}

const schema = optionsJsonSchema() as Schema

describe("options JSON schema", () => {
  test("uses only keywords this test can check", () => {
    const unknown = [...keywordsOf(schema)].filter((k) => !KNOWN.has(k))
    expect(unknown).toEqual([])
  })

  test("is generated from the zod schema: one property per option, same descriptions and defaults", () => {
    expect(schema.$schema).toContain("json-schema.org")
    expect(schema.type).toBe("object")
    expect(Object.keys(schema.properties)).toEqual(Object.keys(optionsSchema.shape))
    expect(Object.keys(schema.properties)).toEqual(OPTION_DOCS.map((doc) => doc.name))
    for (const doc of OPTION_DOCS) {
      const prop = schema.properties[doc.name] as Schema
      expect(prop.description).toBe(doc.description)
      expect(prop.default).toEqual(doc.default)
    }
    for (const [name, value] of Object.entries(OPTION_DEFAULTS)) expect(schema.properties[name].default).toEqual(value)
  })

  test("accepts an empty options block and every default", () => {
    expect(validate(schema, {})).toEqual([])
    expect(validate(schema, { ...OPTION_DEFAULTS })).toEqual([])
    for (const [name, value] of Object.entries(OPTION_DEFAULTS)) expect(validate(schema, { [name]: value })).toEqual([])
  })

  test("accepts a realistic block with profile sections", () => {
    const block = {
      chunkTimeoutMs: 120000,
      maxRetries: 2,
      busyStallStrategy: "abort",
      neverInterruptTools: ["compress", "bash"],
      defaultSlow: { chunkTimeoutMs: 900000 },
      modelProfiles: { ollama: { chunkTimeoutMs: 900000, maxRetries: 5 } },
    }
    expect(validate(schema, block)).toEqual([])
  })

  const BAD: Array<[string, Record<string, unknown>, RegExp]> = [
    ["a negative delay", { chunkTimeoutMs: -1 }, /chunkTimeoutMs: not above 0/],
    ["a zero stall timeout", { chunkTimeoutMs: 0 }, /chunkTimeoutMs: not above 0/],
    ["a delay past the timer limit", { sendTimeoutMs: 2 ** 31 }, /sendTimeoutMs: above maximum/],
    ["a fractional retry count", { maxRetries: 2.5 }, /maxRetries: expected integer/],
    ["a string where a number goes", { maxRetries: "3" }, /maxRetries: expected integer, got string/],
    ["an unknown strategy", { busyStallStrategy: "restart" }, /busyStallStrategy: not one of/],
    ["a blank prompt", { continuePrompt: "   " }, /continuePrompt: does not match/],
    ["a list of numbers where names go", { neverInterruptTools: [1] }, /neverInterruptTools\[0\]: expected string/],
    ["an empty cooldown list", { rateLimitCooldownsMs: [] }, /rateLimitCooldownsMs: fewer than 1 items/],
    ["a bad value inside a provider profile", { modelProfiles: { ollama: { chunkTimeoutMs: -5 } } }, /modelProfiles\.ollama\.chunkTimeoutMs: not above 0/],
    ["a threshold above 1", { contextSaturationThreshold: 1.5 }, /contextSaturationThreshold: above maximum 1/],
  ]
  test.each(BAD)("rejects %s", (_what, block, problem) => {
    const problems = validate(schema, block)
    expect(problems.join("\n")).toMatch(problem)
    // The zod schema the plugin runs with agrees that the value is bad.
    expect(optionsSchema.safeParse(block).success).toBe(false)
  })

  test("the build writes exactly optionsJsonSchema() to options.schema.json", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "auto-resume-schema-"))
    try {
      const file = writeSchema(dir)
      expect(path.basename(file)).toBe("options.schema.json")
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(optionsJsonSchema())
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
