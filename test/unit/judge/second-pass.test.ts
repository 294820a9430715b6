import { describe, expect, test } from "bun:test"
import { READY_CLOSED_CHANCES, judgeFirstPass, judgeSecondPass, type JudgeInput, type Judgement } from "../../../src/paths/judge/judge.ts"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { DONE_WITHOUT_DETAILS_PROMPT, DONE_WITHOUT_WORK_PROMPT, THINKING_TOOL_RECOVERY_PROMPT, TOOL_TEXT_RECOVERY_PROMPT } from "../../../src/paths/judge/prompts.ts"
import type { TodoSnapshot } from "../../../src/todos/open.ts"
import { assistant, closedList, openList, said, thought, tool, user } from "../../fixtures/transcript-builders.ts"
import { NOW, WINDOW, input } from "./helpers.ts"

function judge(text: string | TranscriptMessage, overrides: Partial<JudgeInput> = {}): Judgement {
  return judgeSecondPass(input(typeof text === "string" ? said(text) : text, overrides))
}

function withOptions(extra: Partial<JudgeInput["options"]>, overrides: Partial<JudgeInput> = {}): Partial<JudgeInput> {
  return { ...overrides, options: { ...input(said("x")).options, ...extra } }
}

/** A compact view: "none", "latch:<signal>" or "send:<feature>". */
function outcome(v: Judgement): string {
  if (v.kind === "charge") return `none+${v.feature}`
  if (v.kind === "complete") return `latch:${v.signal}`
  if (v.kind === "nudge") return `send:${v.feature}`
  return "none"
}

const NO_LIST: TodoSnapshot = "none"
const UNREADABLE: TodoSnapshot = "unreadable"

describe("completion signals: 🎉 and stop statements", () => {
  const table: Array<[string, string, TodoSnapshot, string]> = [
    ["🎉, no todo list: latch (older behaviour)", "All done! 🎉", NO_LIST, "latch:celebration"],
    ["🎉, todos undefined (read as no list): latch", "All done! 🎉", undefined as unknown as TodoSnapshot, "latch:celebration"],
    ["🎉, every todo closed: latch", "All done! 🎉", closedList, "latch:celebration"],
    ["🎉, empty list: latch", "Shipped 🎉", [], "latch:celebration"],
    ["🎉 with open todos: the reminder instead", "All done! 🎉", openList, "send:todo-reminder"],
    ["🎉 with an unreadable list: neither", "All done! 🎉", UNREADABLE, "none"],
    ["TASK COMPLETE, no list: latch", "Merged.\nTASK COMPLETE", NO_LIST, "latch:stop-statement"],
    ["stop with open todos: the reminder", "Stopping here.", openList, "send:todo-reminder"],
    ["stop with closed todos: latch", "No further action needed.", closedList, "latch:stop-statement"],
    ["stop with an unreadable list: neither", "Standing by.", UNREADABLE, "none"],
    // Bare "Done." with nothing open: believed when the turn shows work, asked once for a report when it shows none.
    ["bare Done. after a turn with no call: one request for a report", "Done.", NO_LIST, "send:done-claim"],
    ["task completed (any case): latch", "TASK COMPLETED", NO_LIST, "latch:stop-statement"],
    // Lower-case "task complete" latches nothing; it is still a bare done claim.
    ["lower-case task complete: no latch, a report is demanded", "task complete", NO_LIST, "send:done-claim"],
    ["work still in progress: nothing", "The migration work is still in progress.", NO_LIST, "none"],
    ["future report: nothing", "I'll report the numbers when it lands.", NO_LIST, "none"],
    ["a stop followed by a connective clause: not a stop", "Stopping here for a moment, then continuing", NO_LIST, "none"],
  ]

  test.each(table)("%s", (_name, text, todos, expected) => {
    expect(outcome(judge(text, { todos }))).toBe(expected)
  })

  test("the reminder names every open item with its status, as a correction", () => {
    const v = judge("All done! 🎉", { todos: openList })
    expect(v.kind === "nudge" && v.sendKind).toBe("correction")
    const prompt = v.kind === "nudge" ? v.text : ""
    expect(prompt).toContain("1. [pending] Verify the plugin loads")
    expect(prompt).toContain("2. [in_progress] Write the README section")
  })

  test("the reminder budget caps it at finishedTurnMaxNudges; spent means silence, never a latch on open work", () => {
    expect(outcome(judge("Done! 🎉", { todos: openList, budgets: { "todo-reminder": 2 } }))).toBe("send:todo-reminder")
    expect(outcome(judge("Done! 🎉", { todos: openList, budgets: { "todo-reminder": 3 } }))).toBe("none")
  })

  test("completion is judged before the tool-call scan (the order of the spec)", () => {
    expect(outcome(judge("<tool_call>\n{}\n</tool_call>\nAll done 🎉"))).toBe("latch:celebration")
  })
})

