/**
 * The options split out of ones that meant two things, and the old names that still set them:
 * maxRetries (and its v1 name maxRecoveryRetries) for the four budgets it bounded at once, and
 * toolTextCheckDelayMs for the streaming-failure watchdog it also was.
 */
import { describe, expect, test } from "bun:test"
import { OPTION_DEFAULTS, effectiveOptions, resolveOptions } from "../../../src/options/index.ts"
import { TUNABLE_SPECS } from "../../../src/options/option-table.ts"
import { OPTION_SPECS, TUNABLE_NAMES, aliasTargets, canonicalTargets, isTunableName, type AliasName, type TunableName } from "../../../src/options/schema.ts"
import { NO_ENV, optionValue, warningsFor } from "./helpers.ts"

const BUDGETS = ["stallEpisodeMaxContinues", "streamingFailureMaxPrompts", "finishedTurnMaxNudges", "taskCompleteMaxRefusals"] as const
const SPLIT = [...BUDGETS, "streamingFailureWatchdogMs"] as const

function budgets(value: number): Record<(typeof BUDGETS)[number], number> {
  return { stallEpisodeMaxContinues: value, streamingFailureMaxPrompts: value, finishedTurnMaxNudges: value, taskCompleteMaxRefusals: value }
}

describe("the table's old names", () => {
  test("the aliases the types fold away are exactly the entries with aliasOf", () => {
    const declared: AliasName[] = ["maxRetries", "maxRecoveryRetries"]
    const withAlias = TUNABLE_NAMES.filter((name) => OPTION_SPECS[name].info.aliasOf !== undefined)
    expect([...withAlias].sort()).toEqual([...declared].sort())
  })

  test("every aliasOf and alsoSets names an option of the table; chains end in canonical options", () => {
    for (const name of Object.keys(TUNABLE_SPECS) as TunableName[]) {
      const info = OPTION_SPECS[name].info
      for (const target of [...aliasTargets(name), ...(info.alsoSets ?? [])]) expect(isTunableName(target)).toBe(true)
      for (const target of canonicalTargets(name)) expect(OPTION_SPECS[target].info.aliasOf).toBeUndefined()
    }
    expect(canonicalTargets("maxRetries")).toEqual([...BUDGETS])
    // An alias of an alias comes after it in the table, the order aliases are read in.
    for (const name of TUNABLE_NAMES) {
      for (const target of aliasTargets(name)) {
        if (aliasTargets(target).length > 0) expect(TUNABLE_NAMES.indexOf(target)).toBeLessThan(TUNABLE_NAMES.indexOf(name))
      }
    }
    expect(canonicalTargets("maxRecoveryRetries")).toEqual([...BUDGETS])
    expect(canonicalTargets("chunkTimeoutMs")).toEqual([])
  })
})

describe("each split option", () => {
  test.each(BUDGETS.map((name) => [name]))("%s is read, and only it", (name) => {
    const resolved = resolveOptions({ [name]: 7 }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(optionValue(resolved, name)).toBe(7)
    expect(resolved.explicit.has(name)).toBe(true)
    expect(effectiveOptions(resolved, "ollama")[name]).toBe(7) // explicit beats the slow profile
    // Control: the other three keep their defaults.
    for (const other of BUDGETS) if (other !== name) expect(optionValue(resolved, other)).toBe(3)
  })

  test.each(BUDGETS.map((name) => [name]))("%s defaults to what maxRetries gave: 3 fast, 5 slow", (name) => {
    const resolved = resolveOptions({}, NO_ENV)
    expect(OPTION_DEFAULTS[name]).toBe(3)
    expect(effectiveOptions(resolved, "openai")[name]).toBe(3)
    expect(effectiveOptions(resolved, "ollama")[name]).toBe(5)
  })

  test("streamingFailureWatchdogMs is read, and defaults to 3000 on both profiles", () => {
    const resolved = resolveOptions({ streamingFailureWatchdogMs: 10_000 }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.streamingFailureWatchdogMs).toBe(10_000)
    expect(resolved.options.toolTextCheckDelayMs).toBe(3_000) // control: the text check keeps its own
    const plain = resolveOptions({}, NO_ENV)
    expect(OPTION_DEFAULTS.streamingFailureWatchdogMs).toBe(3_000)
    expect(effectiveOptions(plain, "ollama").streamingFailureWatchdogMs).toBe(3_000)
  })

  test.each([
    ...BUDGETS.map((name) => [name, -1, "must not be negative", "3 (fast) / 5 (slow)"] as const),
    ...BUDGETS.map((name) => [name, 2.5, "expected a whole number", "3 (fast) / 5 (slow)"] as const),
    ["streamingFailureWatchdogMs", "3s", "expected a finite number of milliseconds", "3000"] as const,
    ["streamingFailureWatchdogMs", -5, "must not be negative", "3000"] as const,
  ])("%s = %p: one warning, the default kept", (name, value, reason, shown) => {
    const resolved = resolveOptions({ [name]: value }, NO_ENV)
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, name)).toHaveLength(1)
    expect(resolved.warnings[0]).toContain(reason)
    expect(resolved.warnings[0]).toContain(`using the default ${shown}`)
    expect(optionValue(resolved, name)).toBe(OPTION_DEFAULTS[name])
    expect(resolved.explicit.has(name)).toBe(false)
    if (name !== "streamingFailureWatchdogMs") expect(effectiveOptions(resolved, "ollama")[name]).toBe(5)
  })
})

