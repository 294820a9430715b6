/**
 * The subagents path (paths/subagents): first its step's own contract with the runtime (what a
 * child's signal and a parent's look answer, as data), then timelines through the runtime in the
 * engine, on the simulated clock.
 */
import { describe, expect, test } from "bun:test"
import type { Signal } from "../../../src/core/port.ts"
import { newSessionState, ownAwaiting, ownOpenTools, type SessionState } from "../../../src/core/session-state.ts"
import { effectiveOptions, resolveOptions } from "../../../src/options/index.ts"
import { subagentsPath, type SubagentsState } from "../../../src/paths/subagents/path.ts"
import type { Hold } from "../../../src/runtime/may-act.ts"
import type { PathEffect, PathInput, StepContext, StepResult } from "../../../src/runtime/path.ts"
import { makeHarness, type Harness } from "../../support/harness.ts"

describe("the step", () => {
  const options = effectiveOptions(resolveOptions({}, {}))
  /** The sessions the step may look at, and the path's state for each. */
  type World = { sessions: Map<string, SessionState>; states: Map<string, SubagentsState>; hold?: Hold }
  const stateOf = (w: World, id: string) => w.states.get(id) ?? subagentsPath.initial()
  function context(w: World, id: string, now: number): StepContext {
    const peer = (other: string) => {
      const session = w.sessions.get(other)
      return session && { session, state: stateOf(w, other) }
    }
    return {
      session: w.sessions.get(id)!,
      now,
      options: () => options,
      mayAct: () => w.hold,
      goal: () => undefined,
      paused: () => false,
      unknownModels: () => new Set<string>(),
      peer,
      tracked: () => [...w.sessions.keys()].map((other) => peer(other)!),
    }
  }
  function step(w: World, id: string, input: PathInput, now: number): StepResult<SubagentsState> | undefined {
    const result = subagentsPath.step(stateOf(w, id), input, context(w, id, now))
    if (result) w.states.set(id, result.state)
    return result
  }
  const signal = (w: World, id: string, s: Partial<Signal> & { type: Signal["type"] }, now: number) => step(w, id, { type: "signal", signal: { sessionID: id, ...s } as Signal }, now)
  const kinds = (effects: readonly PathEffect[] | undefined) => (effects ?? []).map((e) => e.kind)

  /** A busy parent holding its task call, and a busy child created under it at 0 that wrote at 0. */
  function parentAndChild(): World {
    const parent = newSessionState("parent", 0)
    parent.busy = true
    ownOpenTools(parent).set("call_task", { tool: "task", startedAt: 0, subagent: "wait" })
    const child = newSessionState("child", 0)
    child.parentID = "parent"
    const w: World = { sessions: new Map([["parent", parent], ["child", child]]), states: new Map() }
    signal(w, "child", { type: "sessionCreated", parentID: "parent" }, 0)
    child.busy = true
    child.idleEpoch++
    signal(w, "child", { type: "busy" }, 0)
    return w
  }

  test("a child's signal tells its parent's step to look again; the parent lists the child once told", () => {
    const w = parentAndChild()
    const told = signal(w, "child", { type: "toolStart", callID: "c1", tool: "bash" }, 1_000)
    expect(told?.effects).toContainEqual({ kind: "tell", session: "parent" })
    step(w, "parent", { type: "told", from: "child" }, 1_000)
    expect(stateOf(w, "parent").children).toEqual(["child"])
  })

  test("negative control: a session with no parent tells no one", () => {
    const w = parentAndChild()
    const result = signal(w, "parent", { type: "toolStart", callID: "c2", tool: "bash" }, 1_000)
    expect(kinds(result?.effects)).not.toContain("tell")
  })

  test("a quiet child's nudge is an act naming the child; one that reached it counts the child's turns from there", () => {
    for (const outcome of ["ok", "failed"] as const) {
      const w = parentAndChild()
      step(w, "parent", { type: "told", from: "child" }, 0)
      const looked = step(w, "parent", { type: "wake" }, 61_000)
      const act = looked?.effects.find((e): e is Extract<PathEffect, { kind: "act" }> => e.kind === "act")
      expect(act).toMatchObject({ kind: "act", target: "child", effect: { kind: "nudge", sessionID: "child" }, via: { label: "send subagent nudge" } })
      const decided = stateOf(w, "parent").orphan.unanswered
      // A turn of the child while the prompt was on its way was no answer to it.
      signal(w, "child", { type: "toolEnd", callID: "c1" }, 61_500)
      step(w, "parent", { type: "effectSettled", id: act!.id!, outcome: { kind: "delivered", outcome } }, 62_000)
      const after = stateOf(w, "parent")
      expect(after.nudges).toEqual([])
      if (outcome === "ok") expect(after.orphan.unanswered[0]!.turns).toBe(decided[0]!.turns + 1)
      // Negative control: a nudge that never reached the child leaves the count as it was decided.
      else expect(after.orphan.unanswered).toEqual(decided)
    }
  })

  test("a nudge due while the parent is paused is one held line in the child's history, nothing sent", () => {
    const w = parentAndChild()
    step(w, "parent", { type: "told", from: "child" }, 0)
    w.hold = { reason: "paused", by: "user" }
    const looked = step(w, "parent", { type: "wake" }, 61_000)
    expect(kinds(looked?.effects)).toEqual(["journal-refused"])
    expect(looked?.effects[0]).toMatchObject({ target: "child", action: "prompt to the subagent", why: "held", reason: "parent parent: paused" })
  })

  test("the parent holds while a child waits on its user; not otherwise", () => {
    const w = parentAndChild()
    step(w, "parent", { type: "told", from: "child" }, 0)
    const peers = (id: string) => {
      const session = w.sessions.get(id)
      return session && { session, state: stateOf(w, id) }
    }
    expect(subagentsPath.holds!(stateOf(w, "parent"), 0, peers)).toBeUndefined()
    ownAwaiting(w.sessions.get("child")!).add("q1")
    expect(subagentsPath.holds!(stateOf(w, "parent"), 0, peers)).toBe("subagent child is waiting for the user")
  })

  test("every child settled is what lets the orphan abort end the parent's subagent call: a finished child is, a working one is not", () => {
    const w = parentAndChild()
    step(w, "parent", { type: "told", from: "child" }, 0)
    expect(subagentsPath.waitedOnSettled!(stateOf(w, "parent"), context(w, "parent", 1_000))).toBe(false)
    const child = w.sessions.get("child")!
    child.busy = false
    child.idleEpoch++
    signal(w, "child", { type: "idle" }, 1_000)
    expect(subagentsPath.waitedOnSettled!(stateOf(w, "parent"), context(w, "parent", 1_000))).toBe(true)
  })
})

