import { describe, expect, test } from "bun:test"
import {
  childSettled,
  classifyChild,
  INITIAL_ORPHAN_STATE,
  nextOrphanStep,
  STUCK_CHILD_MS,
  STUCK_CHILD_TOOL_MS,
  type ChildFacts,
  type OrphanBudgets,
  type OrphanState,
  type OrphanStep,
  type ParentFacts,
} from "../../../src/paths/subagents/machine.ts"
import { buildCrashedSubagentPrompt, buildStuckSubagentPrompt, orphanParentReason } from "../../../src/paths/subagents/prompt.ts"

const budgets: OrphanBudgets = { subagentWaitMs: 15_000, gracePeriodMs: 3_000, subagentDeadMs: 1_800_000, subagentToolNames: ["task"] }

const child = (patch: Partial<ChildFacts> = {}): ChildFacts => ({
  id: "child",
  status: "idle",
  lastOutputAt: 0,
  toolInProgress: false,
  awaitingUser: false,
  cancelledByUser: false,
  turns: 0,
  ...patch,
})

/** A parent still holding its `task` call open after its child went idle at t=0. */
const orphan = (patch: Partial<ParentFacts> = {}): ParentFacts => ({
  busy: true,
  lastActivityAt: 0,
  openTools: ["task"],
  awaitingUser: false,
  blocked: false,
  children: [child()],
  ...patch,
})

function drive(points: [number, ParentFacts][], start: OrphanState = INITIAL_ORPHAN_STATE): OrphanStep[] {
  let state = start
  return points.map(([now, facts]) => {
    const step = nextOrphanStep(state, facts, now, budgets)
    state = step.state
    return step
  })
}
const kinds = (steps: OrphanStep[]) => steps.map((s) => s.effect.kind)

describe("orphan parent", () => {
  test("waits subagentWaitMs + gracePeriodMs, then aborts and resumes the parent (finished child: nothing to nudge)", () => {
    const steps = drive([
      [1_000, orphan()],
      [18_999, orphan()],
      [19_000, orphan()],
      [30_000, orphan()],
    ])
    expect(steps[0]!.state.phase).toBe("orphan-wait")
    expect(steps[0]!.wakeAt).toBe(19_000)
    expect(kinds(steps)).toEqual(["none", "none", "abort-continue", "none"])
    expect(steps[3]!.state.phase).toBe("resumed")
  })

  test("a crashed child is nudged once, then the parent gets another subagentWaitMs", () => {
    const crashed = orphan({ children: [child({ status: "error" })] })
    const steps = drive([
      [0, crashed],
      [18_000, crashed], // probe: nudge the child
      [32_999, crashed],
      [33_000, crashed], // still stuck: abort + resume the parent
    ])
    expect(kinds(steps)).toEqual(["none", "nudge", "none", "abort-continue"])
    expect(steps[1]!.effect).toMatchObject({ sessionID: "child", feature: "subagent-crashed" })
    expect(steps[1]!.wakeAt).toBe(33_000)
  })

  test("the nudged child comes back to life: the parent is left alone; a second crash is not nudged again", () => {
    const crashed = orphan({ children: [child({ status: "error" })] })
    const revived = orphan({ children: [child({ status: "busy", lastOutputAt: 20_000 })] })
    const crashedAgain = orphan({ children: [child({ status: "error", lastOutputAt: 40_000 })] })
    const steps = drive([
      [0, crashed],
      [18_000, crashed],
      [20_000, revived],
      [40_000, crashedAgain], // a new wait starts
      [58_000, crashedAgain], // no second nudge: straight to the parent
    ])
    expect(kinds(steps)).toEqual(["none", "nudge", "none", "none", "abort-continue"])
    expect(steps[2]!.state.phase).toBe("watching")
  })

  test("a child cancelled by the user is not nudged (it reads as finished)", () => {
    const escaped = orphan({ children: [child({ status: "error", cancelledByUser: true })] })
    expect(kinds(drive([[0, escaped], [18_000, escaped]]))).toEqual(["none", "abort-continue"])
  })

  test("parent activity during the wait means it picked up: no action", () => {
    const steps = drive([
      [0, orphan()],
      [5_000, orphan({ lastActivityAt: 5_000, openTools: [] })], // task call closed, parent working
      [30_000, orphan({ lastActivityAt: 5_000, openTools: [] })],
    ])
    expect(kinds(steps)).toEqual(["none", "none", "none"])
    expect(steps[2]!.state.phase).toBe("watching")
  })

  test("parent activity while the call is still open restarts the wait", () => {
    const steps = drive([
      [0, orphan()],
      [10_000, orphan({ lastActivityAt: 10_000 })],
      [18_000, orphan({ lastActivityAt: 10_000 })], // the first deadline no longer applies
      [28_000, orphan({ lastActivityAt: 10_000 })],
    ])
    expect(kinds(steps)).toEqual(["none", "none", "none", "abort-continue"])
    expect(steps[1]!.state).toMatchObject({ phase: "orphan-wait", since: 10_000, deadline: 28_000 })
  })

  test("a slow parent that closed its subagent call is not an orphan (stall watchdog's job)", () => {
    const slow = orphan({ openTools: [] })
    expect(kinds(drive([[0, slow], [60_000, slow], [600_000, slow]]))).toEqual(["none", "none", "none"])
  })

  test("no subagents: nothing (confirm the survivor has children)", () => {
    const lonely = orphan({ children: [] })
    expect(kinds(drive([[0, lonely], [60_000, lonely]]))).toEqual(["none", "none"])
  })

  test("never while the parent has another tool in flight; the wait restarts when it ends", () => {
    const withBash = orphan({ openTools: ["task", "bash"] })
    const steps = drive([
      [0, orphan()],
      [10_000, withBash],
      [19_000, withBash], // the original deadline passes while bash runs
      [20_000, orphan()], // bash done: a fresh wait starts here
      [37_999, orphan()],
      [38_000, orphan()],
    ])
    expect(kinds(steps)).toEqual(["none", "none", "none", "none", "none", "abort-continue"])
    expect(steps[1]!.effect).toMatchObject({ reason: expect.stringContaining("bash") })
  })

  test("never while the parent waits on the user", () => {
    const asking = orphan({ awaitingUser: true })
    expect(kinds(drive([[0, asking], [100_000, asking]]))).toEqual(["none", "none"])
  })

  test("never for an idle, cancelled, paused or completed parent; that resets the machine", () => {
    const mid = drive([[0, orphan()]])[0]!.state
    expect(nextOrphanStep(mid, orphan({ busy: false }), 50_000, budgets)).toMatchObject({ state: INITIAL_ORPHAN_STATE, effect: { kind: "none" } })
    expect(nextOrphanStep(mid, orphan({ blocked: true }), 50_000, budgets)).toMatchObject({ state: INITIAL_ORPHAN_STATE, effect: { kind: "none" } })
  })

  test("a parent blocked on a running subagent is left alone", () => {
    const running = orphan({ children: [child({ status: "busy", lastOutputAt: 100_000 })] })
    const steps = drive([
      [100_000, running],
      [150_000, running],
    ])
    expect(kinds(steps)).toEqual(["none", "none"])
    expect(steps[1]!.wakeAt).toBe(100_000 + STUCK_CHILD_MS)
  })

  test("one running child among finished ones still protects the parent", () => {
    const mixed = orphan({ children: [child({ id: "a" }), child({ id: "b", status: "busy", lastOutputAt: 10_000 })] })
    expect(kinds(drive([[10_000, mixed], [40_000, mixed]]))).toEqual(["none", "none"])
  })

  test("once resumed, nothing more this busy period", () => {
    const steps = drive([
      [0, orphan()],
      [18_000, orphan()],
      [60_000, orphan()],
      [600_000, orphan()],
    ])
    expect(kinds(steps).filter((k) => k === "abort-continue")).toHaveLength(1)
  })
})

