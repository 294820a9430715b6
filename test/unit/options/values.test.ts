/**
 * Per-key validation: a wrong value is named in exactly one warning (key, what was wrong,
 * the default used) and falls back to its default, while every other key still applies.
 */
import { describe, expect, test } from "bun:test"
import { OPTION_DEFAULTS, resolveOptions } from "../../../src/options/index.ts"
import { NO_ENV, optionValue, warningsFor } from "./helpers.ts"

// A valid key given alongside each bad one, to show a bad key does not spoil the rest.
const BYSTANDER = { warmupMs: 12_345 }

type BadCase = [key: string, value: unknown, problem: string, defaultShown: string]

const BAD_VALUES: BadCase[] = [
  ["chunkTimeoutMs", Number.NaN, "expected a finite number of milliseconds", "180000"],
  ["chunkTimeoutMs", Number.POSITIVE_INFINITY, "expected a finite number of milliseconds", "180000"],
  ["chunkTimeoutMs", Number.NEGATIVE_INFINITY, "expected a finite number of milliseconds", "180000"],
  ["chunkTimeoutMs", "abc", "expected a finite number of milliseconds", "180000"],
  ["chunkTimeoutMs", "180000", "expected a finite number of milliseconds", "180000"],
  ["chunkTimeoutMs", -1, "must be greater than 0", "180000"],
  ["chunkTimeoutMs", 0, "must be greater than 0", "180000"],
  ["chunkTimeoutMs", 3e9, "must be at most 2147483647", "180000"],
  ["checkIntervalMs", 0, "must be greater than 0", "5000"],
  ["sendTimeoutMs", 0, "must be greater than 0", "30000"],
  ["stuckToolAgeMs", -5, "must be greater than 0", "60000"],
  ["gracePeriodMs", -1, "must not be negative", "3000"],
  ["toolTextCheckDelayMs", -0.5, "must not be negative", "3000"],
  ["activeUserWindowMs", true, "expected a finite number of milliseconds", "300000"],
  ["maxRetries", 1.5, "expected a whole number", "3"],
  ["stallEpisodeMaxContinues", -1, "must not be negative", "3"],
  ["maxRetries", "3", "expected a whole number", "3"],
  ["lifetimeMaxContinues", Number.NaN, "expected a whole number", "9"],
  ["silentDeadStreamMinTokens", 2.25, "expected a whole number", "200"],
  ["goalMaxContinues", -3, "must not be negative", "25"],
  ["goalMaxContinues", 2.5, "expected a whole number", "25"],
  ["goalMaxMs", 0, "must be greater than 0", "14400000"],
  ["goalMaxMs", "4h", "expected a finite number of milliseconds", "14400000"],
  ["unattendedMaxMs", -1, "must not be negative", "0"],
  ["unattendedMaxMs", "8h", "expected a finite number of milliseconds", "0"],
  ["unattendedMaxMs", 3e9, "must be at most 2147483647", "0"],
  ["debug", "true", "expected true or false", "false"],
  ["visibleContinue", 1, "expected true or false", "true"],
  ["resumeOnActionIntent", "no", "expected true or false", "true"],
  ["busyStallStrategy", "sometimes", 'expected "continue", "abort" or "off"', '"continue"'],
  ["busyStallStrategy", "CONTINUE", 'expected "continue", "abort" or "off"', '"continue"'],
  ["contextSaturationThreshold", 0, "must be greater than 0", "0.85"],
  ["contextSaturationThreshold", 1.5, "must be at most 1", "0.85"],
  ["contextSaturationThreshold", "85%", "expected a number between 0 and 1", "0.85"],
  ["continuePrompt", "   ", "must not be blank", "built-in prompt"],
  ["continuePrompt", 42, "expected a string", "built-in prompt"],
  ["registryScope", {}, "expected a string", "unset"],
  ["rateLimitCooldownsMs", [], "must list at least one cooldown", "[900000,1800000"],
  ["rateLimitCooldownsMs", [1_000, -5], "entry 1: must not be negative", "[900000,1800000"],
  ["rateLimitCooldownsMs", [Number.NaN], "entry 0: expected a finite number of milliseconds", "[900000"],
  ["rateLimitCooldownsMs", "900000", "expected a list of millisecond values", "[900000"],
  ["streamingFailureErrorNames", "ProviderError", "expected a list of strings", '["ProviderError"'],
  ["stopPatterns", "STOP", "expected a list of strings", "[]"],
  ["neverInterruptTools", [1, 2], "no usable entries", '["compress"]'],
]

