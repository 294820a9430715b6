/**
 * resolveOptions must never throw: the options come from a user's config file via a host we
 * do not control, and a throw at setup would take the whole watchdog down with it.
 */
import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { OPTION_DEFAULTS, optionsSchema, resolveOptions } from "../../../src/options/index.ts"
import { NO_ENV, warningsFor } from "./helpers.ts"

const boom = () => {
  throw new Error("boom")
}

describe("non-object options", () => {
  type Case = [label: string, raw: unknown, warnings: number]
  const CASES: Case[] = [
    ["undefined (no options at all)", undefined, 0],
    ["null", null, 0],
    ["a string", "chunkTimeoutMs=5", 1],
    ["a number", 42, 1],
    ["a boolean", true, 1],
    ["an empty array", [], 1],
    ["an array of objects", [{ chunkTimeoutMs: 5 }], 1],
    ["a function", () => ({ chunkTimeoutMs: 5 }), 1],
    ["a symbol", Symbol("x"), 1],
    ["a bigint", 10n, 1],
  ]
  test.each(CASES)("%s -> defaults", (_label, raw, warnings) => {
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.options).toEqual(OPTION_DEFAULTS)
    expect(resolved.warnings).toHaveLength(warnings)
    if (warnings > 0) expect(resolved.warnings[0]).toContain("should be an object")
    expect(resolved.explicit.size).toBe(0)
    expect(resolved.differences).toEqual({})
  })

  test("an empty object gives defaults and no warnings", () => {
    const resolved = resolveOptions({}, NO_ENV)
    expect(resolved.options).toEqual(OPTION_DEFAULTS)
    expect(resolved.warnings).toEqual([])
  })
})

describe("hostile objects", () => {
  test("a throwing getter on a known key: one warning, the other keys apply", () => {
    const raw = { loopMaxContinues: 4 }
    Object.defineProperty(raw, "chunkTimeoutMs", { enumerable: true, get: boom })
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, "chunkTimeoutMs")[0]).toContain("could not be read (boom)")
    expect(resolved.options.chunkTimeoutMs).toBe(180_000)
    expect(resolved.options.loopMaxContinues).toBe(4)
  })

  test("a throwing getter on an unknown key is never called", () => {
    const raw = {}
    Object.defineProperty(raw, "totallyUnrelatedSetting", { enumerable: true, get: boom })
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.warnings).toEqual(['unknown option "totallyUnrelatedSetting" ignored'])
  })

  test("a proxy whose key listing throws", () => {
    const raw = new Proxy({}, { ownKeys: boom })
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.options).toEqual(OPTION_DEFAULTS)
    expect(resolved.warnings).toHaveLength(1)
    expect(resolved.warnings[0]).toContain("could not be listed (boom)")
  })

  test("a proxy whose every read throws", () => {
    const raw = new Proxy({ chunkTimeoutMs: 1, debug: true }, { get: boom })
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.options).toEqual(OPTION_DEFAULTS)
    expect(resolved.warnings).toHaveLength(2)
  })

  test("a value whose inspection throws", () => {
    const hostileList = new Proxy(["a"], { get: boom })
    const unprintable = { toJSON: boom }
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const resolved = resolveOptions(
      { stopPatterns: hostileList, chunkTimeoutMs: unprintable, gracePeriodMs: circular, maxRetries: 10n },
      NO_ENV,
    )
    expect(resolved.warnings).toHaveLength(4)
    for (const key of ["stopPatterns", "chunkTimeoutMs", "gracePeriodMs", "maxRetries"]) {
      expect(warningsFor(resolved, key)).toHaveLength(1)
    }
    expect(resolved.options).toEqual(OPTION_DEFAULTS)
  })

  test("a hostile section or environment", () => {
    const section = new Proxy({}, { ownKeys: boom })
    const env = new Proxy({}, { get: boom }) as Record<string, string | undefined>
    const resolved = resolveOptions({ defaultSlow: section, modelProfiles: { ollama: section } }, env)
    expect(resolved.options).toEqual(OPTION_DEFAULTS)
    expect(warningsFor(resolved, "defaultSlow")).toHaveLength(1)
    expect(resolved.warnings.some((line) => line.includes("AUTO_RESUME_DEBUG"))).toBe(true)
  })

  test("an object without a prototype works like any other", () => {
    const raw = Object.create(null) as Record<string, unknown>
    raw.chunkTimeoutMs = 9_000
    expect(resolveOptions(raw, NO_ENV).options.chunkTimeoutMs).toBe(9_000)
  })

  test("a '__proto__' key is just an unknown key", () => {
    const raw = JSON.parse('{"__proto__": {"debug": true}, "loopMaxContinues": 2}')
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.options.debug).toBe(false)
    expect(resolved.options.loopMaxContinues).toBe(2)
    expect(resolved.warnings).toEqual(['unknown option "__proto__" ignored'])
  })
})

describe("property: anything in, valid options out", () => {
  const knownKeys = [...Object.keys(OPTION_DEFAULTS), "maxRetries", "maxRecoveryRetries", "defaultFast", "defaultSlow", "modelProfiles"]
  const arbitraryValue = fc.oneof(
    fc.anything(),
    fc.double(),
    fc.integer({ min: -10, max: 10 }),
    fc.array(fc.string()),
    fc.constantFrom("(", "continue", "abort", "off", "", "1"),
  )
  const arbitraryOptions = fc.dictionary(fc.oneof(fc.constantFrom(...knownKeys), fc.string()), arbitraryValue)
  const arbitraryEnv = fc.record({
    AUTO_RESUME_DEBUG: fc.option(fc.string(), { nil: undefined }),
    AUTO_RESUME_VISIBLE_CONTINUE: fc.option(fc.constantFrom("0", "yes", "maybe", " On "), { nil: undefined }),
  })

  test("never throws and every option passes the schema", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), arbitraryOptions), arbitraryEnv, (raw, env) => {
        const resolved = resolveOptions(raw, env)
        expect(optionsSchema.safeParse(resolved.options).success).toBe(true)
        for (const line of resolved.warnings) expect(typeof line).toBe("string")
      }),
      { numRuns: 500 },
    )
  })
})
