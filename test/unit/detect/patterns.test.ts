import { describe, expect, test } from "bun:test"
import { anyMatches, compilePatterns } from "../../../src/detect/patterns.ts"

describe("compiling user patterns", () => {
  test("compiles once per list and flag set", () => {
    const list = ["a+b", "^x$"]
    const first = compilePatterns(list, "im")
    expect(first).toHaveLength(2)
    expect(compilePatterns(list, "im")).toBe(first!)
    expect(compilePatterns(list, "i")).not.toBe(first!)
  })

  test("drops blank, non-string and invalid entries; nothing usable means undefined", () => {
    expect(compilePatterns(["(", "", "  ", 42 as unknown as string], "i")).toBeUndefined()
    expect(compilePatterns([], "i")).toBeUndefined()
    expect(compilePatterns(undefined, "i")).toBeUndefined()
    expect(compilePatterns(["(", "ok"], "i")).toHaveLength(1)
  })

  test("stateful flags are never used, so the same text always gives the same answer", () => {
    const [pattern] = compilePatterns(["done"], "gi")!
    expect(pattern!.flags).toBe("i")
    expect(anyMatches([pattern!], "done")).toBe(true)
    expect(anyMatches([pattern!], "done")).toBe(true)
  })

  test("a pattern that throws while matching is ignored", () => {
    const hostile = { test: () => { throw new Error("boom") }, lastIndex: 0 } as unknown as RegExp
    expect(anyMatches([hostile, /ok/], "ok")).toBe(true)
    expect(anyMatches([hostile], "ok")).toBe(false)
  })
})