describe("tool calls as text", () => {
  test("a printed call gets the recovery prompt as a correction", () => {
    const v = judge("I'll list the files.\n<function=bash>\n<parameter=command>ls</parameter>\n</function>")
    expect(v.kind === "nudge" && [v.feature, v.sendKind, v.text]).toEqual(["tool-text", "correction", TOOL_TEXT_RECOVERY_PROMPT])
    expect(v.reason).toContain("xml-tag")
  })

  test("the override is sent verbatim", () => {
    const v = judge('{"name": "read", "arguments": {"path": "a"}}', withOptions({ toolTextRecoveryPrompt: "Use the tool API." }))
    expect(v.kind === "nudge" && v.text).toBe("Use the tool API.")
  })

  test("a call in a code block is an example, not a call", () => {
    expect(outcome(judge("The format is:\n```\n<function=bash>\n```\nThat is all I found."))).toBe("none")
  })

  test("the budget caps it at finishedTurnMaxNudges", () => {
    expect(outcome(judge("<tool_call>", { budgets: { "tool-text": 3 } }))).toBe("none")
  })

  test("host tool names make bare tags count", () => {
    expect(outcome(judge("<deploy>prod</deploy>"))).toBe("none")
    expect(outcome(judge("<deploy>prod</deploy>", { knownTools: ["deploy"] }))).toBe("send:tool-text")
  })

  test("a hand-off only the classifier read yields to a call printed at the end; a structural one does not", () => {
    const byModel = { ending: { handOff: { how: "model" as const, detail: "the ending reads as a request to the user (p=0.42)" } } }
    expect(outcome(judge("Running it now.\n<bash>ls -la</bash>", byModel))).toBe("send:tool-text")
    // Controls: the same reading with no call stands down; a question with the call stands down.
    expect(outcome(judge("Running it now.", byModel))).toBe("none")
    const asked = { ending: { handOff: { how: "question" as const, detail: "the last sentence is a question" } } }
    expect(outcome(judge("Running it now.\n<bash>ls -la</bash>", asked))).toBe("none")
  })

  test("a call left in the reasoning gets the thinking-tool prompt", () => {
    const v = judge(thought("<function=edit>\n<parameter=path>a.ts</parameter>", "Editing the file now."))
    expect(v.kind === "nudge" && [v.feature, v.text]).toEqual(["thinking-tool", THINKING_TOOL_RECOVERY_PROMPT])
    const custom = judge(thought("<tool_call>", "ok"), withOptions({ thinkingToolRecoveryPrompt: "Make the call." }))
    expect(custom.kind === "nudge" && custom.text).toBe("Make the call.")
  })
})

describe("a closing question hands the turn to the user", () => {
  test.each([
    ["a plain question", "Which schema should I use?"],
    ["ready, then asks", "Ready to continue with task 3.\nShall I go ahead?"],
    ["done, then asks", "All done.\nAnything else?"],
    ["an announcement turned question", "Should I edit the file now?"],
  ])("%s: nothing is sent", (_name, text) => {
    const v = judge(text)
    expect(outcome(v)).toBe("none")
    expect(v.kind).toBe("stand-down")
  })
})

