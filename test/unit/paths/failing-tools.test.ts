/**
 * The failing-tools path (paths/failing-tools/): its step counting each tool's failures in a row
 * from the calls' ends, and its finished-turn rule answering three with one correction. The
 * timelines through the default export on both hosts are the matrix rows failing-tool*; the real
 * 1.18.33 host is test/e2e/failing-tools.e2e.test.ts.
 */
import { describe, expect, test } from "bun:test"
import { FAILURES_IN_A_ROW, failingToolsPath, type FailingToolsState } from "../../../src/paths/failing-tools/path.ts"
import { OPTION_DEFAULTS } from "../../../src/options/index.ts"
import type { Signal, ToolOutcome } from "../../../src/core/port.ts"
import type { PathInput, PathTurnRule, StepContext, TurnAnswer } from "../../../src/runtime/path.ts"
import { feed } from "../../support/path-steps.ts"

type Facts = Parameters<PathTurnRule<FailingToolsState>["decide"]>[0]

const ctx = { session: { id: "s1" } } as unknown as StepContext
const rule = failingToolsPath.turnRules![0]!

let seq = 0
const end = (tool: string, outcome: ToolOutcome, error?: string, callID = `c${++seq}`): PathInput => ({
  type: "signal",
  signal: { type: "toolEnd", sessionID: "s1", callID, tool, outcome, ...(error ? { error } : {}) },
})
const missing = (n: number) => end("read", "failed", `File not found: src/missing-${n}.ts`)
const userWrote = (genuine = true): PathInput => ({ type: "signal", signal: { type: "userMessage", sessionID: "s1", genuine } })

function streaksAfter(inputs: PathInput[], from?: FailingToolsState) {
  return feed(failingToolsPath, inputs, ctx, from).state
}

/** The rule over a turn the model ended, with the session as the judge hands it. */
function decide(state: FailingToolsState, session: Partial<{ awaiting: Set<string>; featureCounts: Map<string, number> }> = {}, last: Record<string, unknown> = {}) {
  const facts = {
    state: { awaiting: new Set(), featureCounts: new Map(), toolsInFlightAtIdle: 0, ...session },
    options: OPTION_DEFAULTS,
    messages: [
      { id: "u1", role: "user", parts: [{ kind: "text", text: "fix it" }] },
      { id: "a1", role: "assistant", finish: "stop", parts: [{ kind: "text", text: "I could not find the file." }], ...last },
    ],
  } as unknown as Facts
  return rule.decide(facts, { state, tools: undefined }) as TurnAnswer<FailingToolsState> | undefined
}

describe("the failing-tools path's step", () => {
  test("three failures of one tool in a row are counted, with the newest error", () => {
    const state = streaksAfter([missing(1), missing(2), missing(3)])
    expect(state.streaks).toEqual({ read: { failures: 3, error: "File not found: src/missing-3.ts" } })
  })

  test("a success of the tool ends its streak; another tool's calls in between do not", () => {
    expect(streaksAfter([missing(1), missing(2), end("read", "ok"), missing(3)]).streaks.read?.failures).toBe(1)
    expect(streaksAfter([missing(1), end("bash", "ok"), end("edit", "failed", "x"), missing(2), missing(3)]).streaks.read?.failures).toBe(3)
  })

  test("a call the user denied ends the streak and is never counted; a missing tool is not this path's; an aborted call is neither", () => {
    expect(streaksAfter([missing(1), missing(2), end("read", "denied", "The user rejected permission")]).streaks).toEqual({})
    expect(streaksAfter([end("read", "denied"), end("read", "denied"), end("read", "denied")]).streaks).toEqual({})
    expect(streaksAfter([end("bassh", "unavailable"), end("bassh", "unavailable"), end("bassh", "unavailable")]).streaks).toEqual({})
    // A run stopped under a call (ESC, our abort) neither counts nor ends the row.
    expect(streaksAfter([missing(1), end("read", "aborted", "Tool execution aborted"), missing(2)]).streaks.read?.failures).toBe(2)
  })

  test("a call's end reported twice is counted once", () => {
    const again = end("read", "failed", "File not found", "same")
    expect(streaksAfter([again, again, again]).streaks.read?.failures).toBe(1)
  })

  test("a command keeps failing only when it fails the same way", () => {
    const exit = (text: string) => end("bash", "failed", text)
    expect(streaksAfter([exit("exit code 1: (no output)"), exit("exit code 1: (no output)"), exit("exit code 1: (no output)")]).streaks.bash?.failures).toBe(3)
    expect(streaksAfter([exit("exit code 1: 3 failed"), exit("exit code 1: 2 failed"), exit("exit code 1: 1 failed")]).streaks.bash?.failures).toBe(1)
  })

  test("the user writing starts afresh; the plugin's own prompt does not", () => {
    const three = streaksAfter([missing(1), missing(2), missing(3)])
    expect(streaksAfter([userWrote()], three).streaks).toEqual({})
    expect(streaksAfter([userWrote(false)], three)).toBe(three)
  })

  test("a call's end the host reported without a tool or an outcome (1.x tool.execute.after) changes nothing", () => {
    const bare: Signal = { type: "toolEnd", sessionID: "s1", callID: "c9" }
    expect(failingToolsPath.step(failingToolsPath.initial(), { type: "signal", signal: bare }, ctx)).toBeUndefined()
  })

  test("streaks are kept for at most 16 tools, the longest-ago failing going first", () => {
    const state = streaksAfter(Array.from({ length: 20 }, (_, i) => end(`tool${i}`, "failed", "x")))
    expect(Object.keys(state.streaks)).toHaveLength(16)
    expect(state.streaks.tool0).toBeUndefined()
    expect(state.streaks.tool19?.failures).toBe(1)
  })
})