describe("maxRetries sets the four budgets it used to bound", () => {
  test("alone: all four take its value, as explicit options; maxRetries itself is folded away", () => {
    const resolved = resolveOptions({ maxRetries: 4 }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options).toMatchObject(budgets(4))
    expect("maxRetries" in resolved.options).toBe(false)
    for (const name of BUDGETS) expect(resolved.explicit.has(name)).toBe(true)
    expect(resolved.explicit.has("maxRetries")).toBe(false)
    expect(resolved.differences).toEqual(budgets(4))
    expect(effectiveOptions(resolved, "ollama")).toMatchObject(budgets(4)) // beats the slow profile
  })

  test.each([
    ["new option first", { stallEpisodeMaxContinues: 6, maxRetries: 4 }],
    ["alias first", { maxRetries: 4, stallEpisodeMaxContinues: 6 }],
  ])("an explicit new option wins over it, with no warning (%s)", (_order, raw) => {
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options).toMatchObject({ ...budgets(4), stallEpisodeMaxContinues: 6 })
  })

  test("an explicit new option that is invalid still wins (its default); the alias fills the rest", () => {
    const resolved = resolveOptions({ maxRetries: 4, taskCompleteMaxRefusals: "x" }, NO_ENV)
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, "taskCompleteMaxRefusals")).toHaveLength(1)
    expect(resolved.options).toMatchObject({ ...budgets(4), taskCompleteMaxRefusals: 3 })
  })

  test("with all four set it changes nothing, and says so once", () => {
    const resolved = resolveOptions({ ...budgets(2), maxRetries: 9 }, NO_ENV)
    expect(resolved.options).toMatchObject(budgets(2))
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, "maxRetries")[0]).toContain("which are all set")
  })

  test.each([
    [-1, "must not be negative"],
    ["three", "expected a whole number"],
  ])("a bad value (%p): one warning naming maxRetries and what keeps its default", (value, reason) => {
    const resolved = resolveOptions({ maxRetries: value }, NO_ENV)
    expect(resolved.warnings).toHaveLength(1)
    const [line] = warningsFor(resolved, "maxRetries")
    expect(line).toContain(reason)
    expect(line).toContain("using the default 3 (fast) / 5 (slow) for stallEpisodeMaxContinues, streamingFailureMaxPrompts, finishedTurnMaxNudges and taskCompleteMaxRefusals")
    expect(resolved.options).toMatchObject(budgets(3))
    for (const name of BUDGETS) expect(resolved.explicit.has(name)).toBe(false)
    expect(effectiveOptions(resolved, "ollama")).toMatchObject(budgets(5))
  })

  test("inside a profile section it sets the four there", () => {
    const resolved = resolveOptions({ defaultSlow: { maxRetries: 8, finishedTurnMaxNudges: 1 } }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.defaultSlow).toEqual({ ...budgets(8), finishedTurnMaxNudges: 1 })
    expect(effectiveOptions(resolved, "ollama")).toMatchObject({ ...budgets(8), finishedTurnMaxNudges: 1 })
    expect(effectiveOptions(resolved, "openai")).toMatchObject(budgets(3))
  })
})