type Sig = Partial<Signal> & { type: Signal["type"] }
const on = (h: Harness, sessionID: string, ...signals: Sig[]) => h.emit(...signals.map((s) => ({ ...s, sessionID })))
const nudges = (h: Harness) => h.port.sends.filter((s) => s.sessionID === "child" && s.kind === "correction").length
const genuine: Sig = { type: "userMessage", genuine: true }

/** A running child that goes quiet under a busy parent; 61 s later it has had its one nudge. */
async function nudgedChild(): Promise<Harness> {
  const h = makeHarness()
  on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" })
  on(h, "parent", genuine, { type: "busy" })
  await h.advance(61_000, 1000)
  expect(nudges(h)).toBe(1)
  return h
}

/** The parent finishes its turn and the user starts another one: a new busy period. */
function parentNewBusyPeriod(h: Harness): void {
  on(h, "parent", { type: "idle" }, genuine, { type: "busy" })
}

describe("stuck subagent nudge across the parent's busy periods", () => {
  test("a child that showed nothing since its nudge is not nudged again when the parent runs again", async () => {
    const h = await nudgedChild()
    // The nudge's own echo is not a turn of the child.
    on(h, "child", { type: "userMessage", genuine: false })
    parentNewBusyPeriod(h)
    await h.advance(120_000, 1000)
    expect(nudges(h)).toBe(1)
  })

  test("control: a child that answered (new output) and went quiet again is nudged again", async () => {
    const h = await nudgedChild()
    on(h, "child", { type: "modelOutput" })
    parentNewBusyPeriod(h)
    await h.advance(61_000, 1000)
    expect(nudges(h)).toBe(2)
  })

  test("control: a message from the user to the child counts as its turn, even with no output yet", async () => {
    const h = await nudgedChild()
    on(h, "child", genuine)
    parentNewBusyPeriod(h)
    await h.advance(61_000, 1000)
    expect(nudges(h)).toBe(2)
  })

  test("control: a run of the child ending and starting again also counts as its turn", async () => {
    const h = await nudgedChild()
    on(h, "child", { type: "idle" }, { type: "busy" })
    parentNewBusyPeriod(h)
    await h.advance(61_000, 1000)
    expect(nudges(h)).toBe(2)
  })
})

