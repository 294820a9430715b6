import { describe, expect, test } from "bun:test"
import { asksUser } from "../../../src/detect/asks-user.ts"

// The judge's question check is part of the hand-off check (asks-user.ts) since issue 18.
const endsWithQuestion = (text: string) => asksUser(text)?.kind === "question"

describe("reply ends with a question", () => {
  test.each([
    ["plain", "Which database should I use?"],
    ["with trailing emphasis", "**Should I continue?**"],
    ["with trailing blank lines", "Shall I proceed?\n\n"],
    ["full-width", "続けますか？"],
  ])("question: %s", (_name, text) => {
    expect(endsWithQuestion(text)).toBe(true)
  })

  test.each([
    ["question earlier", "Why did it fail? The import was wrong. Fixed."],
    ["statement", "Done."],
    ["empty", ""],
    ["ends with a code fence", "What about this?\n```\nx\n```"],
  ])("no question: %s", (_name, text) => {
    expect(endsWithQuestion(text)).toBe(false)
  })
})
