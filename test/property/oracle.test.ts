/**
 * The oracle's own exemptions, checked on the oracle alone: each allows exactly what the README
 * states, and the same calls outside it are still violations.
 */
import { describe, expect, test } from "bun:test"
import { OK_CALL, type CallScript } from "./model.ts"
import { Oracle, T0 } from "./oracle.ts"

const S = "ses_0"
const REFUSED: CallScript = { ...OK_CALL, outcome: "reject" }
const FAILED: CallScript = { ...OK_CALL, outcome: "throw" }
const HUNG: CallScript = { ...OK_CALL, outcome: "hang" }
const FAILURE_PROMPT = (k: number) => `info session ${S}: streaming failure ProviderError: recovery prompt ${k}/3`
const FAILURE_ABORT = `info session ${S}: aborted the run (send failure recovery); prompting in 5000ms`
const NUDGE = `info session ${S}: premature-stop: the turn ended mid-task -> send`
const STALL = `info session ${S}: stall recovery: plain continue; the host did not say whether it still runs it: no abort on a guess`

/** Two continues to one session in one user episode, lifetimeMaxContinues 1: the first with `first`. */
function twoContinues(first: CallScript, line: (k: number) => string): Oracle {
  let now = T0
  const oracle = new Oracle({ lifetimeMaxContinues: 1 }, () => now)
  oracle.hostLog(line(1))
  const record = oracle.call("send", S, first, "continue")
  oracle.settle(record, first.outcome)
  now += 6_000
  oracle.hostLog(line(2))
  oracle.call("send", S, OK_CALL, "continue")
  return oracle
}
const lifetime = (o: Oracle) => o.violations.filter((v) => v.invariant === "4-lifetime").length

describe("invariant 4: a streaming-failure recovery or nudge the host refused or failed does not count", () => {
  test("a refused or failed streaming-failure recovery prompt leaves the budget for the next one", () => {
    expect(lifetime(twoContinues(REFUSED, FAILURE_PROMPT))).toBe(0)
    expect(lifetime(twoContinues(FAILED, FAILURE_PROMPT))).toBe(0)
  })

  test("so does the continue after the abort of an abort + resume recovery, and a nudge", () => {
    expect(lifetime(twoContinues(REFUSED, () => FAILURE_ABORT))).toBe(0)
    expect(lifetime(twoContinues(FAILED, () => NUDGE))).toBe(0)
  })

  test("control: a delivered streaming-failure recovery prompt counts", () => {
    expect(lifetime(twoContinues(OK_CALL, FAILURE_PROMPT))).toBe(1)
  })

  test("control: one that hung (it may still reach the session) counts", () => {
    expect(lifetime(twoContinues(HUNG, FAILURE_PROMPT))).toBe(1)
  })

  test("control: a refused stall continue counts (the exemption names only failure recoveries and nudges)", () => {
    expect(lifetime(twoContinues(REFUSED, () => STALL))).toBe(1)
  })
})

describe("invariant 1: the orphan-parent abort of an open subagent call", () => {
  const DEAD_MS = 1_800_000
  /** Parent ses_1 holds its task call open; child ses_2 is created under it and never starts. */
  function parentWithUnstartedChild(quietMs: number): Oracle {
    let now = T0
    const oracle = new Oracle({ subagentDeadMs: DEAD_MS }, () => now)
    oracle.event({ t: "busy", s: 1 }, "ses_1")
    oracle.event({ t: "toolStart", s: 1, call: 1, tool: "task" }, "ses_1")
    oracle.event({ t: "created", s: 2, parent: 1 }, "ses_2")
    now += quietMs
    oracle.call("abort", "ses_1", OK_CALL)
    return oracle
  }
  const toolOpen = (o: Oracle) => o.violations.filter((v) => v.invariant === "1-tool-open").length

  test("a child created and never started, quiet past subagentDeadMs, counts as dead: the abort is allowed", () => {
    expect(toolOpen(parentWithUnstartedChild(DEAD_MS + 1_000))).toBe(0)
  })

  test("control: the same child created only a minute ago still holds the call open", () => {
    expect(toolOpen(parentWithUnstartedChild(60_000))).toBe(1)
  })
})

