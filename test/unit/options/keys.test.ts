/** Unknown keys, the environment, and the explicit/differences bookkeeping. */
import { describe, expect, test } from "bun:test"
import { ENV_OVERRIDES, OPTION_DEFAULTS, OPTION_DOCS, resolveOptions } from "../../../src/options/index.ts"
import { nearestName } from "../../../src/options/suggest.ts"
import { NO_ENV, warningsFor } from "./helpers.ts"

describe("unknown keys", () => {
  type Case = [typo: string, suggestion: string | undefined]
  const CASES: Case[] = [
    ["chunkTimeoutMS", "chunkTimeoutMs"],
    ["chunktimeoutms", "chunkTimeoutMs"],
    ["chunkTimeout", "chunkTimeoutMs"],
    ["maxretries", "maxRetries"],
    ["maxRetry", "maxRetries"],
    ["debgu", "debug"],
    ["defaultSlw", "defaultSlow"],
    ["modelProfile", "modelProfiles"],
    ["visibleContinues", "visibleContinue"],
    ["maxRecoveryRetry", "maxRecoveryRetries"],
    // Far from every name: no suggestion at all.
    ["totallyUnrelatedSetting", undefined],
    ["xyz", undefined],
    ["timeout", undefined],
    ["", undefined],
  ]
  test.each(CASES)("%p", (typo, suggestion) => {
    const resolved = resolveOptions({ [typo]: 1, stallEpisodeMaxContinues: 4 }, NO_ENV)
    expect(resolved.warnings).toHaveLength(1)
    const [line] = resolved.warnings
    expect(line).toStartWith(`unknown option "${typo}" ignored`)
    if (suggestion === undefined) expect(line).not.toContain("did you mean")
    else expect(line).toEndWith(`did you mean "${suggestion}"?`)
    expect(resolved.options.stallEpisodeMaxContinues).toBe(4)
    expect(resolved.explicit.has(typo)).toBe(false)
    expect(typo in resolved.options).toBe(false)
  })

  test("inside a section the suggestion carries the section path", () => {
    const resolved = resolveOptions({ defaultSlow: { chunkTimeotMs: 1 } }, NO_ENV)
    expect(resolved.warnings).toEqual([
      'unknown option "defaultSlow.chunkTimeotMs" ignored; did you mean "defaultSlow.chunkTimeoutMs"?',
    ])
  })

  test("the distance limit grows with the names: max(2, longer length / 3)", () => {
    expect(nearestName("ab", ["abcd"])).toBe("abcd") // 2 edits, floor 2
    expect(nearestName("ab", ["abcde"])).toBeUndefined() // 3 edits
    expect(nearestName("abcdefghijkl", ["abcdefghiXYZ"])).toBe("abcdefghiXYZ") // 3 edits, limit 4
    expect(nearestName("abcdefghijkl", ["abcdefgXYZWV"])).toBeUndefined() // 5 edits
  })
})

describe("profile sections", () => {
  test("bad and unknown keys inside are warned with their path; valid ones kept", () => {
    const resolved = resolveOptions(
      { defaultSlow: { chunkTimeoutMs: -1, gracePeriodMs: 10, bogusKey: 1, defaultFast: {} } },
      NO_ENV,
    )
    expect(resolved.options.defaultSlow).toEqual({ gracePeriodMs: 10 })
    expect(warningsFor(resolved, "defaultSlow.chunkTimeoutMs")).toHaveLength(1)
    expect(warningsFor(resolved, "defaultSlow.chunkTimeoutMs")[0]).toContain("this override is skipped")
    expect(warningsFor(resolved, "defaultSlow.bogusKey")).toHaveLength(1)
    expect(warningsFor(resolved, "defaultSlow.defaultFast")[0]).toContain("cannot be nested")
    expect(resolved.warnings).toHaveLength(3)
  })

  test("plugin-wide options cannot be overridden per profile", () => {
    const resolved = resolveOptions({ modelProfiles: { ollama: { debug: true, checkIntervalMs: 10 } } }, NO_ENV)
    expect(resolved.options.modelProfiles).toBeUndefined()
    expect(warningsFor(resolved, "modelProfiles.ollama.debug")[0]).toContain("applies to the whole plugin")
    expect(warningsFor(resolved, "modelProfiles.ollama.checkIntervalMs")).toHaveLength(1)
  })

  test.each([
    ["defaultFast", 5],
    ["defaultSlow", [1]],
    ["modelProfiles", "ollama"],
  ])("%s must be an object", (key, value) => {
    const resolved = resolveOptions({ [key]: value }, NO_ENV)
    expect(resolved.warnings).toHaveLength(1)
    expect(warningsFor(resolved, key)[0]).toContain("expected an object")
    expect(resolved.explicit.has(key)).toBe(false)
  })

  test("each provider entry must be an object; duplicates in another case are refused", () => {
    const resolved = resolveOptions(
      { modelProfiles: { ollama: 3, VLLM: { loopMaxContinues: 7 }, Vllm: { loopMaxContinues: 1 }, " ": {} } },
      NO_ENV,
    )
    expect(resolved.options.modelProfiles).toEqual({ VLLM: { loopMaxContinues: 7 } })
    expect(warningsFor(resolved, "modelProfiles.ollama")).toHaveLength(1)
    expect(warningsFor(resolved, "modelProfiles.Vllm")[0]).toContain('"VLLM" is already configured')
    expect(warningsFor(resolved, "modelProfiles. ")[0]).toContain("blank")
    expect(resolved.warnings).toHaveLength(3)
  })

  test("a section with nothing valid is dropped and not explicit", () => {
    const resolved = resolveOptions({ defaultFast: { chunkTimeoutMs: "x" } }, NO_ENV)
    expect(resolved.options.defaultFast).toBeUndefined()
    expect(resolved.explicit.has("defaultFast")).toBe(false)
  })

  test("valid sections are kept silently and are explicit", () => {
    const resolved = resolveOptions(
      { defaultFast: { chunkTimeoutMs: 60_000 }, modelProfiles: { "llama-server": { lifetimeMaxContinues: 30 } } },
      NO_ENV,
    )
    expect(resolved.warnings).toEqual([])
    expect(resolved.explicit.has("defaultFast")).toBe(true)
    expect(resolved.explicit.has("modelProfiles")).toBe(true)
  })
})

