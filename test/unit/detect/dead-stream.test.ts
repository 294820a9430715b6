import { describe, expect, test } from "bun:test"
import { MAX_SCANNED_TEXT, type TranscriptMessage } from "../../../src/core/transcript.ts"
import { silentDeadStream } from "../../../src/detect/dead-stream.ts"
import { assistant, said, thought, tool } from "../../fixtures/transcript-builders.ts"

const MIN = 200

function check(message: TranscriptMessage | undefined, toolsInFlightAtIdle = 0, minTokens = MIN) {
  return silentDeadStream({ message, minTokens, toolsInFlightAtIdle })
}

describe("silent dead stream", () => {
  test.each([
    ["reasoning only, finish unknown", thought("thinking hard…", undefined, { finish: "unknown", outputTokens: 300 })],
    ["reasoning only, finish stop", thought("…", undefined, { finish: "stop", outputTokens: 250 })],
    ["finish length", thought("…", undefined, { finish: "length", outputTokens: 4000 })],
    ["no parts at all", assistant([], { finish: "stop", outputTokens: 200 })],
    ["reasoning tokens count with output tokens", thought("…", undefined, { outputTokens: 50, reasoningTokens: 150 })],
    ["an empty text part is no text", assistant([{ kind: "text", text: "  \n " }], { outputTokens: 300 })],
    ["a host-injected text part is not the model's", assistant([{ kind: "text", text: "note", synthetic: true }], { outputTokens: 300 })],
  ])("recovers: %s", (_name, message) => {
    expect(check(message)).toBeDefined()
  })

  test("trailing blank space never hides the words before it, however long", () => {
    const blankTail = assistant([{ kind: "text", text: "words" + " ".repeat(MAX_SCANNED_TEXT) }], { outputTokens: 300 })
    expect(check(blankTail)).toBeUndefined()
    // Control: blank space alone, as long, shows nothing.
    expect(check(assistant([{ kind: "text", text: " ".repeat(MAX_SCANNED_TEXT * 2) }], { outputTokens: 300 }))).toBeDefined()
    const visibleTail = assistant([{ kind: "text", text: " ".repeat(MAX_SCANNED_TEXT * 2) + "x" }], { outputTokens: 300 })
    expect(check(visibleTail)).toBeUndefined()
  })

  test("reports the finish reason and tokens", () => {
    expect(check(thought("…", undefined, { finish: "unknown", outputTokens: 250, reasoningTokens: 50 }))).toEqual({ finish: "unknown", tokens: 300 })
  })

  test.each([
    ["it said something", said("Here is the answer.", { outputTokens: 300 })],
    ["it made a tool call", assistant([{ kind: "reasoning", text: "…" }, tool("read", "completed")], { outputTokens: 300, finish: "tool-calls" })],
    ["a tool call that failed is still work", assistant([tool("read", "error")], { outputTokens: 300 })],
    ["a pending tool call is still work", assistant([tool("question", "pending")], { outputTokens: 300 })],
    ["not finished", thought("…", undefined, { finish: undefined, outputTokens: 300 })],
    ["empty finish", thought("…", undefined, { finish: "", outputTokens: 300 })],
    ["below the token floor", thought("…", undefined, { outputTokens: 199 })],
    ["no token counts", thought("…", undefined, { outputTokens: undefined })],
    ["nonsense token counts", thought("…", undefined, { outputTokens: Number.NaN, reasoningTokens: -500 })],
    ["ended in an error (ESC)", thought("…", undefined, { outputTokens: 300, errorName: "MessageAbortedError" })],
    ["a user message", { id: "u", role: "user", parts: [], finish: "stop", outputTokens: 900 } as TranscriptMessage],
    ["no message", undefined],
  ])("leaves alone: %s", (_name, message) => {
    expect(check(message as TranscriptMessage | undefined)).toBeUndefined()
  })

  test("tools in flight at the idle transition veto the recovery", () => {
    const message = thought("…", undefined, { outputTokens: 300 })
    expect(check(message, 1)).toBeUndefined()
    expect(check(message, 0)).toBeDefined()
  })

  test("the token floor is the option, and 0 means any textless finished turn", () => {
    const message = thought("…", undefined, { outputTokens: 10 })
    expect(check(message, 0, 200)).toBeUndefined()
    expect(check(message, 0, 10)).toBeDefined()
    expect(check(assistant([], { outputTokens: 0 }), 0, 0)).toBeDefined()
  })
})

describe("text that shows nothing (issue 18)", () => {
  const withText = (text: string) => said(text, { outputTokens: 300 })

  test.each([
    ["only zero-width characters", "\u200b\u200c\u200d\u2060"],
    ["a lone full stop", " .\n"],
    ["a lone ideographic full stop", "。"],
    ["an unclosed <think> leaked into the text", "<think>\nThe user wants the parser fixed. I should read"],
    ["a closed <think> and nothing after it", "<think>plan the change</think>\n\n"],
  ])("dead: %s", (_name, text) => {
    expect(check(withText(text))).toBeDefined()
  })

  test.each([
    ["a one-word answer", "Yes."],
    ["a number", "42"],
    ["an answer after a closed <think>", "<think>plan</think>\nThe loop was off by one."],
    ["prose that mentions <think>", "I looked at <think> tags: the parser strips them now."],
    ["two full stops around a word", ". ok ."],
  ])("alive: %s", (_name, text) => {
    expect(check(withText(text))).toBeUndefined()
  })

  test("negative control: the same blank text under silentDeadStreamMinTokens is left alone", () => {
    expect(check(said("\u200b", { outputTokens: 50 }))).toBeUndefined()
  })
})