describe("ready to continue", () => {
  test.each([
    ["no todo list", NO_LIST],
    ["open todos", openList],
    ["unreadable list (the continue does not depend on it)", UNREADABLE],
    ["empty list", [] as TodoSnapshot],
  ])("sends a plain continue: %s", (_name, todos) => {
    const v = judge("Task 2 is finished. Ready to continue with task 3.", { todos })
    expect(v.kind === "nudge" && [v.feature, v.sendKind, v.text]).toEqual(["ready-to-continue", "continue", "continue"])
  })

  test("every todo closed: two chances (charged, nothing sent), then a plain continue", () => {
    const text = "Proceeding with the next task."
    const first = judge(text, { todos: closedList })
    expect(outcome(first)).toBe("none+ready-closed")
    expect(outcome(judge(text, { todos: closedList, budgets: { "ready-closed": 1 } }))).toBe("none+ready-closed")
    const third = judge(text, { todos: closedList, budgets: { "ready-closed": READY_CLOSED_CHANCES } })
    expect(third.kind === "nudge" && [third.feature, third.text]).toEqual(["ready-to-continue", "continue"])
  })

  test("a custom continuePrompt is used verbatim; the budget caps it", () => {
    const v = judge("Ready to continue with task 3.", withOptions({ continuePrompt: "keep going" }))
    expect(v.kind === "nudge" && v.text).toBe("keep going")
    expect(outcome(judge("Ready to continue with task 3.", { budgets: { "ready-to-continue": 3 } }))).toBe("none")
  })

  test("readyToContinuePatterns replaces the built-in phrases", () => {
    const opts = withOptions({ readyToContinuePatterns: ["on to the next one"] })
    expect(outcome(judge("On to the next one.", opts))).toBe("send:ready-to-continue")
    expect(outcome(judge("Ready to continue with task 3.", opts))).toBe("none")
  })
})

describe("action intent", () => {
  const text = "The loader is the culprit.\nNext, I'll update the retry logic:"

  test("a warm session gets the action-intent prompt (continuePrompt by default)", () => {
    const v = judge(text)
    expect(v.kind === "nudge" && [v.feature, v.sendKind, v.text]).toEqual(["action-intent", "continue", "continue"])
  })

  test("actionIntentPrompt wins, then continuePrompt", () => {
    const both = judge(text, withOptions({ actionIntentPrompt: "Do it now.", continuePrompt: "go" }))
    expect(both.kind === "nudge" && both.text).toBe("Do it now.")
    const onlyContinue = judge(text, withOptions({ continuePrompt: "go" }))
    expect(onlyContinue.kind === "nudge" && onlyContinue.text).toBe("go")
  })

  test("not before warmupMs", () => {
    expect(outcome(judge(text, { sessionStartedAt: NOW - 14_999 }))).toBe("none")
    expect(outcome(judge(text, { sessionStartedAt: NOW - 15_000 }))).toBe("send:action-intent")
  })

  test("resumeOnActionIntent: false disables it", () => {
    expect(outcome(judge(text, withOptions({ resumeOnActionIntent: false })))).toBe("none")
  })

  test("the budget caps it", () => {
    expect(outcome(judge(text, { budgets: { "action-intent": 3 } }))).toBe("none")
  })
})

