import { describe, expect, test } from "bun:test"
import { judgeFirstPass, judgeSecondPass, type Judgement } from "../../../src/paths/judge/judge.ts"
import { DEAD_STREAM_PROMPT, THINKING_TOOL_RECOVERY_PROMPT } from "../../../src/paths/judge/prompts.ts"
import { assistant, said, thought, tool, user } from "../../fixtures/transcript-builders.ts"
import { NOW, WINDOW, input } from "./helpers.ts"

const dead = () => thought("let me think about the refactor…", undefined, { finish: "unknown", outputTokens: 300 })

function sent(v: Judgement) {
  return v.kind === "nudge" ? { feature: v.feature, sendKind: v.sendKind, prompt: v.text } : v.kind
}

describe("first pass: silent dead stream", () => {
  test("an ordinary answer is not a stand-down: the second pass still has work to do", () => {
    const v = judgeFirstPass(input(said("Here is the plan.")))
    expect(v.kind).toBe("none")
  })

  test("a finished, textless, tool-less turn with enough tokens gets the recovery prompt", () => {
    expect(sent(judgeFirstPass(input(dead())))).toEqual({ feature: "dead-stream", sendKind: "continue", prompt: DEAD_STREAM_PROMPT })
  })

  test("a custom continuePrompt is sent verbatim", () => {
    const v = judgeFirstPass(input(dead(), { options: { ...input(dead()).options, continuePrompt: "go on" } }))
    expect(v.kind === "nudge" && v.text).toBe("go on")
  })

  test("a tool call stranded in the reasoning gets the thinking-tool prompt instead", () => {
    const turn = thought("<tool_call>\n{\"name\": \"read\", \"arguments\": {}}\n</tool_call>", undefined, { outputTokens: 300 })
    expect(sent(judgeFirstPass(input(turn)))).toEqual({ feature: "thinking-tool", sendKind: "correction", prompt: THINKING_TOOL_RECOVERY_PROMPT })
  })

  test.each([
    ["tools were in flight at the idle transition", input(dead(), { toolsInFlightAtIdle: 2 })],
    ["below silentDeadStreamMinTokens", input(thought("…", undefined, { outputTokens: 150 }))],
    ["the option raises the floor", input(dead(), { options: { ...input(dead()).options, silentDeadStreamMinTokens: 1000 } })],
    ["the turn made a tool call", input(assistant([{ kind: "reasoning", text: "…" }, tool("read", "completed")], { outputTokens: 300 }))],
    ["the turn is not finished", input(thought("…", undefined, { finish: undefined, outputTokens: 300 }))],
    ["the budget is spent", input(dead(), { budgets: { "dead-stream": 3 } })],
    ["finishedTurnMaxNudges 0 allows none", input(dead(), { options: { ...input(dead()).options, finishedTurnMaxNudges: 0 } })],
  ])("no recovery when %s", (_name, i) => {
    expect(judgeFirstPass(i).kind).toBe("none")
  })

  test("only the newest assistant message is judged: an older silent tool step is normal work", () => {
    const olderSilent = assistant([tool("read", "completed")], { finish: "tool-calls", outputTokens: 400 })
    const i = input(said("Here is the summary."), { messages: [user("go"), olderSilent, said("Here is the summary.")] })
    expect(judgeFirstPass(i).kind).toBe("none")
  })
})

describe("first pass never reads the closing text", () => {
  test.each([
    ["a printed tool call", said("<function=bash>\n<parameter=command>ls</parameter>\n</function>")],
    ["a 🎉 ending", said("All done! 🎉")],
    ["a stop statement", said("TASK COMPLETE")],
    ["a bare done claim", said("All done!")],
    ["an action intent", said("Now I will edit the file:")],
    ["ready to continue", said("Ready to continue with task 3.")],
  ])("%s is left to the second pass", (_name, turn) => {
    expect(judgeFirstPass(input(turn)).kind).toBe("none")
    // Negative control: the second pass does act on it.
    expect(judgeSecondPass(input(turn)).kind).not.toBe("none")
  })
})

describe("first-pass guards stand everything down", () => {
  const guards: Array<[string, ReturnType<typeof input>, RegExp]> = [
    ["no messages", input(dead(), { messages: [] }), /no messages/],
    ["the user spoke after the turn", input(dead(), { messages: [dead(), user("wait")] }), /user spoke/],
    ["our own prompt is not answered yet", input(dead(), { messages: [dead(), user("continue", true)] }), /own prompt/],
    ["the turn ended in an error", input(thought("…", undefined, { outputTokens: 300, errorName: "MessageAbortedError" })), /error/],
    ["the engine knows of an open question", input(dead(), { awaitingUser: true }), /waiting on the user/],
    ["a pending question tool in the turn", input(assistant([{ kind: "reasoning", text: "…" }, tool("question", "pending")], { outputTokens: 300 })), /waiting on the user/],
    [
      "a stopPatterns match",
      input(said("STOP: BLOCKED need credentials"), { options: { ...input(dead()).options, stopPatterns: ["STOP:\\s*BLOCKED"] } }),
      /stop pattern/,
    ],
  ]

  test.each(guards)("%s", (_name, i, reason) => {
    const first = judgeFirstPass(i)
    expect(first.kind).toBe(_name === "no messages" ? "none" : "stand-down")
    expect(first.reason).toMatch(reason)
    expect(judgeSecondPass(i).kind).toBe(first.kind)
  })

  test("a dead stream is a malfunction: recovered even right after the user's own prompt", () => {
    expect(judgeFirstPass(input(dead(), { lastGenuineUserAt: NOW - 1000 })).kind).toBe("nudge")
    expect(judgeFirstPass(input(dead(), { lastGenuineUserAt: undefined })).kind).toBe("nudge")
    void WINDOW
  })

  test("a completed question tool does not engage the gate", () => {
    const turn = assistant([tool("question", "completed"), { kind: "reasoning", text: "…" }], { outputTokens: 300 })
    // A finished tool call means the turn worked: no dead stream either, but not because of a hand-off.
    expect(judgeFirstPass(input(turn)).reason).not.toMatch(/waiting on the user/)
  })
})
