/**
 * The unknown-tools path (paths/unknown-tools/): its finished-turn rule as the runtime hands it
 * the turn, its state and the host's tool names (runtime/path.ts PathTurnRule), and its step.
 * The engine-level timelines stay in test/unit/modules/loops-and-unknown-tools.test.ts.
 */
import { describe, expect, test } from "bun:test"
import { unknownToolsPath, type UnknownToolsState } from "../../../src/paths/unknown-tools/path.ts"
import type { PathInput, PathTurnRule, StepContext, TurnAnswer } from "../../../src/runtime/path.ts"

type Facts = Parameters<PathTurnRule<UnknownToolsState>["decide"]>[0]
type Message = Facts["messages"][number]

const TOOLS = ["bash", "read", "edit"]
const rule = unknownToolsPath.turnRules![0]!

const wrong = (id: string): Message => ({ id, role: "assistant", parts: [{ kind: "tool", callID: `c-${id}`, tool: "bassh", status: "error", error: "unavailable tool" }] })
const user = (id: string): Message => ({ id, role: "user", parts: [{ kind: "text", text: "go" }] })

/** `tools`: the host's names as the runtime hands them ("none": the host could not say). */
function decide(messages: Message[], state: UnknownToolsState = unknownToolsPath.initial(), tools: readonly string[] | "none" = TOOLS): TurnAnswer<UnknownToolsState> | undefined {
  return rule.decide({ messages } as unknown as Facts, { state, tools: tools === "none" ? undefined : tools })
}

describe("the unknown-tool rule", () => {
  test("a wrong tool name seen twice: one correction naming the closest tool, and the turn is covered", () => {
    const answer = decide([user("u1"), wrong("a1"), wrong("a2")])
    expect(answer?.effect).toMatchObject({ kind: "nudge", sendKind: "correction", feature: "unknown-tool" })
    if (answer?.effect?.kind !== "nudge") throw new Error("no nudge")
    expect(answer.effect.text).toContain("bash")
    expect(answer.state).toEqual({ suggestedUpTo: "a2" })
  })

  test("negative controls: one wrong call, or no tool list, suggests nothing and keeps the state", () => {
    expect(decide([user("u1"), wrong("a1")])).toBeUndefined()
    expect(decide([user("u1"), wrong("a1"), wrong("a2")], undefined, "none")).toBeUndefined()
  })

  test("calls a suggestion already covered are not answered again; new ones are", () => {
    const covered = { suggestedUpTo: "a2" }
    expect(decide([user("u1"), wrong("a1"), wrong("a2")], covered)).toBeUndefined()
    expect(decide([user("u1"), wrong("a1"), wrong("a2"), wrong("a3"), wrong("a4")], covered)?.state).toEqual({ suggestedUpTo: "a4" })
  })

  test("it asks the runtime for the host's tool names, in the second pass, right after the tool-loop rule", () => {
    expect(rule).toMatchObject({ name: "unknown-tool", pass: "second", readsTools: true })
  })
})

describe("the unknown-tools path's step", () => {
  const ctx = { session: { id: "s1" } } as unknown as StepContext
  const message = (genuine: boolean): PathInput => ({ type: "signal", signal: { type: "userMessage", sessionID: "s1", genuine } })

  test("a genuine user message starts afresh", () => {
    expect(unknownToolsPath.step({ suggestedUpTo: "a2" }, message(true), ctx)?.state).toEqual({})
  })

  test("negative controls: the plugin's own prompt, or nothing covered, change nothing", () => {
    expect(unknownToolsPath.step({ suggestedUpTo: "a2" }, message(false), ctx)).toBeUndefined()
    expect(unknownToolsPath.step(unknownToolsPath.initial(), message(true), ctx)).toBeUndefined()
    expect(unknownToolsPath.signals).toEqual(["userMessage"])
  })
})