describe("done claims", () => {
  test("with open todos: the done-without-work prompt, listing the open items", () => {
    const v = judge("All done!", { todos: openList })
    expect(v.kind === "nudge" && [v.feature, v.sendKind]).toEqual(["done-claim", "correction"])
    const prompt = v.kind === "nudge" ? v.text : ""
    expect(prompt.startsWith(DONE_WITHOUT_WORK_PROMPT)).toBe(true)
    expect(prompt).toContain("1. [pending] Verify the plugin loads")
  })

  test("the done-without-work override is sent as written", () => {
    const v = judge("All done!", { todos: openList, ...withOptions({ doneWithoutWorkPrompt: "Check your list." }) })
    expect(v.kind === "nudge" && v.text).toBe("Check your list.")
  })

  test.each([
    ["no todo list", NO_LIST],
    ["every todo closed", closedList],
    ["empty list", [] as TodoSnapshot],
    ["todos undefined (no list)", undefined as unknown as TodoSnapshot],
  ])("a bare claim with %s: the done-without-details prompt", (_name, todos) => {
    const v = judge("Everything is complete.", { todos })
    expect(v.kind === "nudge" && [v.feature, v.text]).toEqual(["done-claim", DONE_WITHOUT_DETAILS_PROMPT])
  })

  test("a claim that describes the work needs no report: it is believed and latched", () => {
    for (const text of [
      "Updated src/core/judge.ts and test/unit/judge.test.ts.\nAll done!",
      "Ran `bun test`: 42 passed.\nAll done!",
      "## Summary\nRewrote the loader.\n\nAll done!",
    ]) {
      expect(outcome(judge(text))).toBe("latch:done-claim")
    }
  })

  // The decision for a bare "Done." with nothing open, both ways: the turn's own calls are the
  // report, so a turn that ran tools is believed; a turn with no call gets one request.
  test("bare Done. after a turn that ran tools: latched, no request", () => {
    const worked = [user("please do the thing"), assistant([tool("edit", "completed", { filePath: "a.ts" })]), said("Done.")]
    expect(outcome(judge("Done.", { messages: worked }))).toBe("latch:done-claim")
  })

  test("negative control: bare Done. after a turn whose only call failed: one request for a report", () => {
    const failed = [user("please do the thing"), assistant([tool("edit", "error", { filePath: "a.ts" })]), said("Done.")]
    expect(outcome(judge("Done.", { messages: failed }))).toBe("send:done-claim")
  })

  test("bare Done. whose tools ran before the user's last message: one request (that work was another turn's)", () => {
    const earlier = [assistant([tool("edit", "completed", {})]), user("now the docs please"), said("Done.")]
    expect(outcome(judge("Done.", { messages: earlier }))).toBe("send:done-claim")
  })

  test("never on an unreadable list", () => {
    expect(outcome(judge("All done!", { todos: UNREADABLE }))).toBe("none")
  })

  test("budget: finishedTurnMaxNudges across busy cycles, counting both prompts", () => {
    expect(outcome(judge("All done!", { budgets: { "done-claim": 2 } }))).toBe("send:done-claim")
    // Spent: the report was asked for; the claim is now believed.
    expect(outcome(judge("All done!", { budgets: { "done-claim": 3 } }))).toBe("latch:done-claim")
    expect(outcome(judge("All done!", { todos: openList, budgets: { "done-claim": 3 } }))).toBe("none")
    expect(outcome(judge("All done!", { budgets: { "done-claim": 3 }, ...withOptions({ finishedTurnMaxNudges: 5 }) }))).toBe("send:done-claim")
  })

  test("doneClaimPatterns replaces the built-in claims", () => {
    const opts = withOptions({ doneClaimPatterns: ["^erledigt$"] })
    expect(outcome(judge("Erledigt", opts))).toBe("send:done-claim")
    expect(outcome(judge("All tasks completed.", opts))).toBe("none")
  })

  test("the details override is sent as written", () => {
    const v = judge("All done!", withOptions({ doneWithoutDetailsPrompt: "Report please." }))
    expect(v.kind === "nudge" && v.text).toBe("Report please.")
  })
})

