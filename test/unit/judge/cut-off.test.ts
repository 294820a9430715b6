import { describe, expect, test } from "bun:test"
import { judgeFirstPass, judgeSecondPass, type Judgement } from "../../../src/paths/judge/judge.ts"
import { cutOffAnswer } from "../../../src/detect/cut-off.ts"
import { CUT_OFF_PROMPT, cutOffPrompt, DEAD_STREAM_PROMPT } from "../../../src/paths/judge/prompts.ts"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { assistant, said, thought, tool } from "../../fixtures/transcript-builders.ts"
import { NOW, input } from "./helpers.ts"

const TEXT = "Here is the first half of the migration guide. Step 1: back up the database. Step 2: run"
const cut = (extra: Partial<TranscriptMessage> = {}) => said(TEXT, { finish: "length", outputTokens: 4096, ...extra })
const cutInCall = (status: "pending" | "streaming" | "error") =>
  assistant([{ kind: "text", text: "Writing the file now." }, tool("write", status, '{"filePath": "src/a.ts", "content": "export const')], {
    finish: "length",
    outputTokens: 4096,
  })

function sent(v: Judgement) {
  return v.kind === "nudge" ? { feature: v.feature, sendKind: v.sendKind, prompt: v.text } : v.kind
}

describe("an answer cut off at the output limit", () => {
  test.each([
    ["first", judgeFirstPass],
    ["second", judgeSecondPass],
  ])("the %s pass sends the cut-off continue", (_pass, judge) => {
    expect(sent(judge(input(cut())))).toEqual({ feature: "cut-off", sendKind: "continue", prompt: CUT_OFF_PROMPT })
  })

  test.each(["streaming", "error"] as const)("a call cut inside its arguments (%s) is asked for again in full, by name", (status) => {
    const v = judgeSecondPass(input(cutInCall(status)))
    expect(sent(v)).toEqual({ feature: "cut-off", sendKind: "continue", prompt: cutOffPrompt("write") })
    expect(v.kind === "nudge" && v.text).toMatch(/writing a call to write, so that call never ran.*again, in full/)
  })

  test("1.18's invalid part names the tool the model meant", () => {
    const turn = assistant([tool("invalid", "completed", { tool: "edit", error: "Invalid input" })], { finish: "length" })
    expect(cutOffAnswer(turn)).toEqual({ tool: "edit" })
  })

  test("a completed call earlier in the turn is finished work: the plain cut-off text", () => {
    const turn = assistant([tool("read", "completed"), { kind: "text", text: TEXT }], { finish: "length" })
    expect(cutOffAnswer(turn)).toEqual({})
  })

  test("a name that is not a plain tool name is not repeated to the model", () => {
    const turn = assistant([tool("x".repeat(500), "streaming")], { finish: "length" })
    expect(cutOffPrompt(cutOffAnswer(turn)?.tool)).toMatch(/writing a tool call, so/)
  })

  test("a textless cut-off turn gets the cut-off text, not the dead-stream one", () => {
    const v = judgeFirstPass(input(thought("Planning the next three files…", undefined, { finish: "length", outputTokens: 4096 })))
    expect(sent(v)).toEqual({ feature: "cut-off", sendKind: "continue", prompt: CUT_OFF_PROMPT })
    expect(DEAD_STREAM_PROMPT).not.toBe(CUT_OFF_PROMPT)
  })

  test("it is a malfunction: not held by the active-user window", () => {
    expect(sent(judgeSecondPass(input(cut(), { lastGenuineUserAt: NOW - 1_000 })))).toMatchObject({ feature: "cut-off" })
  })
})

describe("controls: no cut-off continue", () => {
  test("the same text with finish stop", () => {
    const v = judgeSecondPass(input(said(TEXT, { finish: "stop" })))
    expect(v.kind === "nudge" ? v.feature : v.kind).not.toBe("cut-off")
    expect(cutOffAnswer(said(TEXT, { finish: "stop" }))).toBeUndefined()
  })

  test.each([
    ["ESC ended the turn", input(cut({ errorName: "MessageAbortedError" }))],
    ["the cut-off budget is spent", input(cut(), { budgets: { "cut-off": 3 } })],
    ["finishedTurnMaxNudges 0 allows none", input(cut(), { options: { ...input(cut()).options, finishedTurnMaxNudges: 0 } })],
    ["a question to the user is open", input(cut(), { awaitingUser: true })],
    ["tools were in flight at the idle transition", input(cut(), { toolsInFlightAtIdle: 1 })],
  ])("%s", (_name, i) => {
    for (const v of [judgeFirstPass(i), judgeSecondPass(i)]) expect(v.kind === "nudge" ? v.feature : v.kind).not.toBe("cut-off")
    expect(judgeFirstPass(i).kind).not.toBe("nudge")
  })

  test("a 1.x pending call is read as waiting on the user, as everywhere: the hand-off guard wins", () => {
    expect(judgeSecondPass(input(cutInCall("pending"))).kind).toBe("stand-down")
  })

  test("the budget is its own: other spent budgets do not stop it", () => {
    expect(sent(judgeFirstPass(input(cut(), { budgets: { "dead-stream": 3, "tool-text": 3 } })))).toMatchObject({ feature: "cut-off" })
  })
})