describe("a nudge counts the child's turns from when it reached the child", () => {
  /** A busy parent and a child that goes quiet; the host takes 10 s to accept each prompt. */
  async function slowNudge(): Promise<Harness> {
    const h = makeHarness()
    const send = h.port.send.bind(h.port)
    h.port.send = (request) => send(request).then(() => new Promise<void>((resolve) => h.time.schedule(10_000, resolve)))
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" })
    on(h, "parent", genuine, { type: "busy" })
    await h.advance(61_000, 1000)
    expect(nudges(h)).toBe(1)
    return h
  }

  test("output of the child while the nudge was still on its way is no answer to it: no second nudge", async () => {
    const h = await slowNudge()
    on(h, "child", { type: "modelOutput" })
    await h.advance(10_000, 1000)
    parentNewBusyPeriod(h)
    await h.advance(120_000, 1000)
    expect(nudges(h)).toBe(1)
  })

  test("negative control: output after the nudge was accepted answers it: the child quiet again is nudged again", async () => {
    const h = await slowNudge()
    await h.advance(10_000, 1000)
    on(h, "child", { type: "modelOutput" })
    parentNewBusyPeriod(h)
    await h.advance(120_000, 1000)
    expect(nudges(h)).toBe(2)
  })
})

describe("malformed parent links", () => {
  test("a child named under a second parent keeps its first: one nudge, not one per parent", async () => {
    const h = makeHarness()
    on(h, "child", { type: "sessionCreated", parentID: "first" }, genuine, { type: "busy" })
    on(h, "first", genuine, { type: "busy" })
    on(h, "child", { type: "sessionCreated", parentID: "second" }, genuine, { type: "busy" })
    on(h, "second", genuine, { type: "busy" })
    await h.advance(61_000, 1000)
    expect(nudges(h)).toBe(1)
    expect(h.engine.exportSessions().find((s) => s.id === "child")?.parentID).toBe("first")
    // Control: the second parent still watches a child of its own.
    on(h, "other", { type: "sessionCreated", parentID: "second" }, genuine, { type: "busy" })
    await h.advance(61_000, 1000)
    expect(h.port.sends.filter((s) => s.sessionID === "other" && s.kind === "correction")).toHaveLength(1)
  })

  test("a session named as its own parent is no subagent; a real child of it still is", async () => {
    const h = makeHarness()
    on(h, "loop", { type: "sessionCreated", parentID: "loop" }, genuine, { type: "busy" })
    await h.advance(61_000, 1000)
    expect(h.engine.exportSessions().find((s) => s.id === "loop")?.parentID).toBeUndefined()
    on(h, "child", { type: "sessionCreated", parentID: "loop" }, genuine, { type: "busy" })
    await h.advance(61_000, 1000)
    expect(nudges(h)).toBe(1)
  })
})

describe("a child waiting on the user holds its parent (both hosts)", () => {
  /** A parent blocked on its `task` call for 45 minutes while its child is busy and quiet. */
  async function blockedParent(childAsks: boolean): Promise<Harness> {
    const h = makeHarness()
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_task", tool: "task" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" }, { type: "modelOutput" })
    if (childAsks) on(h, "child", { type: "awaitingUser", key: "q1", open: true })
    await h.advance(45 * 60_000, 5_000)
    return h
  }

  test("past the wedged-tool ceiling the parent is still left alone, and says why", async () => {
    const h = await blockedParent(true)
    expect(h.port.sends).toHaveLength(0)
    expect(h.port.calls.filter((c) => c.kind === "abort")).toHaveLength(0)
    expect(h.port.logs.some((l) => /subagent child is waiting for the user/.test(l.message))).toBe(true)
  })

  test("negative control: without the question, the quiet child is nudged and the wedged parent recovered", async () => {
    const h = await blockedParent(false)
    expect(nudges(h)).toBe(1)
    expect(h.port.sends.filter((s) => s.sessionID === "parent").length).toBeGreaterThan(0)
  })
})