describe("second pass re-runs the guards on the fresh read", () => {
  const printed = said("<function=bash>\n<parameter=command>ls</parameter>\n</function>")

  test.each([
    ["the user replied meanwhile", { messages: [printed, user("never mind")] }],
    ["a question is open", { awaitingUser: true }],
  ] as Array<[string, Partial<JudgeInput>]>)("%s: even a printed tool call is left alone", (_name, overrides) => {
    expect(outcome(judgeSecondPass(input(printed, overrides)))).toBe("none")
    // Negative control.
    expect(outcome(judgeSecondPass(input(printed)))).toBe("send:tool-text")
  })

  test("a recently active user holds the nudges for a model that stopped by choice, not malfunction recovery", () => {
    const recent = { lastGenuineUserAt: NOW - 5_000 }
    expect(outcome(judgeSecondPass(input(printed, recent)))).toBe("send:tool-text")
    const done = said("All done!")
    expect(outcome(judgeSecondPass(input(done, recent)))).toBe("none")
    expect(outcome(judgeSecondPass(input(done)))).toBe("send:done-claim")
    const celebrate = said("Finished 🎉")
    expect(outcome(judgeSecondPass(input(celebrate, { ...recent, todos: openList })))).toBe("none")
    expect(outcome(judgeSecondPass(input(celebrate, { todos: openList })))).toBe("send:todo-reminder")
  })

  test("a stop pattern with open todos stands the reminder down", () => {
    const turn = said("STOP: NEEDS_DECISION which schema?\nStopping here.")
    const opts = withOptions({ stopPatterns: ["STOP:\\s*(BLOCKED|NEEDS_DECISION)\\b"] }, { todos: openList })
    expect(outcome(judgeSecondPass(input(turn, opts)))).toBe("none")
    expect(outcome(judgeSecondPass(input(turn, { todos: openList })))).toBe("send:todo-reminder")
  })

  test("a dead stream found only on the second read is still recovered", () => {
    const turn = thought("…", undefined, { finish: "stop", outputTokens: 300 })
    expect(outcome(judgeSecondPass(input(turn)))).toBe("send:dead-stream")
  })

  test("an ordinary answer: nothing to do", () => {
    expect(outcome(judge("The function returns the parsed config and caches it per directory."))).toBe("none")
  })
})

describe("a nudge held by the active-user window says when the window ends", () => {
  const userAt = NOW - 5_000
  const recent = { lastGenuineUserAt: userAt }
  const heldUntil = (v: Judgement) => (v.kind === "look-again" ? v.at : undefined)

  test.each([
    ["🎉 with open todos", said("Finished 🎉"), { todos: openList }],
    ["a done claim", said("All done!"), {}],
    ["ready to continue", said("Ready to continue with the next step."), {}],
  ] as Array<[string, TranscriptMessage, Partial<JudgeInput>]>)("%s: held until the window's end", (_name, turn, extra) => {
    expect(heldUntil(judgeSecondPass(input(turn, { ...recent, ...extra })))).toBe(userAt + WINDOW)
    // Control: outside the window the same turn is nudged at once.
    expect(judgeSecondPass(input(turn, extra)).kind).toBe("nudge")
  })

  test("an action intent in a session too young for it now, but not by the window's end, is held", () => {
    const turn = said("Next I will update the schema:")
    const young = { ...recent, sessionStartedAt: NOW - 1_000 }
    expect(heldUntil(judgeSecondPass(input(turn, young)))).toBe(userAt + WINDOW)
  })

  test("control: nothing that would be sent after the window is held for it", () => {
    const cases: Array<[TranscriptMessage, Partial<JudgeInput>]> = [
      [said("The function returns the parsed config."), {}],
      [said("Finished 🎉"), { todos: openList, budgets: { "todo-reminder": 99 } }],
      [said("Finished 🎉"), { todos: closedList }],
      [said("Which of the two schemas do you prefer?"), {}],
    ]
    for (const [turn, extra] of cases) expect(heldUntil(judgeSecondPass(input(turn, { ...recent, ...extra })))).toBeUndefined()
  })

  test("control: a malfunction inside the window is not held, it is sent", () => {
    const printed = said("<function=bash>\n<parameter=command>ls</parameter>\n</function>")
    expect(judgeSecondPass(input(printed, recent)).kind).toBe("nudge")
  })
})

describe("hand-off wins: a reply that asks the user is never answered for them", () => {
  test.each([
    ["ready, once approved", "Ready to continue with task 3 once you approve the schema.", NO_LIST],
    ["action intent that asks to confirm", "Before I delete anything, please confirm:", NO_LIST],
    ["a wait for approval, with open todos (no reminder either)", "Waiting for your approval before I push to main.", openList],
    ["a question followed by a sign-off", "Should I also update the changelog?\nThanks!", openList],
    ["a decision asked in Chinese", "请确认是否继续。", openList],
  ])("%s: nothing is sent, the turn stands down", (_name, text, todos) => {
    const v = judge(text, { todos })
    expect(outcome(v)).toBe("none")
    expect(v.kind).toBe("stand-down")
  })

  test("negative control: the same announcement without the request is still nudged", () => {
    expect(outcome(judge("Ready to continue with task 3."))).toBe("send:ready-to-continue")
    expect(outcome(judge("Before I delete anything, let me list the files:"))).toBe("send:action-intent")
  })
})

