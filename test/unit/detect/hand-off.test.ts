import { describe, expect, test } from "bun:test"
import { matchedStopPattern, openUserRequest } from "../../../src/detect/hand-off.ts"
import { assistant, said, tool, user } from "../../fixtures/transcript-builders.ts"

describe("open question or permission", () => {
  test.each([
    ["a pending tool part of any kind", assistant([tool("bash", "pending")])],
    ["a pending question", assistant([{ kind: "text", text: "I need to know." }, tool("question", "pending")])],
    ["a running question tool", assistant([tool("question", "running")])],
    ["a running ask_user tool, any case", assistant([tool("Ask_User", "running")])],
  ])("open: %s", (_name, message) => {
    expect(openUserRequest(message)?.kind).toBe("open-question")
  })

  test.each([
    ["a completed question", assistant([tool("question", "completed")])],
    ["a failed question", assistant([tool("question", "error")])],
    ["a running ordinary tool", assistant([tool("bash", "running")])],
    ["text only", said("What next?")],
    ["a user message", user("hi")],
    ["nothing", undefined],
  ])("not open: %s", (_name, message) => {
    expect(openUserRequest(message)).toBeUndefined()
  })
})

describe("stopPatterns", () => {
  const patterns = ["STOP:\\s*(BLOCKED|NEEDS_DECISION)\\b"]

  test("a protocol line anywhere in the newest text matches (multi-line)", () => {
    const message = said("I cannot pick the schema myself.\nSTOP: NEEDS_DECISION which schema?\nDetails follow.")
    expect(matchedStopPattern(message, patterns)).toEqual({ kind: "stop-pattern", pattern: patterns[0]! })
  })

  test("^ and $ anchor at line ends", () => {
    expect(matchedStopPattern(said("intro\nBLOCKED\nmore"), ["^BLOCKED$"])).toBeDefined()
  })

  test("patterns are taken as written: case matters", () => {
    expect(matchedStopPattern(said("stop: blocked"), patterns)).toBeUndefined()
  })

  test.each([
    ["no patterns configured", said("STOP: BLOCKED"), []],
    ["patterns absent", said("STOP: BLOCKED"), undefined],
    ["no match", said("All good, continuing."), patterns],
    ["only invalid patterns", said("STOP: BLOCKED"), ["(oops"]],
    ["not an assistant message", user("STOP: BLOCKED"), patterns],
  ])("no hand-off: %s", (_name, message, list) => {
    expect(matchedStopPattern(message, list as string[] | undefined)).toBeUndefined()
  })

  test("a reasoning-only message has no text to match", () => {
    expect(matchedStopPattern(assistant([{ kind: "reasoning", text: "STOP: BLOCKED" }]), patterns)).toBeUndefined()
  })
})
