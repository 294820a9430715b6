import { describe, expect, test } from "bun:test"
import { decideTaskComplete, type TaskCompleteInput, type TaskCompleteStep } from "../../../src/paths/task-complete/decide.ts"
import { TASK_COMPLETE_ACK, TASK_COMPLETE_REPEAT_ERROR, TASK_COMPLETE_REPEAT_WARNING } from "../../../src/prompts/nudges.ts"
import { closedList, openList } from "../../fixtures/transcript-builders.ts"

/** The step as the four answers it can be: refuse, accept, repeat (a warning) and error (the call fails). */
function view(step: TaskCompleteStep) {
  const { reply, complete, next } = step
  const kind = reply.reason.startsWith("refused") ? "refuse" : reply.reason.startsWith("accepted") ? "accept" : reply.ok ? "repeat" : "error"
  const latch = complete !== undefined
  return kind === "accept" ? { kind, text: reply.text, latch, overrodeOpenTodos: reply.reason.includes("open todos"), next } : { kind, text: reply.text, latch, next }
}

const decide = (input: TaskCompleteInput) => view(decideTaskComplete(input))

const base: TaskCompleteInput = { todos: "none", isSubagent: false, repeatCalls: 0, refusals: 0, maxRefusals: 3 }

describe("task_complete", () => {
  test.each([
    ["no todo list", "none"],
    ["every todo closed", closedList],
    ["an unreadable list never refuses", "unreadable"],
  ] as Array<[string, TaskCompleteInput["todos"]]>)("accepted with %s: latch, and the reply says stop", (_name, todos) => {
    const d = decide({ ...base, todos })
    expect(d).toEqual({ kind: "accept", text: TASK_COMPLETE_ACK, latch: true, overrodeOpenTodos: false, next: { repeatCalls: 1, refusals: 0 } })
    expect(d.text).toMatch(/do not call task_complete again/i)
  })

  test("open todos refuse the call, name the items, and reset the repeat counter", () => {
    const d = decide({ ...base, todos: openList, repeatCalls: 1 })
    expect(d.kind).toBe("refuse")
    expect(d.latch).toBe(false)
    expect(d.next).toEqual({ repeatCalls: 0, refusals: 1 })
    expect(d.text).toContain("1. [pending] Verify the plugin loads")
    expect(d.text).toContain("2. [in_progress] Write the README section")
  })

  test("refusals stop at maxRefusals; then the call is accepted over the open items", () => {
    expect(decide({ ...base, todos: openList, refusals: 2 }).kind).toBe("refuse")
    const d = decide({ ...base, todos: openList, refusals: 3 })
    expect(d.kind === "accept" && d.overrodeOpenTodos).toBe(true)
    expect(decide({ ...base, todos: openList, maxRefusals: 0 }).kind).toBe("accept")
  })

  test("subagents skip the todo gate", () => {
    const d = decide({ ...base, todos: openList, isSubagent: true })
    expect(d.kind).toBe("accept")
    expect(d.kind === "accept" && d.overrodeOpenTodos).toBe(false)
  })

  test("repeats without a user message: acknowledgement, then warning, then errors", () => {
    expect(decide({ ...base, repeatCalls: 1 })).toEqual({ kind: "repeat", text: TASK_COMPLETE_REPEAT_WARNING, latch: true, next: { repeatCalls: 2, refusals: 0 } })
    for (const repeatCalls of [2, 3, 27]) {
      expect(decide({ ...base, repeatCalls })).toEqual({
        kind: "error",
        text: TASK_COMPLETE_REPEAT_ERROR,
        latch: true,
        next: { repeatCalls: repeatCalls + 1, refusals: 0 },
      })
    }
  })

  test("a stuck model looping on task_complete: the engine feeding `next` back gets refusals, one ack, a warning, then errors", () => {
    let counters = { repeatCalls: 0, refusals: 0 }
    const kinds: string[] = []
    for (let call = 0; call < 8; call++) {
      const d = decide({ ...base, todos: openList, ...counters })
      kinds.push(d.kind)
      counters = d.next
    }
    expect(kinds).toEqual(["refuse", "refuse", "refuse", "accept", "repeat", "error", "error", "error"])
    // Another tool ran (the engine resets repeatCalls): the next call is acknowledged again.
    const afterOtherTool = decide({ ...base, todos: openList, ...counters, repeatCalls: 0 })
    expect(afterOtherTool.kind).toBe("accept")
  })

  test("nonsense counters read as zero", () => {
    expect(decide({ ...base, repeatCalls: Number.NaN, refusals: -4 }).kind).toBe("accept")
  })
})

describe("task_complete while the session has a goal", () => {
  const goal = "make the parser tests pass"
  const evidence = "bun test test/parser: 14 pass, 0 fail"
  const withGoal: TaskCompleteInput = { ...base, goal, todos: closedList }

  test("accepted with every todo closed and evidence given: the goal is met, completion latched", () => {
    const step = decideTaskComplete({ ...withGoal, evidence })
    expect(step.goalMet).toBe(true)
    expect(step.complete).toBeDefined()
    expect(step.reply.text).toContain(`Goal met: "${goal}"`)
    // Negative control: without a goal the same call is a plain completion, no goal met.
    expect(decideTaskComplete({ ...base, todos: closedList, evidence }).goalMet).toBeUndefined()
  })

  test.each([
    ["no evidence", undefined],
    ["blank evidence", "   "],
    ["a word or two", "tests pass"],
    ["too short", "ok ok ok"],
  ])("refused with %s, and told what evidence is", (_name, given) => {
    const step = decideTaskComplete({ ...withGoal, evidence: given })
    expect(step.goalMet).toBeUndefined()
    expect(step.complete).toBeUndefined()
    expect(step.reply.text).toMatch(/met only with evidence[\s\S]*commands you ran/)
  })

  test("refused while a todo is open, however often: the goal's own budgets end it, not a refusal count", () => {
    const step = decideTaskComplete({ ...withGoal, todos: openList, evidence, refusals: 10, maxRefusals: 3 })
    expect(step.goalMet).toBeUndefined()
    expect(step.reply.text).toContain("2. [in_progress] Write the README section")
    // A list that could not be read proves nothing closed.
    expect(decideTaskComplete({ ...withGoal, todos: "unreadable", evidence }).goalMet).toBeUndefined()
    // Negative control: without a goal the third refusal is the last.
    expect(decideTaskComplete({ ...base, todos: openList, evidence, refusals: 3 }).complete).toBeDefined()
  })

  test("a repeated call after the goal was met gets the usual warning, not a second 'met'", () => {
    const step = decideTaskComplete({ ...withGoal, evidence, repeatCalls: 1 })
    expect(step.goalMet).toBeUndefined()
    expect(step.reply.text).toBe(TASK_COMPLETE_REPEAT_WARNING)
  })
})
