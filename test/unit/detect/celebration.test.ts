import { describe, expect, test } from "bun:test"
import { endsWithCelebration } from "../../../src/detect/celebration.ts"

describe("🎉 ending", () => {
  test.each([
    ["bare", "🎉"],
    ["after a sentence", "All tests pass. 🎉"],
    ["followed by spaces and newlines", "Shipped! 🎉 \n\n"],
    ["followed by punctuation", "Done 🎉!"],
    ["several", "🎉🎉🎉"],
    ["with a presentation selector", "Done \u{1F389}\ufe0f"],
    ["after a long run of trailing whitespace", "Done 🎉" + " ".repeat(10_000)],
  ])("latches: %s", (_name, text) => {
    expect(endsWithCelebration(text)).toBe(true)
  })

  test.each([
    ["in the middle", "🎉 Great, the first part works. Now the second part."],
    ["another emoji", "All done ✅"],
    ["a similar emoji", "Party 🎊"],
    ["plain text", "Done."],
    ["empty", ""],
    ["followed by a word", "🎉 yay"],
    ["inside a closing code fence", "```\n🎉\n```"],
    ["trailing whitespace longer than the scanned window (documented cap)", "Done 🎉" + " ".repeat(20_000)],
  ])("does not latch: %s", (_name, text) => {
    expect(endsWithCelebration(text)).toBe(false)
  })
})
