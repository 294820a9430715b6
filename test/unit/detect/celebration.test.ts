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
  ])("does not latch: %s", (_name, text) => {
    expect(endsWithCelebration(text)).toBe(false)
  })
})

describe("🎉 as models end with it (issue 18)", () => {
  test.each([
    ["followed by another emoji", "Shipped 🎉🚀"],
    ["inside bold", "**All done 🎉**"],
    ["inside brackets", "The release is out (🎉)"],
    ["before a full-width exclamation mark", "全部测试通过了🎉！"],
    ["before a sign-off line", "Everything is green 🎉\n\nHappy coding!"],
    ["as a short code", "Done :tada:"],
    ["before more blank space than the scanned window", "Done 🎉" + " ".repeat(20_000)],
  ])("celebration: %s", (_name, text) => {
    expect(endsWithCelebration(text)).toBe(true)
  })

  test.each([
    ["🎉 at the start", "🎉 Good news: the flaky test was a timezone bug, pinned TZ=UTC."],
    ["a real sentence after it", "Shipped 🎉\nNext I will clean up the old flags in the loader."],
    ["a long tail of emoji past the bound", `Shipped 🎉${"🚀".repeat(30)}`],
  ])("no celebration: %s", (_name, text) => {
    expect(endsWithCelebration(text)).toBe(false)
  })
})