describe("stuck subagent", () => {
  const busyChild = (lastOutputAt: number, patch: Partial<ChildFacts> = {}) =>
    orphan({ children: [child({ status: "busy", lastOutputAt, ...patch })] })

  test("no output for 60 s -> one recovery prompt to the child, before anything on the parent", () => {
    const steps = drive([
      [59_999, busyChild(0)],
      [60_000, busyChild(0)],
      [120_000, busyChild(0)],
    ])
    expect(kinds(steps)).toEqual(["none", "nudge", "none"])
    expect(steps[1]!.effect).toMatchObject({ sessionID: "child", feature: "subagent-stuck" })
    expect(steps[1]!.state.phase).toBe("child-nudged")
  })

  test("with a tool in progress the child gets 180 s", () => {
    const steps = drive([
      [179_999, busyChild(0, { toolInProgress: true })],
      [180_000, busyChild(0, { toolInProgress: true })],
    ])
    expect(kinds(steps)).toEqual(["none", "nudge"])
    expect(STUCK_CHILD_TOOL_MS).toBe(180_000)
  })

  test("a quiet child is waited on until subagentDeadMs; then it reads as dead and the parent is aborted and resumed", () => {
    const steps = drive([
      [60_000, busyChild(0)],
      [1_799_999, busyChild(0)],
      [1_800_000, busyChild(0)],
    ])
    expect(kinds(steps)).toEqual(["nudge", "none", "abort-continue"])
    expect(steps[1]!.wakeAt).toBe(1_800_000)
    expect(steps[2]!.effect).toMatchObject({ reason: expect.stringContaining("subagentDeadMs") })
  })

  test("a dead child with no subagent call open in the parent: the parent is not touched", () => {
    const detached = orphan({ openTools: [], children: [child({ status: "busy", lastOutputAt: 0 })] })
    const steps = drive([
      [60_000, detached],
      [2_000_000, detached],
    ])
    expect(kinds(steps)).toEqual(["nudge", "none"])
  })

  test("a child waiting on its user (permission, question) is never nudged", () => {
    const asking = busyChild(0, { awaitingUser: true })
    expect(kinds(drive([[60_000, asking], [3_600_000, asking]]))).toEqual(["none", "none"])
  })

  test("new output after the nudge: back to running, no further nudge for that child this period", () => {
    const steps = drive([
      [60_000, busyChild(0)],
      [70_000, busyChild(65_000)],
      [200_000, busyChild(65_000)],
    ])
    expect(kinds(steps)).toEqual(["nudge", "none", "none"])
    expect(steps[1]!.state.phase).toBe("watching")
  })

  test("the parent going idle keeps the nudge until the child shows a turn of its own", () => {
    // The child went quiet again after a turn of its own: a new nudge is worth it.
    const answered = drive([
      [60_000, busyChild(0)],
      [61_000, orphan({ busy: false })],
      [200_000, busyChild(100_000, { turns: 1 })],
    ])
    expect(kinds(answered)).toEqual(["nudge", "none", "nudge"])
    // Nothing from the child in between: the parent's new busy period is no reason to repeat it.
    const silent = drive([
      [60_000, busyChild(0)],
      [61_000, orphan({ busy: false })],
      [62_000, busyChild(0)],
      [200_000, busyChild(0)],
    ])
    expect(kinds(silent)).toEqual(["nudge", "none", "none", "none"])
    expect(silent[1]!.state.unanswered).toEqual([{ id: "child", turns: 0 }])
  })

  test("an unanswered nudge also survives the parent being blocked (ESC, pause) and a crash probe", () => {
    const crashed = orphan({ children: [child({ status: "error" })] })
    const steps = drive([
      [0, crashed],
      [18_000, crashed], // probe: nudge the crashed child
      [19_000, orphan({ blocked: true, children: [child({ status: "error" })] })],
      [20_000, crashed], // a new wait, no second probe: straight to the parent
      [38_000, crashed],
    ])
    expect(kinds(steps)).toEqual(["none", "nudge", "none", "none", "abort-continue"])
  })

  test("two stuck children are nudged one per step", () => {
    const two = orphan({ children: [child({ id: "a", status: "busy" }), child({ id: "b", status: "busy" })] })
    const steps = drive([
      [60_000, two],
      [60_001, two],
      [60_002, two],
    ])
    expect(steps.map((s) => (s.effect.kind === "nudge" ? s.effect.sessionID : s.effect.kind))).toEqual(["a", "b", "none"])
  })

  test("classifyChild", () => {
    expect(classifyChild(child({ status: "busy", lastOutputAt: 0 }), 59_999, budgets)).toBe("active")
    expect(classifyChild(child({ status: "busy", lastOutputAt: 0 }), 60_000, budgets)).toBe("stuck")
    expect(classifyChild(child({ status: "busy", lastOutputAt: 0 }), 1_800_000, budgets)).toBe("dead")
    expect(classifyChild(child({ status: "busy", awaitingUser: true }), 9e9, budgets)).toBe("awaiting-user")
    expect(classifyChild(child({ status: "error" }), 0, budgets)).toBe("crashed")
    expect(classifyChild(child({ status: "error", cancelledByUser: true }), 0, budgets)).toBe("finished")
    expect(classifyChild(child(), 0, budgets)).toBe("finished")
  })
})

