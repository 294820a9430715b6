import { describe, expect, test } from "bun:test"
import {
  hasMagicContext,
  isMagicContextSpec,
  OUTPUT_RESERVE_CAP,
  saturationRatio,
  usableContext,
  usedTokens,
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