describe("maxRecoveryRetries, the v1 name of maxRetries", () => {
  test("alone: sets the four budgets", () => {
    const resolved = resolveOptions({ maxRecoveryRetries: 5 }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options).toMatchObject(budgets(5))
    expect("maxRecoveryRetries" in resolved.options).toBe(false)
    expect(resolved.explicit.has("maxRecoveryRetries")).toBe(false)
    expect(resolved.differences).toEqual(budgets(5))
  })

  test.each([
    ["maxRetries first", { maxRetries: 4, maxRecoveryRetries: 7 }],
    ["alias first", { maxRecoveryRetries: 7, maxRetries: 4 }],
  ])("next to maxRetries: maxRetries wins, one warning (%s)", (_order, raw) => {
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.options).toMatchObject(budgets(4))
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, "maxRecoveryRetries")[0]).toContain("old name of maxRetries, which is also set")
  })

  test("next to an invalid maxRetries: maxRetries still wins (the defaults), the older name is ignored", () => {
    const resolved = resolveOptions({ maxRetries: "x", maxRecoveryRetries: 7 }, NO_ENV)
    expect(resolved.options).toMatchObject(budgets(3))
    expect(warningsFor(resolved, "maxRetries")).toHaveLength(1)
    expect(warningsFor(resolved, "maxRecoveryRetries")).toHaveLength(1)
    expect(resolved.warnings).toHaveLength(2)
  })

  test("fills only what neither maxRetries nor a new option set", () => {
    const resolved = resolveOptions({ maxRecoveryRetries: 7, streamingFailureMaxPrompts: 1 }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options).toMatchObject({ ...budgets(7), streamingFailureMaxPrompts: 1 })
  })

  test("with every budget set itself: ignored, one warning that says why", () => {
    const resolved = resolveOptions({ ...budgets(2), maxRecoveryRetries: 7 }, NO_ENV)
    expect(resolved.options).toMatchObject(budgets(2))
    expect(warningsFor(resolved, "maxRecoveryRetries")).toEqual([
      'option "maxRecoveryRetries" ignored: every option it stands for is already set (stallEpisodeMaxContinues, streamingFailureMaxPrompts, finishedTurnMaxNudges and taskCompleteMaxRefusals)',
    ])
  })

  test("an invalid value alone: one warning naming it, defaults kept", () => {
    const resolved = resolveOptions({ maxRecoveryRetries: 2.5 }, NO_ENV)
    expect(resolved.options).toMatchObject(budgets(3))
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, "maxRecoveryRetries")[0]).toContain("for stallEpisodeMaxContinues")
    for (const name of BUDGETS) expect(resolved.explicit.has(name)).toBe(false)
  })

  test("a null alias next to maxRetries is not a conflict", () => {
    const resolved = resolveOptions({ maxRetries: 4, maxRecoveryRetries: null }, NO_ENV)
    expect(resolved.warnings).toEqual([])
  })

  test("it works inside a profile section too", () => {
    const resolved = resolveOptions({ defaultSlow: { maxRecoveryRetries: 8 } }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.defaultSlow).toEqual(budgets(8))
  })

  test("an invalid one inside a section: the override is skipped, with one warning", () => {
    const resolved = resolveOptions({ defaultSlow: { maxRecoveryRetries: -2 } }, NO_ENV)
    expect(warningsFor(resolved, "defaultSlow.maxRecoveryRetries")).toHaveLength(1)
    expect(resolved.warnings[0]).toContain("this override is skipped")
    expect(resolved.options.defaultSlow).toBeUndefined()
  })
})

describe("toolTextCheckDelayMs also sets the streaming-failure watchdog", () => {
  test("alone: both take its value", () => {
    const resolved = resolveOptions({ toolTextCheckDelayMs: 0 }, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.toolTextCheckDelayMs).toBe(0)
    expect(resolved.options.streamingFailureWatchdogMs).toBe(0)
    expect(resolved.explicit.has("streamingFailureWatchdogMs")).toBe(true)
  })

  test.each([
    ["watchdog first", { streamingFailureWatchdogMs: 9_000, toolTextCheckDelayMs: 500 }],
    ["text check first", { toolTextCheckDelayMs: 500, streamingFailureWatchdogMs: 9_000 }],
  ])("an explicit streamingFailureWatchdogMs wins, with no warning (%s)", (_order, raw) => {
    const resolved = resolveOptions(raw, NO_ENV)
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.toolTextCheckDelayMs).toBe(500)
    expect(resolved.options.streamingFailureWatchdogMs).toBe(9_000)
  })

  test("a bad toolTextCheckDelayMs: one warning, both keep their defaults", () => {
    const resolved = resolveOptions({ toolTextCheckDelayMs: -1 }, NO_ENV)
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, "toolTextCheckDelayMs")).toHaveLength(1)
    expect(resolved.options.toolTextCheckDelayMs).toBe(3_000)
    expect(resolved.options.streamingFailureWatchdogMs).toBe(3_000)
  })

  test("inside a section it sets the watchdog there", () => {
    const resolved = resolveOptions({ modelProfiles: { ollama: { toolTextCheckDelayMs: 200 } } }, NO_ENV)
    expect(effectiveOptions(resolved, "ollama").streamingFailureWatchdogMs).toBe(200)
    expect(effectiveOptions(resolved, "openai").streamingFailureWatchdogMs).toBe(3_000)
  })
})

test("every split option is in the table with a default", () => {
  for (const name of SPLIT) expect(OPTION_SPECS[name].default).toBeDefined()
})