describe("subagent prompts", () => {
  test("stuck and crashed child prompts, parent reason", () => {
    expect(buildStuckSubagentPrompt(61.4, false)).toContain("no output for about 61 seconds")
    expect(buildStuckSubagentPrompt(200, true)).toContain("a tool call has been running")
    expect(buildCrashedSubagentPrompt()).toContain("ended with an error")
    expect(orphanParentReason("x")).toContain("(x)")
  })
})

describe("what the open-tool guard's orphan-parent exception asks of the core", () => {
  test("a child is settled when it ran and ended (normally or in an error) or is silent past subagentDeadMs", () => {
    const now = 2_000_000
    expect(childSettled(child({ status: "idle" }), now, budgets)).toBe(true)
    expect(childSettled(child({ status: "error" }), now, budgets)).toBe(true)
    expect(childSettled(child({ status: "busy", lastOutputAt: now - budgets.subagentDeadMs }), now, budgets)).toBe(true)
  })

  test("control: a child working, quiet but not dead, or waiting on its user is not settled", () => {
    const now = 2_000_000
    expect(childSettled(child({ status: "busy", lastOutputAt: now - 1_000 }), now, budgets)).toBe(false)
    expect(childSettled(child({ status: "busy", lastOutputAt: now - STUCK_CHILD_MS - 1 }), now, budgets)).toBe(false)
    expect(childSettled(child({ status: "busy", lastOutputAt: 0, awaitingUser: true }), now, budgets)).toBe(false)
  })
})