describe("a turn that just stops with open todos gets the open-todo reminder", () => {
  const plain = "The bug is in the tokenizer: it drops the last quote."

  test("the reminder names the open items, as a correction", () => {
    const v = judge(plain, { todos: openList })
    expect(v.kind === "nudge" && [v.feature, v.sendKind]).toEqual(["todo-reminder", "correction"])
    const prompt = v.kind === "nudge" ? v.text : ""
    expect(prompt).toContain("Verify the plugin loads")
    expect(prompt).toContain("Write the README section")
    expect(prompt).not.toContain("Set up the repo")
    // "done" about one step is no done claim: the open items are named, or the model is told to go on.
    expect(["send:todo-reminder", "send:ready-to-continue"]).toContain(outcome(judge("step 1 done", { todos: openList })))
  })

  test.each([
    ["no todo list", { todos: NO_LIST }],
    ["every todo closed", { todos: closedList }],
    ["an unreadable list", { todos: UNREADABLE }],
    ["the user was active just now", { todos: openList, lastGenuineUserAt: NOW - 1_000 }],
    ["its budget is spent", { todos: openList, budgets: { "todo-reminder": 3 } }],
    ["a question or permission is open", { todos: openList, awaitingUser: true }],
  ] as Array<[string, Partial<JudgeInput>]>)("nothing when %s", (_name, overrides) => {
    expect(outcome(judge(plain, overrides))).toBe("none")
  })

  test("a reply that asks the user is not answered with the reminder", () => {
    expect(outcome(judge("I found the issue. Should I fix it now?", { todos: openList }))).toBe("none")
  })
})

describe("a doubt that the reply asks the user holds the open-todo reminder", () => {
  const finding = "The cache is keyed by the request path, so query strings share an entry."
  test("the classifier's doubt: no reminder, the todos wait for the user", () => {
    const v = judge(finding, { todos: openList, ending: { mayAsk: "the ending may ask the user (p=0.30)" } })
    expect(outcome(v)).toBe("none")
    expect(v.reason).toContain("the ending may ask the user")
  })
  test("control: the same turn without the doubt gets the reminder", () => {
    expect(outcome(judge(finding, { todos: openList, ending: {} }))).toBe("send:todo-reminder")
  })
  test("a family a rule read is not held by the doubt (a stop with open todos still gets its reminder)", () => {
    const stop = { family: "stop", layer: "rule", detail: "stopping here" } as const
    expect(outcome(judge("Stopping here.", { todos: openList, ending: { family: stop, mayAsk: "p=0.2" } }))).toBe("send:todo-reminder")
  })
})

describe("a stop only the classifier read", () => {
  const modelStop = { family: { family: "stop", layer: "model", detail: "the ending reads as stop (p=0.86)" } } as const
  const ruleStop = { family: { family: "stop", layer: "rule", detail: "stopping here" } } as const
  test("with nothing open: neither latched nor sent", () => {
    expect(outcome(judge("Still failing.", { todos: NO_LIST, ending: modelStop }))).toBe("none")
  })
  test("control: a stop the rules read latches", () => {
    expect(outcome(judge("Stopping here.", { todos: NO_LIST, ending: ruleStop }))).toBe("latch:stop-statement")
  })
  test("with a todo open it still gets the reminder", () => {
    expect(outcome(judge("Still failing.", { todos: openList, ending: modelStop }))).toBe("send:todo-reminder")
  })
})

describe("a command exchange of ours (the 1.x /auto-resume reply, marked by the host adapter)", () => {
  const reply = (ours: boolean): TranscriptMessage => ({ ...said("Done."), ...(ours ? { ours: "command" as const } : {}) })
  test("is no turn of the model: both passes stand down", () => {
    expect(judge(reply(true)).kind).toBe("stand-down")
    expect(judgeFirstPass(input(reply(true))).kind).toBe("stand-down")
  })
  test("control: the same text from the model is judged (a bare done claim asks for a report)", () => {
    expect(outcome(judge(reply(false)))).toBe("send:done-claim")
  })
})