describe("the failing-tools rule at the turn's end", () => {
  const three = () => streaksAfter([missing(1), missing(2), missing(3)])

  test("three failures in a row: one quiet correction naming the tool, its error and what to do instead; the streak starts over", () => {
    const answer = decide(three())
    expect(answer?.effect).toMatchObject({ kind: "nudge", sendKind: "correction", feature: "failing-tool" })
    if (answer?.effect?.kind !== "nudge") throw new Error("no nudge")
    expect(answer.effect.text).toContain('`read` has failed 3 times in a row; last error: "File not found: src/missing-3.ts". List the folder')
    expect(answer.state?.streaks).toEqual({})
  })

  test("what to do instead follows what the tool does", () => {
    const text = (tool: string) => {
      const answer = decide({ streaks: { [tool]: { failures: 3, error: "e" } }, counted: [] })
      return answer?.effect?.kind === "nudge" ? answer.effect.text : ""
    }
    expect(text("edit")).toContain("Re-read the file")
    expect(text("bash")).toContain("change approach (another command")
    expect(text("webfetch")).toContain("change approach rather than calling it again")
  })

  test("negative controls: two failures, or three failures of three tools, get nothing", () => {
    expect(decide(streaksAfter([missing(1), missing(2)]))).toBeUndefined()
    expect(decide(streaksAfter([missing(1), end("edit", "failed", "x"), end("bash", "failed", "exit code 2: y")]))).toBeUndefined()
    expect(FAILURES_IN_A_ROW).toBe(3)
  })

  test("the judge's guards hold it: a question open, a turn that ended in an error (ESC), a turn the user answered", () => {
    expect(decide(three(), { awaiting: new Set(["p1"]) })).toBeUndefined()
    expect(decide(three(), {}, { errorName: "MessageAbortedError" })).toBeUndefined()
    expect(decide(three(), {}, { role: "user" })).toBeUndefined()
  })

  test("a malfunction of the last answer is the judge's first: an answer cut off at the output limit", () => {
    expect(decide(three(), {}, { finish: "length" })).toBeUndefined()
  })

  test("its budget is finishedTurnMaxNudges, counted until the user writes", () => {
    expect(decide(three(), { featureCounts: new Map([["failing-tool", OPTION_DEFAULTS.finishedTurnMaxNudges]]) })).toBeUndefined()
    expect(decide(three(), { featureCounts: new Map([["failing-tool", OPTION_DEFAULTS.finishedTurnMaxNudges - 1]]) })?.effect).toBeDefined()
  })

  test("it looks before the judge, in the second pass", () => {
    expect(rule).toMatchObject({ name: "failing-tool", pass: "second", priority: 42 })
  })
})