describe("a subagent's silence starts no earlier than its creation or its prompt", () => {
  const DEAD_MS = 120_000
  const orphanAbort = (h: Harness) => h.port.logged(/orphan parent \(subagent child silent/)
  /** `child` wrote once long ago (a session id the plugin already knew), then the parent calls its subagent. */
  async function oldSessionBecomesChild(h: Harness): Promise<void> {
    on(h, "child", genuine, { type: "busy" }, { type: "modelOutput" })
    await h.advance(DEAD_MS + 60_000, 1000)
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_task", tool: "task" })
  }

  test("a child just created is not dead for its old output: the parent holding its call is not aborted", async () => {
    const h = makeHarness({ subagentDeadMs: DEAD_MS, busyStallStrategy: "off" })
    await oldSessionBecomesChild(h)
    on(h, "child", { type: "sessionCreated", parentID: "parent" })
    await h.advance(10_000, 1000)
    expect(orphanAbort(h)).toBe(false)
    expect(h.port.aborts).toBe(0)
  })

  test("a child just given its prompt is not dead for its old output either", async () => {
    const h = makeHarness({ subagentDeadMs: DEAD_MS, busyStallStrategy: "off" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" }, { type: "modelOutput" })
    await h.advance(DEAD_MS + 60_000, 1000)
    on(h, "child", genuine)
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_task", tool: "task" })
    await h.advance(10_000, 1000)
    expect(orphanAbort(h)).toBe(false)
    expect(h.port.aborts).toBe(0)
  })

  test("an interruption of the child is a turn of its own: its silence starts again there", async () => {
    const h = makeHarness({ subagentDeadMs: DEAD_MS, busyStallStrategy: "off" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" }, { type: "modelOutput" })
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_task", tool: "task" })
    await h.advance(DEAD_MS - 10_000, 1000)
    on(h, "child", { type: "interrupted" })
    await h.advance(20_000, 1000)
    expect(orphanAbort(h)).toBe(false)
    expect(h.port.aborts).toBe(0)
  })

  test("control: the same child silent past subagentDeadMs since its creation reads as dead and the parent is aborted", async () => {
    const h = makeHarness({ subagentDeadMs: DEAD_MS, busyStallStrategy: "off" })
    await oldSessionBecomesChild(h)
    on(h, "child", { type: "sessionCreated", parentID: "parent" })
    await h.advance(DEAD_MS + 10_000, 1000)
    expect(orphanAbort(h)).toBe(true)
    expect(h.port.aborts).toBe(1)
  })
})

describe("a subagent swept while idle is still its parent's child when it runs again", () => {
  const tracked = (h: Harness, id: string) => h.engine.exportSessions().some((s) => s.id === id)
  /** `child` finished and was swept; `other` finished later and is still tracked; the parent now holds its task call. */
  async function childBackFromSweep(): Promise<Harness> {
    const h = makeHarness({ busyStallStrategy: "off" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" }, { type: "modelOutput" }, { type: "idle" })
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_bash", tool: "bash" })
    await h.advance(700_000, 5000)
    h.engine.sweep()
    expect(tracked(h, "child")).toBe(false)
    on(h, "other", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" }, { type: "modelOutput" }, { type: "idle" })
    on(h, "parent", { type: "toolEnd", callID: "call_bash" }, { type: "toolStart", callID: "call_task", tool: "task" })
    return h
  }

  test("the child running a tool again keeps its parent, holding its task call, from being aborted", async () => {
    const h = await childBackFromSweep()
    on(h, "child", { type: "toolStart", callID: "call_child", tool: "bash" })
    await h.advance(30_000, 1000)
    expect(h.engine.exportSessions().find((s) => s.id === "child")?.parentID).toBe("parent")
    expect(h.port.aborts).toBe(0)
  })

  test("control: with the child still gone, the finished one alone makes the parent an orphan", async () => {
    const h = await childBackFromSweep()
    await h.advance(30_000, 1000)
    expect(h.port.logged(/orphan parent \(parent still waiting/)).toBe(true)
    expect(h.port.aborts).toBe(1)
  })
})

describe("a parent deleted by the host: its links to its children end with it", () => {
  const DEAD_MS = 120_000
  const orphanAbort = (h: Harness) => h.port.logged(/orphan parent \(subagent child silent/)
  /** A new session under the deleted parent's id holds a subagent call; the old child is silent past subagentDeadMs. */
  async function newParentCallsItsSubagent(h: Harness): Promise<void> {
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_task", tool: "task" })
    await h.advance(DEAD_MS + 10_000, 1000)
  }

  /** `child` finished and was swept while its parent ran a tool; the parent then ends its turn. */
  async function childSwept(): Promise<Harness> {
    const h = makeHarness({ subagentDeadMs: DEAD_MS, busyStallStrategy: "off" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" }, { type: "modelOutput" }, { type: "idle" })
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_bash", tool: "bash" })
    await h.advance(700_000, 5000)
    h.engine.sweep()
    expect(h.engine.exportSessions().some((s) => s.id === "child")).toBe(false)
    on(h, "parent", { type: "toolEnd", callID: "call_bash" }, { type: "idle" })
    return h
  }

  test("a child swept while idle, back after its parent was deleted, is not the new parent's child", async () => {
    const h = await childSwept()
    on(h, "parent", { type: "sessionDeleted" })
    on(h, "child", { type: "busy" })
    await newParentCallsItsSubagent(h)
    expect(h.engine.exportSessions().find((s) => s.id === "child")?.parentID).toBe("parent")
    expect(orphanAbort(h)).toBe(false)
    expect(h.port.aborts).toBe(0)
  })

  test("negative control: the same child back without the delete is still its parent's, and dead it makes the parent an orphan", async () => {
    const h = await childSwept()
    on(h, "child", { type: "busy" })
    await newParentCallsItsSubagent(h)
    expect(orphanAbort(h)).toBe(true)
    expect(h.port.aborts).toBe(1)
  })

  /** The parent ran and went idle while its child ran on; idle, the parent was swept. */
  async function parentSwept(): Promise<Harness> {
    const h = makeHarness({ subagentDeadMs: DEAD_MS, busyStallStrategy: "off" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" }, { type: "modelOutput" })
    on(h, "parent", genuine, { type: "busy" }, { type: "idle" })
    await h.advance(700_000, 5000)
    h.engine.sweep()
    expect(h.engine.exportSessions().some((s) => s.id === "parent")).toBe(false)
    return h
  }
  const childRunsATool = (h: Harness) => on(h, "child", { type: "toolStart", callID: "call_child", tool: "bash" }, { type: "toolEnd", callID: "call_child" })

  test("a parent swept, then deleted while the plugin no longer tracked it, ends its links too", async () => {
    const h = await parentSwept()
    on(h, "parent", { type: "sessionDeleted" })
    childRunsATool(h)
    await newParentCallsItsSubagent(h)
    expect(orphanAbort(h)).toBe(false)
    expect(h.port.aborts).toBe(0)
  })

  test("negative control: a parent swept and not deleted is still the child's when it runs again", async () => {
    const h = await parentSwept()
    childRunsATool(h)
    await newParentCallsItsSubagent(h)
    expect(orphanAbort(h)).toBe(true)
    expect(h.port.aborts).toBe(1)
  })

  test("a child announced again under the parent's id is the new parent's child: dead, it makes that parent an orphan", async () => {
    const h = await childSwept()
    on(h, "parent", { type: "sessionDeleted" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, { type: "busy" })
    await newParentCallsItsSubagent(h)
    expect(orphanAbort(h)).toBe(true)
    expect(h.port.aborts).toBe(1)
  })

  test("a child named under another parent after its first was deleted stays unlinked: the first parent is its parent for good", async () => {
    const h = await childSwept()
    on(h, "parent", { type: "sessionDeleted" })
    on(h, "child", { type: "sessionCreated", parentID: "other" }, { type: "busy" })
    on(h, "other", genuine, { type: "busy" }, { type: "toolStart", callID: "call_task", tool: "task" })
    await newParentCallsItsSubagent(h)
    expect(h.engine.exportSessions().find((s) => s.id === "child")?.parentID).toBe("parent")
    expect(h.port.aborts).toBe(0)
  })
})
