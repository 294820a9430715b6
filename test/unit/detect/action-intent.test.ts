import { describe, expect, test } from "bun:test"
import { hasActionIntent } from "../../../src/detect/action-intent.ts"

describe("action intent", () => {
  test.each([
    ["announces an edit", "The bug is in the loader.\nNext, I'll update the config:"],
    ["let me", "Let me run the tests:"],
    ["trailing spaces and blank lines", "Now I will fix the import:  \n\n"],
    ["bold", "**Next steps:**"],
    ["non-English", "Jetzt passe ich die Datei an:"],
  ])("announces: %s", (_name, text) => {
    expect(hasActionIntent(text)).toBe(true)
  })

  test.each([
    ["ends with a code block", "Here is the fix:\n```ts\nconst x = 1\n```"],
    ["ends with a full stop", "I updated the config."],
    ["colon mid-line", "Note: the config is fine now."],
    ["a one-word label", "Summary:"],
    ["too short", "Do:"],
    ["a cut URL", "See https:"],
    ["a time", "12:"],
    ["a line too long to be one announcement", "word ".repeat(200) + ":"],
    ["empty", ""],
  ])("does not announce: %s", (_name, text) => {
    expect(hasActionIntent(text)).toBe(false)
  })
})

describe("action intent in Chinese and Japanese, and what it is not (issue 18)", () => {
  test.each([
    ["Chinese with a full-width colon", "接下来我会更新配置："],
    ["Japanese with a full-width colon", "次に設定を更新します："],
  ])("intent: %s", (_name, text) => {
    expect(hasActionIntent(text)).toBe(true)
  })

  test.each([
    ["an emoji short code", "Done :tada:"],
    ["another short code", "Shipped the release :rocket:"],
    ["a Chinese heading", "总结："],
    ["a Japanese heading", "まとめ："],
  ])("no intent: %s", (_name, text) => {
    expect(hasActionIntent(text)).toBe(false)
  })
})