describe("environment", () => {
  const VISIBLE = "AUTO_RESUME_VISIBLE_CONTINUE"

  test.each([
    ["0", false],
    ["false", false],
    ["OFF", false],
    [" no ", false],
    ["1", true],
    ["TRUE", true],
    ["on", true],
    ["Yes\n", true],
  ])("%p sets visibleContinue to %p when the option is not given", (text, expected) => {
    const resolved = resolveOptions({}, { [VISIBLE]: text })
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.visibleContinue).toBe(expected)
    expect(resolved.explicit.has("visibleContinue")).toBe(false)
  })

  test.each(["maybe", "2", "disabled", "NaN"])("%p is warned about once and ignored", (text) => {
    const resolved = resolveOptions({}, { [VISIBLE]: text })
    expect(resolved.options.visibleContinue).toBe(true)
    expect(resolved.warnings).toHaveLength(1)
    expect(resolved.warnings[0]).toContain(VISIBLE)
    expect(resolved.warnings[0]).toContain(JSON.stringify(text))
  })

  test.each(["", "   "])("an empty variable (%p) counts as unset", (text) => {
    const resolved = resolveOptions({}, { [VISIBLE]: text })
    expect(resolved.warnings).toEqual([])
    expect(resolved.options.visibleContinue).toBe(true)
  })

  test("an explicit option beats the environment, even garbage in it", () => {
    expect(resolveOptions({ visibleContinue: true }, { [VISIBLE]: "0" }).options.visibleContinue).toBe(true)
    const resolved = resolveOptions({ visibleContinue: false }, { [VISIBLE]: "maybe" })
    expect(resolved.options.visibleContinue).toBe(false)
    expect(resolved.warnings).toEqual([])
  })

  test("an invalid explicit option does not block the environment", () => {
    const resolved = resolveOptions({ visibleContinue: "no" }, { [VISIBLE]: "0" })
    expect(resolved.options.visibleContinue).toBe(false)
    expect(resolved.warnings).toHaveLength(1)
  })

  test("AUTO_RESUME_DEBUG sets debug the same way", () => {
    expect(resolveOptions({}, { AUTO_RESUME_DEBUG: "1" }).options.debug).toBe(true)
    expect(resolveOptions({ debug: false }, { AUTO_RESUME_DEBUG: "1" }).options.debug).toBe(false)
    expect(resolveOptions({}, { AUTO_RESUME_DEBUG: "abc" }).options.debug).toBe(false)
  })

  test("unrelated variables and a missing env are ignored", () => {
    expect(resolveOptions({}, { AUTO_RESUME_CHUNK: "abc", PATH: "/bin" }).warnings).toEqual([])
    expect(resolveOptions({}, undefined as unknown as Record<string, string>).warnings).toEqual([])
  })

  test("the env table and the docs agree, and every row targets a real option", () => {
    for (const row of ENV_OVERRIDES) {
      expect(row.option in OPTION_DEFAULTS).toBe(true)
      expect(OPTION_DOCS.find((doc) => doc.name === row.option)?.env).toBe(row.variable)
    }
    expect(OPTION_DOCS.filter((doc) => doc.env !== undefined)).toHaveLength(ENV_OVERRIDES.length)
  })
})

describe("explicit and differences", () => {
  test("a value equal to the default is explicit but not a difference", () => {
    const resolved = resolveOptions({ chunkTimeoutMs: 180_000 }, NO_ENV)
    expect([...resolved.explicit]).toEqual(["chunkTimeoutMs"])
    expect(resolved.differences).toEqual({})
  })

  test("differences list every changed key, from config and environment", () => {
    const resolved = resolveOptions(
      { chunkTimeoutMs: 1_000, continuePrompt: "go", stopPatterns: ["x"], neverInterruptTools: ["compress"], defaultSlow: { loopMaxContinues: 9 } },
      { AUTO_RESUME_VISIBLE_CONTINUE: "0" },
    )
    expect(resolved.differences).toEqual({
      chunkTimeoutMs: 1_000,
      continuePrompt: "go",
      stopPatterns: ["x"],
      visibleContinue: false,
      defaultSlow: { loopMaxContinues: 9 },
    })
    expect([...resolved.explicit].sort()).toEqual(
      ["chunkTimeoutMs", "continuePrompt", "defaultSlow", "neverInterruptTools", "stopPatterns"].sort(),
    )
  })

  test("no options: no differences", () => {
    expect(resolveOptions(undefined, NO_ENV).differences).toEqual({})
  })
})
