import { describe, expect, test } from "bun:test"
import {
  decideSaturation,
  hasMagicContext,
  isMagicContextSpec,
  OUTPUT_RESERVE_CAP,
  saturationRatio,
  usableContext,
  usedTokens,
  type SaturationInput,
} from "../../../src/core/saturation.ts"

describe("usable context", () => {
  test.each<[{ context: number; output?: number } | undefined, number | undefined]>([
    [{ context: 128_000, output: 4_096 }, 123_904],
    [{ context: 200_000, output: 64_000 }, 180_000], // reserve capped at 20k
    [{ context: 200_000, output: 20_000 }, 180_000],
    [{ context: 100_000 }, 80_000], // unknown output reserves the full 20k
    [{ context: 100_000, output: 0 }, 80_000],
    [{ context: 100_000, output: Number.NaN }, 80_000],
    [{ context: 0, output: 4_096 }, undefined],
    [{ context: Number.NaN, output: 1 }, undefined],
    [{ context: 15_000, output: 32_000 }, undefined], // nothing usable left
    [undefined, undefined],
  ])("%j -> %p", (limit, expected) => {
    expect(usableContext(limit)).toBe(expected as never)
  })
  test("the reserve cap is 20k", () => expect(OUTPUT_RESERVE_CAP).toBe(20_000))
})

describe("used tokens and ratio", () => {
  test("total wins; otherwise every part that occupies the window", () => {
    expect(usedTokens({ total: 500, input: 1 })).toBe(500)
    expect(usedTokens({ input: 100, output: 20, reasoning: 5, cacheRead: 1_000, cacheWrite: 3 })).toBe(1_128)
    expect(usedTokens({ input: -5, output: Number.NaN })).toBe(0)
  })
  test("ratio against the usable window; unknown limits give undefined", () => {
    expect(saturationRatio(90_000, { context: 120_000, output: 20_000 })).toBe(0.9)
    expect(saturationRatio(90_000, { context: 0 })).toBeUndefined()
    expect(saturationRatio(Number.NaN, { context: 120_000 })).toBeUndefined()
    expect(saturationRatio(-1, { context: 120_000 })).toBeUndefined()
  })
})

const base: SaturationInput = {
  ratio: 0.9,
  threshold: 0.85,
  isSubagent: false,
  magicContextLoaded: true,
  subagentNativeCompactionEnabled: false,
  alreadyIntervenedThisBusyCycle: false,
  cancelled: false,
  completed: false,
  limitsKnown: true,
}

describe("decideSaturation", () => {
  test.each<[string, Partial<SaturationInput>, string]>([
    ["saturated parent with magic-context -> ctx-wrapup", {}, "ctx-wrapup"],
    ["exactly at the threshold counts", { ratio: 0.85 }, "ctx-wrapup"],
    ["just under the threshold", { ratio: 0.8499 }, "none"],
    ["parent without magic-context: native compaction (then one continue, context-window.ts)", { magicContextLoaded: false }, "compact"],
    ["subagent with native compaction on", { isSubagent: true, subagentNativeCompactionEnabled: true }, "compact"],
    ["subagent with native compaction off", { isSubagent: true }, "none"],
    ["subagent: magic-context is not needed", { isSubagent: true, subagentNativeCompactionEnabled: true, magicContextLoaded: false }, "compact"],
    ["subagent never gets ctx-wrapup", { isSubagent: true, magicContextLoaded: true }, "none"],
    ["parent with magic-context never gets native compaction", { subagentNativeCompactionEnabled: true, magicContextLoaded: true }, "ctx-wrapup"],
    ["limits unknown", { limitsKnown: false }, "none"],
    ["no ratio", { ratio: undefined }, "none"],
    ["NaN ratio", { ratio: Number.NaN }, "none"],
    ["cancelled by the user", { cancelled: true }, "none"],
    ["completed", { completed: true }, "none"],
    ["already intervened this busy cycle", { alreadyIntervenedThisBusyCycle: true }, "none"],
    ["subagent already compacted this cycle", { isSubagent: true, subagentNativeCompactionEnabled: true, alreadyIntervenedThisBusyCycle: true }, "none"],
  ])("%s", (_name, patch, expected) => {
    const effect = decideSaturation({ ...base, ...patch })
    expect(effect.kind === "command" ? effect.name : effect.kind).toBe(expected as never)
  })

  test("every decision carries a reason", () => {
    expect(decideSaturation(base).reason).toContain("90%")
    expect(decideSaturation({ ...base, limitsKnown: false }).reason).toContain("unknown")
    expect(decideSaturation({ ...base, magicContextLoaded: false }).reason).toContain("magic-context")
  })
})

describe("magic-context detection", () => {
  test.each([
    "opencode-magic-context",
    "opencode-magic-context@1.2.3",
    "opencode-magic-context@latest",
    "magic-context",
    "@acme/magic-context",
    "@acme/opencode-magic-context@0.4.0",
    "npm:opencode-magic-context",
    "file:///home/me/plugins/magic-context/index.ts",
    "file:///home/me/plugins/opencode-magic-context.js",
    "/abs/path/magic-context.ts",
    "C:\\plugins\\magic-context\\dist\\index.js",
    "github:someone/opencode-magic-context",
    "git+https://example.invalid/someone/opencode-magic-context.git#main",
    "OPENCODE-MAGIC-CONTEXT",
    "magic-context-plugin",
  ])("%s is magic-context", (spec) => {
    expect(isMagicContextSpec(spec)).toBe(true)
  })

  test.each([
    "magic-contextual",
    "not-magic-context",
    "magic-context-lite",
    "opencode-context",
    "@magic/context",
    "opencode-auto-resume",
    "file:///home/me/magic-context-notes/other-plugin.ts",
    "",
  ])("%s is not (negative control)", (spec) => {
    expect(isMagicContextSpec(spec)).toBe(false)
  })

  test("plugin lists: strings, [spec, options] tuples, v2 info objects; anything else is false", () => {
    expect(hasMagicContext(["opencode-foo", ["opencode-magic-context@1", { a: 1 }]])).toBe(true)
    expect(hasMagicContext(["opencode-magic-context"])).toBe(true)
    expect(hasMagicContext([{ id: "x", source: { type: "package", name: "@acme/magic-context" } }])).toBe(true)
    expect(hasMagicContext(["opencode-foo", ["opencode-bar", {}]])).toBe(false)
    expect(hasMagicContext([{ id: "x", source: { type: "builtin" } }])).toBe(false)
    expect(hasMagicContext(undefined)).toBe(false)
    expect(hasMagicContext("opencode-magic-context")).toBe(false)
    expect(hasMagicContext([null, 3, [], [5]])).toBe(false)
  })
})