describe("invariant 1: a deleted child is over", () => {
  /** Parent ses_1 holds its task call open; its one child ses_2 is deleted, or (control) stays busy and heard from. */
  function parentWithChild(deleted: boolean): Oracle {
    let now = T0
    const oracle = new Oracle({ subagentDeadMs: 1_800_000 }, () => now)
    oracle.event({ t: "busy", s: 1 }, "ses_1")
    oracle.event({ t: "created", s: 2, parent: 1 }, "ses_2")
    oracle.event({ t: "busy", s: 2 }, "ses_2")
    oracle.event({ t: "toolStart", s: 1, call: 1, tool: "task" }, "ses_1")
    now += 60_000
    if (deleted) oracle.event({ t: "deleted", s: 2 }, "ses_2")
    else oracle.event({ t: "output", s: 2 }, "ses_2")
    oracle.call("abort", "ses_1", OK_CALL)
    return oracle
  }
  const toolOpen = (o: Oracle) => o.violations.filter((v) => v.invariant === "1-tool-open").length

  test("the parent's task call over a deleted child may be cut short", () => {
    expect(toolOpen(parentWithChild(true))).toBe(0)
  })

  test("control: a child still running and heard from holds the call open", () => {
    expect(toolOpen(parentWithChild(false))).toBe(1)
  })

  test("an event under the deleted child's id later is not that child again", () => {
    let now = T0
    const oracle = new Oracle({ subagentDeadMs: 1_800_000 }, () => now)
    oracle.event({ t: "busy", s: 1 }, "ses_1")
    oracle.event({ t: "created", s: 2, parent: 1 }, "ses_2")
    oracle.event({ t: "deleted", s: 2 }, "ses_2")
    oracle.event({ t: "idle", s: 2 }, "ses_2")
    oracle.event({ t: "toolStart", s: 1, call: 1, tool: "task" }, "ses_1")
    now += 60_000
    oracle.call("abort", "ses_1", OK_CALL)
    expect(toolOpen(oracle)).toBe(0)
  })
})

describe("invariant 1: a session's parent is the first one the host named", () => {
  /**
   * ses_2 is created under ses_0, then (malformed, no delete between) under ses_1, which holds its
   * task call open over its one finished child ses_3; ses_2 is running. `deletedFirst`: ses_2 was
   * deleted before it was created again, so the second creation is a new session under ses_1.
   */
  function reparented(deletedFirst: boolean): Oracle {
    let now = T0
    const oracle = new Oracle({ subagentDeadMs: 1_800_000 }, () => now)
    oracle.event({ t: "created", s: 2, parent: 0 }, "ses_2")
    if (deletedFirst) oracle.event({ t: "deleted", s: 2 }, "ses_2")
    oracle.event({ t: "busy", s: 1 }, "ses_1")
    oracle.event({ t: "toolStart", s: 1, call: 1, tool: "task" }, "ses_1")
    oracle.event({ t: "created", s: 3, parent: 1 }, "ses_3")
    oracle.event({ t: "busy", s: 3 }, "ses_3")
    oracle.event({ t: "idle", s: 3 }, "ses_3")
    oracle.event({ t: "created", s: 2, parent: 1 }, "ses_2")
    oracle.event({ t: "busy", s: 2 }, "ses_2")
    now += 60_000
    oracle.event({ t: "output", s: 2 }, "ses_2")
    oracle.call("abort", "ses_1", OK_CALL)
    return oracle
  }
  const toolOpen = (o: Oracle) => o.violations.filter((v) => v.invariant === "1-tool-open").length

  test("a re-parenting without a delete is ignored, as the plugin ignores it: ses_1's only child finished, the abort is allowed", () => {
    expect(toolOpen(reparented(false))).toBe(0)
  })

  test("control: created again after a delete, it is ses_1's child, running: the call is held open", () => {
    expect(toolOpen(reparented(true))).toBe(1)
  })
})

describe("invariant 1: a parent deleted and seen again", () => {
  test("hears of a child announced again under it (its first parent): the running child holds the call open", () => {
    let now = T0
    const oracle = new Oracle({ subagentDeadMs: 1_800_000 }, () => now)
    oracle.event({ t: "created", s: 2, parent: 1 }, "ses_2")
    oracle.event({ t: "deleted", s: 1 }, "ses_1")
    oracle.event({ t: "busy", s: 1 }, "ses_1")
    oracle.event({ t: "toolStart", s: 1, call: 1, tool: "task" }, "ses_1")
    oracle.event({ t: "created", s: 3, parent: 1 }, "ses_3")
    oracle.event({ t: "busy", s: 3 }, "ses_3")
    oracle.event({ t: "idle", s: 3 }, "ses_3")
    oracle.event({ t: "created", s: 2, parent: 1 }, "ses_2")
    oracle.event({ t: "busy", s: 2 }, "ses_2")
    now += 60_000
    oracle.event({ t: "output", s: 2 }, "ses_2")
    oracle.call("abort", "ses_1", OK_CALL)
    expect(oracle.violations.filter((v) => v.invariant === "1-tool-open").length).toBe(1)
  })
})
