import { describe, expect, test } from "bun:test"
import { MAX_LISTED_TODOS, MAX_TODO_TEXT } from "../../../src/prompts/nudges.ts"
import { todoReminderPrompt } from "../../../src/paths/judge/prompts.ts"
import { closedList, openList } from "../../fixtures/transcript-builders.ts"

describe("open-todos reminder", () => {
  test("names each open item, numbered, with its status, in list order", () => {
    const text = todoReminderPrompt(openList, {})
    expect(text).toContain("2 open items")
    expect(text).toContain("1. [pending] Verify the plugin loads")
    expect(text).toContain("2. [in_progress] Write the README section")
    expect(text).not.toContain("Set up the repo")
  })

  test("one open item reads in the singular", () => {
    const text = todoReminderPrompt([{ content: "Only this", status: "pending" }], {})
    expect(text).toContain("1 open item:")
    expect(text).toContain("1. [pending] Only this")
  })

  test.each([
    ["every item closed", closedList],
    ["an empty list", []],
    ["not a list", "none"],
    ["unreadable", "unreadable"],
    ["undefined", undefined],
    ["malformed items only", [null, 3, { content: 5, status: "pending" }]],
  ])("falls back to a plain continue: %s", (_name, todos) => {
    expect(todoReminderPrompt(todos, {})).toBe("continue")
    expect(todoReminderPrompt(todos, { continuePrompt: "keep going" })).toBe("keep going")
  })

  test("malformed items are skipped, good ones listed", () => {
    expect(todoReminderPrompt([null, { content: "real", status: "pending" }], {})).toContain("1. [pending] real")
  })

  test("item text is flattened to one line and bounded; long lists are summarised", () => {
    const long = "x".repeat(MAX_TODO_TEXT * 10)
    const text = todoReminderPrompt([{ content: `multi\nline\ttext ${long}`, status: "pending" }], {})
    expect(text).toContain("1. [pending] multi line text")
    expect(text.length).toBeLessThan(MAX_TODO_TEXT + 300)
    const many = Array.from({ length: MAX_LISTED_TODOS + 5 }, (_, i) => ({ content: `item ${i + 1}`, status: "pending" }))
    const summary = todoReminderPrompt(many, {})
    expect(summary).toContain(`${MAX_LISTED_TODOS}. [pending] item ${MAX_LISTED_TODOS}`)
    expect(summary).not.toContain(`item ${MAX_LISTED_TODOS + 1}`)
    expect(summary).toContain("and 5 more open items")
  })
})
