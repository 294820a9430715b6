import { describe, expect, test } from "bun:test"
import { MAX_SCANNED_TEXT } from "../../../src/core/transcript.ts"
import { isDecorativeLine, lastNonBlankLines, messageTail, proseTail, stripInlineCode, trimEndDecoration } from "../../../src/detect/text.ts"
import { assistant } from "../../fixtures/transcript-builders.ts"

describe("bounded text helpers", () => {
  test("lastNonBlankLines: newest lines, oldest first, trimmed, blank ones skipped", () => {
    expect(lastNonBlankLines("a\n\n  b  \n\t\nc\n\n", 2)).toEqual(["b", "c"])
    expect(lastNonBlankLines("only", 3)).toEqual(["only"])
    expect(lastNonBlankLines("\n \n", 3)).toEqual([])
    // A cut line keeps its end and is marked, so ^-anchored patterns cannot match it.
    expect(lastNonBlankLines("x".repeat(1000), 1, 10)).toEqual(["\u2026" + "x".repeat(10)])
    expect(lastNonBlankLines("all" + " ".repeat(MAX_SCANNED_TEXT) + "done", 1)).toEqual(["\u2026done"])
  })

  test("trimEndDecoration keeps question marks and removes trailing punctuation, emphasis and emoji", () => {
    expect(trimEndDecoration("Stopping here.** 🎉 ")).toBe("Stopping here")
    expect(trimEndDecoration("Ready?!")).toBe("Ready?")
    expect(trimEndDecoration("")).toBe("")
    expect(trimEndDecoration("👍")).toBe("")
  })

  test("isDecorativeLine", () => {
    expect(isDecorativeLine("--- ✅ ***")).toBe(true)
    expect(isDecorativeLine("| --- |")).toBe(true)
    expect(isDecorativeLine("ok")).toBe(false)
    expect(isDecorativeLine("```")).toBe(false)
  })

  test("stripInlineCode pairs runs of equal length and leaves lone backticks", () => {
    expect(stripInlineCode("a `x` b")).toBe("a   b")
    expect(stripInlineCode("a ``x ` y`` b")).toBe("a   b")
    expect(stripInlineCode("a ` b")).toBe("a ` b")
    expect(stripInlineCode("`a` `b`")).toBe("   ")
  })

  test("proseTail removes fenced blocks (``` and ~~~) and honours fence length", () => {
    expect(proseTail("a\n```js\ncode\n```\nb")).not.toContain("code")
    expect(proseTail("a\n~~~\ncode\n~~~\nb")).not.toContain("code")
    expect(proseTail("````\n```\ninner\n```\n````\nafter").trim()).toBe("after")
    expect(proseTail("   ```\nindented fence\n   ```\nok")).not.toContain("indented")
    expect(proseTail("    ```\nfour spaces is not a fence")).toContain("four spaces")
    expect(proseTail("x ```not a fence``` y")).not.toContain("not a fence")
  })

  test("proseTail treats an unclosed fence as code to the end", () => {
    expect(proseTail("before\n```\nafter")).toBe("before\n")
  })

  test("messageTail reads parts of one kind from the end, bounded", () => {
    const big = "y".repeat(MAX_SCANNED_TEXT * 3)
    const m = assistant([
      { kind: "text", text: "first" },
      { kind: "reasoning", text: "thinking" },
      { kind: "text", text: big },
    ])
    // Cut to the window and marked as cut.
    expect(messageTail(m, "text")).toBe("\u2026" + "y".repeat(MAX_SCANNED_TEXT))
    expect(messageTail(m, "reasoning")).toBe("thinking")
    expect(messageTail(assistant([{ kind: "text", text: "a" }, { kind: "text", text: "b" }]), "text")).toBe("a\nb")
    expect(messageTail(undefined, "text")).toBe("")
  })
})
