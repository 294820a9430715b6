/**
 * The task_complete path (paths/task-complete/) as a pure step: a call of the tool in, its
 * answer (and the latch, and a read of the todos when they are not known) out as data. The
 * decision itself is pinned in test/unit/judge/task-complete.test.ts; the engine-level call in
 * test/unit/core/split-budgets.test.ts and test/unit/core/tool-calls.test.ts.
 */
import { describe, expect, test } from "bun:test"
import { taskCompletePath, type TaskCompleteState } from "../../../src/paths/task-complete/path.ts"
import type { PathEffect, PathInput, StepContext, StepResult } from "../../../src/runtime/path.ts"
import { effectiveOptions, resolveOptions } from "../../../src/options/index.ts"

const options = effectiveOptions(resolveOptions({}, {}))
type Session = StepContext["session"]
const OPEN = [{ content: "write the migration", status: "pending" as const }]

function session(over: Partial<Record<keyof Session, unknown>> = {}): Session {
  return { id: "s1", todos: undefined, parentID: undefined, completed: false, ...over } as unknown as Session
}

function step(input: PathInput, s: Session = session(), state: TaskCompleteState = taskCompletePath.initial()): StepResult<TaskCompleteState> | undefined {
  return taskCompletePath.step(state, input, { session: s, now: 1_000, options: () => options, mayAct: () => undefined, goal: () => undefined, paused: () => false, unknownModels: () => new Set() })
}

const called = (call = 7): PathInput => ({ type: "called", tool: "task_complete", call })
const kinds = (effects: readonly PathEffect[] | undefined) => (effects ?? []).map((e) => e.kind)
const reply = (effects: readonly PathEffect[] | undefined) => effects?.find((e) => e.kind === "reply") as Extract<PathEffect, { kind: "reply" }> | undefined

describe("the task_complete path's step", () => {
  test("todos the session reported, all closed: accepted, completion latched, the call answered", () => {
    const r = step(called(), session({ todos: [] }))
    expect(kinds(r?.effects)).toEqual(["latch-complete", "log", "reply"])
    expect(reply(r?.effects)).toMatchObject({ call: 7, ok: true })
    expect(r?.state).toEqual({ repeatCalls: 1, refusals: 0 })
  })

  test("open todos: refused with the list, nothing latched", () => {
    const r = step(called(), session({ todos: OPEN }))
    expect(kinds(r?.effects)).toEqual(["log", "reply"])
    expect(reply(r?.effects)?.text).toContain("write the migration")
    expect(r?.state).toEqual({ repeatCalls: 0, refusals: 1 })
  })

  test("todos not known: read from the host first, and the call answered from what the read found", () => {
    const asked = step(called(9))
    expect(asked?.effects).toEqual([{ kind: "read-todos", id: 9 }])
    const answered = step({ type: "effectSettled", id: 9, outcome: { kind: "todos", todos: OPEN } })
    expect(reply(answered?.effects)).toMatchObject({ call: 9, ok: true })
    expect(answered?.state.refusals).toBe(1)
    // Negative control: another outcome answers nothing.
    expect(step({ type: "effectSettled", id: 9, outcome: { kind: "committed" } })).toBeUndefined()
  })

  test("a subagent's call reads no todos: it skips the open-todos gate", () => {
    const r = step(called(), session({ parentID: "parent" }))
    expect(kinds(r?.effects)).toEqual(["latch-complete", "log", "reply"])
  })

  test("a session already latched is answered without a second latch", () => {
    const r = step(called(), session({ todos: [], completed: true }))
    expect(kinds(r?.effects)).toEqual(["reply"])
  })

  test("another tool run ends the repeats; the tool itself does not", () => {
    const repeated = { repeatCalls: 2, refusals: 1 }
    const tool = (name: string): PathInput => ({ type: "signal", signal: { type: "toolStart", sessionID: "s1", callID: "c", tool: name } })
    expect(step(tool("bash"), session(), repeated)?.state).toEqual({ repeatCalls: 0, refusals: 1 })
    expect(step(tool("task_complete"), session(), repeated)).toBeUndefined()
  })

  test("a genuine user message starts both counts afresh; the plugin's own prompt does not", () => {
    const counted = { repeatCalls: 2, refusals: 1 }
    const message = (genuine: boolean): PathInput => ({ type: "signal", signal: { type: "userMessage", sessionID: "s1", genuine } })
    expect(step(message(true), session(), counted)?.state).toEqual({ repeatCalls: 0, refusals: 0 })
    expect(step(message(false), session(), counted)).toBeUndefined()
  })

  test("its counts are read back after a reload only when they are counts", () => {
    expect(taskCompletePath.restore?.({ repeatCalls: 1, refusals: 2 })).toEqual({ repeatCalls: 1, refusals: 2 })
    expect(taskCompletePath.restore?.({ repeatCalls: "1", refusals: 2 })).toBeUndefined()
    expect(taskCompletePath.restore?.(null)).toBeUndefined()
    expect(taskCompletePath.tools).toEqual(["task_complete"])
  })
})

describe("the task_complete path with a goal (core/goals.ts)", () => {
  const GOAL = { id: "g1", text: "make the parser tests pass", startedAt: 0, continues: 2, status: "active" as const }
  const EVIDENCE = "ran bun test test/parser: 41 pass, 0 fail"
  const withGoal = (input: PathInput, s: Session, state: TaskCompleteState = taskCompletePath.initial()) =>
    taskCompletePath.step(state, input, { session: s, now: 1_000, options: () => options, mayAct: () => undefined, goal: () => GOAL, paused: () => false, unknownModels: () => new Set() })
  const evidenced = (call = 7, evidence: string | undefined = EVIDENCE): PathInput => ({ type: "called", tool: "task_complete", call, args: { evidence } })

  test("todos closed and evidence given: the goal is met (a goal effect, one history line), completion latched", () => {
    const r = withGoal(evidenced(), session({ todos: [] }))
    expect(kinds(r?.effects)).toEqual(["goal", "journal-refused", "log", "latch-complete", "log", "reply"])
    expect(r?.effects[0]).toEqual({ kind: "goal", change: { kind: "ended", goalID: "g1", status: "met", why: "task_complete with evidence" } })
    expect(r?.effects[1]).toMatchObject({ why: "met", reason: `evidence: ${EVIDENCE}` })
  })

  test("no evidence: refused for the goal, nothing latched, the goal kept (negative control)", () => {
    const r = withGoal(evidenced(7, ""), session({ todos: [] }))
    expect(kinds(r?.effects)).toEqual(["log", "reply"])
    expect(r?.state.refusals).toBe(1)
  })

  test("todos not known: the evidence waits with the read, and the answer uses it", () => {
    const asked = withGoal(evidenced(9), session())
    expect(asked?.effects).toEqual([{ kind: "read-todos", id: 9 }])
    const answered = withGoal({ type: "effectSettled", id: 9, outcome: { kind: "todos", todos: "none" } }, session(), asked!.state)
    expect(kinds(answered?.effects)).toContain("goal")
    expect(answered?.state.evidence).toBeUndefined()
  })
})