describe("a wrong value falls back to its default with exactly one warning", () => {
  test.each(BAD_VALUES)("%s = %p", (key, value, problem, defaultShown) => {
    const resolved = resolveOptions({ [key]: value, ...BYSTANDER }, NO_ENV)
    const lines = warningsFor(resolved, key)
    expect(lines).toHaveLength(1)
    expect(resolved.warnings).toHaveLength(1)
    expect(lines[0]).toContain(problem)
    expect(lines[0]).toContain(`using the default ${defaultShown}`)
    expect(optionValue(resolved, key)).toEqual((OPTION_DEFAULTS as Record<string, unknown>)[key])
    expect(resolved.explicit.has(key)).toBe(false)
    expect(resolved.options.warmupMs).toBe(12_345)
  })
})

type GoodCase = [key: string, value: unknown]

// Negative controls: boundary values that are legitimate must pass without a word.
const GOOD_VALUES: GoodCase[] = [
  ["chunkTimeoutMs", 1],
  ["chunkTimeoutMs", 2_147_483_647],
  ["gracePeriodMs", 0],
  ["toolTextCheckDelayMs", 0],
  ["baseBackoffMs", 12.5],
  ["stallEpisodeMaxContinues", 0],
  ["streamingFailureMaxPrompts", 0],
  ["finishedTurnMaxNudges", 0],
  ["taskCompleteMaxRefusals", 0],
  ["streamingFailureWatchdogMs", 0],
  ["loopMaxContinues", 0],
  ["lifetimeMaxContinues", 40],
  ["goalMaxContinues", 0],
  ["goalMaxMs", 60_000],
  ["unattendedMaxMs", 0],
  ["unattendedMaxMs", 28_800_000],
  ["debug", true],
  ["visibleContinue", false],
  ["busyStallStrategy", "abort"],
  ["busyStallStrategy", "off"],
  ["contextSaturationThreshold", 1],
  ["contextSaturationThreshold", 0.01],
  ["continuePrompt", "go on"],
  ["registryScope", "test-slot"],
  ["rateLimitCooldownsMs", [0, 5]],
  ["stopPatterns", ["STOP:\\s*(BLOCKED|NEEDS_DECISION)\\b"]],
  ["doneClaimPatterns", ["all done", "^finished\\.?$"]],
  ["neverInterruptTools", []],
  ["streamingFailureErrorNames", []],
  ["streamingFailureErrorNames", ["MyError"]],
]

