/** The pure fallback decisions (src/core/fallback.ts): which model next, where prompts and the user's turn go. */
import { describe, expect, test } from "bun:test"
import {
  modelKey,
  nextFallback,
  parseModelEntry,
  promptSetup,
  unknownModelEntries,
  userTurnModel,
  waitWorthSwitching,
  type FallbackEpisode,
} from "../../../src/core/fallback.ts"

const A = { providerID: "openai", modelID: "gpt-x" }
const B = { providerID: "anthropic", modelID: "claude-y" }
const C = { providerID: "local", modelID: "qwen/coder" }
const LIST = ["anthropic/claude-y", "local/qwen/coder"]
const none = new Set<string>()

describe("nextFallback", () => {
  test("the first listed model that is not the current one; the episode remembers the user's model", () => {
    const choice = nextFallback(undefined, A, LIST, none, "rate limited", 10)
    expect(choice.kind).toBe("switch")
    if (choice.kind !== "switch") return
    expect(choice.model).toEqual(B)
    expect(choice.episode).toEqual({ userModel: A, active: B, tried: ["openai/gpt-x", "anthropic/claude-y"], why: "rate limited", at: 10 })
  })

  test("each model at most once per episode, the user's own included, then spent", () => {
    const first = nextFallback(undefined, A, [...LIST, "openai/gpt-x"], none, "w", 0)
    if (first.kind !== "switch") throw new Error("expected a switch")
    const second = nextFallback(first.episode, A, [...LIST, "openai/gpt-x"], none, "w", 1)
    if (second.kind !== "switch") throw new Error("expected a switch")
    expect(second.model).toEqual(C)
    expect(second.episode.userModel).toEqual(A)
    const third = nextFallback(second.episode, A, [...LIST, "openai/gpt-x"], none, "w", 2)
    expect(third).toEqual({ kind: "spent", tried: ["openai/gpt-x", "anthropic/claude-y", "local/qwen/coder"] })
  })

  test("negative control: an empty list is off, whatever happened", () => {
    expect(nextFallback(undefined, A, [], none, "w", 0)).toEqual({ kind: "off" })
  })

  test("entries the host does not know and malformed ones are skipped", () => {
    const choice = nextFallback(undefined, A, ["nonsense", "anthropic/claude-y", "local/qwen/coder"], new Set(["anthropic/claude-y"]), "w", 0)
    expect(choice.kind === "switch" && choice.model).toEqual(C)
  })

  test("a list holding only the current model is spent at once", () => {
    expect(nextFallback(undefined, A, ["openai/gpt-x"], none, "w", 0).kind).toBe("spent")
  })
})

describe("where prompts and the user's turn go", () => {
  const episode: FallbackEpisode = { userModel: A, active: B, tried: ["openai/gpt-x", "anthropic/claude-y"], why: "w", at: 0 }

  test("our prompts go on with the fallback model and the same agent; without an episode, with the user's setup", () => {
    expect(promptSetup({ agent: "build", model: A }, episode)).toEqual({ agent: "build", model: B })
    expect(promptSetup({ agent: "build", model: A }, undefined)).toEqual({ agent: "build", model: A })
  })

  test("a user message aimed at the fallback model, or naming none, goes back to the user's model", () => {
    expect(userTurnModel(episode, B)).toEqual(A)
    expect(userTurnModel(episode, undefined)).toEqual(A)
  })

  test("negative controls: another model is the user's own choice; no episode, nothing to change", () => {
    expect(userTurnModel(episode, C)).toBeUndefined()
    expect(userTurnModel(episode, A)).toBeUndefined()
    expect(userTurnModel(undefined, B)).toBeUndefined()
    expect(userTurnModel({ ...episode, userModel: undefined }, B)).toBeUndefined()
  })
})

describe("helpers", () => {
  test("a wait is worth a switch only past one stall budget (or when it lasts until the user)", () => {
    expect(waitWorthSwitching(3_600_000, 183_000)).toBe(true)
    expect(waitWorthSwitching(Infinity, 183_000)).toBe(true)
    expect(waitWorthSwitching(183_000, 183_000)).toBe(false)
    expect(waitWorthSwitching(1_000, 183_000)).toBe(false)
    expect(waitWorthSwitching(undefined, 183_000)).toBe(false)
    expect(waitWorthSwitching(Number.NaN, 183_000)).toBe(false)
  })

  test("provider/model entries: the model id may hold slashes; blanks, spaces and a missing half are not entries", () => {
    expect(parseModelEntry("local/qwen/coder")).toEqual(C)
    expect(modelKey(C)).toBe("local/qwen/coder")
    for (const bad of ["", "gpt-x", "/gpt-x", "openai/", "open ai/gpt"]) expect(parseModelEntry(bad)).toBeUndefined()
  })

  test("unknown entries are named once each, known ones are not", () => {
    expect(unknownModelEntries(["anthropic/claude-y", "x/y", "x/y", "bad"], [A, B])).toEqual(["x/y", "bad"])
    expect(unknownModelEntries(["anthropic/claude-y"], [A, B])).toEqual([])
  })
})