describe("a valid value is applied silently", () => {
  test.each(GOOD_VALUES)("%s = %p", (key, value) => {
    const resolved = resolveOptions({ [key]: value }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(optionValue(resolved, key)).toEqual(value)
    expect(resolved.explicit.has(key)).toBe(true)
  })
})

describe("null and undefined mean 'not given'", () => {
  test.each([null, undefined])("chunkTimeoutMs = %p", (value) => {
    const resolved = resolveOptions({ chunkTimeoutMs: value }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.chunkTimeoutMs).toBe(180_000)
    expect(resolved.explicit.has("chunkTimeoutMs")).toBe(false)
  })
})

describe("several bad keys: one warning each, good keys still apply", () => {
  test("three bad, two good", () => {
    const resolved = resolveOptions(
      { chunkTimeoutMs: "abc", maxRetries: -1, debug: "yes", gracePeriodMs: 0, loopWindowMs: 1_000 },
      NO_ENV,
    )
    expect(resolved.warnings).toHaveLength(3)
    for (const key of ["chunkTimeoutMs", "maxRetries", "debug"]) expect(warningsFor(resolved, key)).toHaveLength(1)
    expect(resolved.options.gracePeriodMs).toBe(0)
    expect(resolved.options.loopWindowMs).toBe(1_000)
    expect([...resolved.explicit].sort()).toEqual(["gracePeriodMs", "loopWindowMs"])
  })
})

describe("pattern lists", () => {
  type ListCase = [label: string, key: string, value: unknown[], expected: unknown, warned: string[]]
  const CASES: ListCase[] = [
    ["invalid regex dropped, rest kept", "stopPatterns", ["(", "ok"], ["ok"], ['"("']],
    ["two invalid regexes named in one warning", "stopPatterns", ["(", "[", "fine"], ["fine"], ['"("', '"["']],
    ["non-string entry dropped", "doneClaimPatterns", [42, "done"], ["done"], ["42 (not a string)"]],
    ["blank entry dropped", "readyToContinuePatterns", ["  ", "ready"], ["ready"], ["(blank)"]],
    ["nothing valid left: built-in set", "doneClaimPatterns", ["(", "["], undefined, ['"("', '"["']],
    ["nothing valid left: default []", "stopPatterns", ["("], [], ['"("']],
    ["message patterns keep non-regex text", "streamingFailureMessagePatterns", ["x(", "reset"], ["x(", "reset"], []],
    ["message patterns still need strings", "streamingFailureMessagePatterns", [7, "reset"], ["reset"], ["7 (not a string)"]],
    ["error names need strings", "streamingFailureErrorNames", [null, "APIError"], ["APIError"], ["null (not a string)"]],
  ]
  test.each(CASES)("%s", (_label, key, value, expected, warned) => {
    const resolved = resolveOptions({ [key]: value }, NO_ENV)
    expect(optionValue(resolved, key)).toEqual(expected)
    const lines = warningsFor(resolved, key)
    expect(resolved.warnings).toHaveLength(warned.length === 0 ? 0 : 1)
    expect(lines).toHaveLength(warned.length === 0 ? 0 : 1)
    for (const fragment of warned) expect(lines[0]).toContain(fragment)
  })

  test("an empty pattern list keeps the built-in set, silently and not explicitly", () => {
    for (const key of ["doneClaimPatterns", "readyToContinuePatterns", "stopPatterns"]) {
      const resolved = resolveOptions({ [key]: [] }, NO_ENV)
      expect(resolved.warnings).toEqual([])
      expect(optionValue(resolved, key)).toEqual((OPTION_DEFAULTS as Record<string, unknown>)[key])
      expect(resolved.explicit.has(key)).toBe(false)
    }
  })

  test("partly valid list counts as explicit; wholly invalid one does not", () => {
    expect(resolveOptions({ stopPatterns: ["(", "ok"] }, NO_ENV).explicit.has("stopPatterns")).toBe(true)
    expect(resolveOptions({ stopPatterns: ["("] }, NO_ENV).explicit.has("stopPatterns")).toBe(false)
  })

  test("a wholly invalid list says which default it uses", () => {
    const [line] = resolveOptions({ doneClaimPatterns: ["("] }, NO_ENV).warnings
    expect(line).toContain("using the default built-in patterns")
  })
})

describe("resolved options are frozen and independent of the input", () => {
  test("mutating the input afterwards changes nothing", () => {
    const input = { stopPatterns: ["a"], rateLimitCooldownsMs: [1, 2] }
    const resolved = resolveOptions(input, NO_ENV)
    input.stopPatterns.push("b")
    input.rateLimitCooldownsMs.push(3)
    expect(resolved.options.stopPatterns).toEqual(["a"])
    expect(resolved.options.rateLimitCooldownsMs).toEqual([1, 2])
  })

  test("the result cannot be mutated", () => {
    const resolved = resolveOptions({}, NO_ENV)
    expect(Object.isFrozen(resolved.options)).toBe(true)
    expect(Object.isFrozen(resolved.options.neverInterruptTools)).toBe(true)
  })
})
