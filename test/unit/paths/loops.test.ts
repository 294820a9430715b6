/**
 * The loops path (paths/loops/): the live tracker's detection, its prompt, and its step as the
 * runtime sees it (runtime/path.ts). The engine-level timelines of a live loop stay in the
 * scenario and matrix suites.
 */
import { feed } from "../../support/path-steps.ts"
import { describe, expect, test } from "bun:test"
import { fingerprintArgs } from "../../../src/detect/tool-fingerprint.ts"
import { detectLiveLoop, LIVE_RING_SIZE, nearIdenticalCall, recordToolCall, type ToolCallPrint } from "../../../src/paths/loops/live-loop.ts"
import { loopsPath, type LoopsState } from "../../../src/paths/loops/path.ts"
import { buildToolLoopPrompt } from "../../../src/paths/loops/prompt.ts"
import type { Hold } from "../../../src/runtime/may-act.ts"
import type { PathEffect, PathInput, StepContext } from "../../../src/runtime/path.ts"
import type { Signal } from "../../../src/core/port.ts"

/** The ring as the step keeps it, fed one call at a time. */
class Tracker {
  ring: readonly ToolCallPrint[] = []

  get size(): number {
    return this.ring.length
  }

  record(tool: string, args: unknown) {
    const next = recordToolCall(this.ring, tool, args)
    this.ring = next.ring
    return next.loop
  }
}

describe("near-identical calls", () => {
  const p = (tool: string, args: unknown): ToolCallPrint => ({ tool, ...fingerprintArgs(args) })
  test.each([
    [{ path: "a.ts", offset: 40 }, { path: "a.ts", offset: 41 }, true],
    [{ path: "a.ts", offset: 40 }, { path: "a.ts", offset: 42 }, true],
    [{ cmd: "ls  -la " }, { cmd: "ls -la" }, true],
    [{ path: "a.ts", offset: 40 }, { path: "a.ts", offset: 43 }, false],
    [{ path: "a.ts", offset: 0 }, { path: "a.ts", offset: 100 }, false],
    [{ cmd: "cat a.ts" }, { cmd: "cat b.ts" }, false],
    [{ cmd: "ls" }, { cmd: "ls", extra: 1 }, false],
    [{ n: [1, 2] }, { n: [1, 2, 3] }, false],
  ])("%j ~ %j = %p", (a, b, expected) => {
    expect(nearIdenticalCall(p("read", a), p("read", b))).toBe(expected)
  })
  test("different tools are never near-identical", () => {
    expect(nearIdenticalCall(p("read", { a: 1 }), p("write", { a: 1 }))).toBe(false)
  })
})

describe("live tracker", () => {
  function feed(tracker: Tracker, list: [string, unknown][]) {
    const results = list.map(([t, a]) => tracker.record(t, a))
    return { last: results.at(-1), firstHit: results.findIndex((r) => r !== undefined) }
  }

  test("six identical calls: reported on the sixth, before a seventh starts", () => {
    const tracker = new Tracker()
    const r = feed(tracker, Array.from({ length: 6 }, () => ["read", { path: "a.ts" }] as [string, unknown]))
    expect(r.firstHit).toBe(5)
    expect(r.last).toEqual({ period: 1, calls: 6, tools: ["read"], near: false })
    // Negative control: five are not enough.
    const five = new Tracker()
    expect(feed(five, Array.from({ length: 5 }, () => ["read", { path: "a.ts" }] as [string, unknown])).firstHit).toBe(-1)
  })

  test("argument key order does not matter", () => {
    const tracker = new Tracker()
    const list: [string, unknown][] = []
    for (let i = 0; i < 3; i++) list.push(["read", { path: "a", limit: 5 }], ["read", { limit: 5, path: "a" }])
    expect(feed(tracker, list).last).toMatchObject({ period: 1, calls: 6 })
  })

  test("A-B alternation of two argument sets (never three identical in a row) is caught", () => {
    const tracker = new Tracker()
    const list: [string, unknown][] = []
    for (let i = 0; i < 3; i++) list.push(["read", { path: "a.ts", offset: 0 }], ["read", { path: "a.ts", offset: 200 }])
    expect(feed(tracker, list).last).toEqual({ period: 2, calls: 6, tools: ["read", "read"], near: false })
  })

  test("alternation between two near-identical argument sets is caught as period 1", () => {
    const tracker = new Tracker()
    const offsets = [40, 41, 40, 41, 40, 41]
    const r = feed(tracker, offsets.map((o) => ["read", { path: "a.ts", offset: o }] as [string, unknown]))
    expect(r.firstHit).toBe(5)
    expect(r.last).toMatchObject({ period: 1, calls: 6, near: true })
  })

  test("a 3-call cycle needs three full rounds (9 calls)", () => {
    const tracker = new Tracker()
    const round: [string, unknown][] = [
      ["read", { p: "x" }],
      ["edit", { p: "x", s: "a" }],
      ["bash", { c: "test" }],
    ]
    const r = feed(tracker, [...round, ...round, ...round])
    expect(r.firstHit).toBe(8)
    expect(r.last).toMatchObject({ period: 3, calls: 9, tools: ["read", "edit", "bash"] })
    // Negative control: two rounds of read-edit-test are a normal edit cycle.
    const two = new Tracker()
    expect(feed(two, [...round, ...round]).firstHit).toBe(-1)
  })

  test("paging through a file is not a loop", () => {
    const tracker = new Tracker()
    const r = feed(tracker, Array.from({ length: 12 }, (_, i) => ["read", { path: "a.ts", offset: i * 100 }] as [string, unknown]))
    expect(r.firstHit).toBe(-1)
  })

  test("small drift cannot add up: offsets 0,1,2,...,11 is not a loop", () => {
    const tracker = new Tracker()
    const r = feed(tracker, Array.from({ length: 12 }, (_, i) => ["read", { path: "a.ts", offset: i }] as [string, unknown]))
    expect(r.firstHit).toBe(-1)
  })

  test("different files alternating are not near-identical", () => {
    const tracker = new Tracker()
    const r = feed(tracker, Array.from({ length: 12 }, (_, i) => ["bash", { cmd: `cat f${i}.ts` }] as [string, unknown]))
    expect(r.firstHit).toBe(-1)
  })

  test("a report clears the ring: the next report needs six fresh calls", () => {
    const tracker = new Tracker()
    feed(tracker, Array.from({ length: 6 }, () => ["read", { a: 1 }] as [string, unknown]))
    expect(tracker.size).toBe(0)
    expect(tracker.record("read", { a: 1 })).toBeUndefined()
  })

  test("a new ring forgets; the ring is bounded", () => {
    const tracker = new Tracker()
    for (let i = 0; i < 5; i++) tracker.record("read", { a: 1 })
    tracker.ring = []
    expect(tracker.record("read", { a: 1 })).toBeUndefined()
    for (let i = 0; i < 500; i++) tracker.record("t", { i })
    expect(tracker.size).toBe(LIVE_RING_SIZE)
  })

  test("detectLiveLoop on an empty list", () => {
    expect(detectLiveLoop([])).toBeUndefined()
  })
})

describe("tool-loop prompt", () => {
  test("names the repeated tool or the sequence", () => {
    expect(buildToolLoopPrompt({ tools: ["read"], repeats: 6 })).toContain("`read` tool 6 times in a row")
    const cycle = buildToolLoopPrompt({ tools: ["read", "edit"], repeats: 3 })
    expect(cycle).toContain("`read` → `edit`")
    expect(cycle).toContain("3 times")
  })
  test("a hostile tool name cannot break the prompt", () => {
    const text = buildToolLoopPrompt({ tools: ["a`b\nc".repeat(50)], repeats: 3 })
    expect(text.split("\n")).toHaveLength(2)
    expect(text).toContain("…")
  })
})

describe("the loops path's step", () => {
  const session = { id: "s1" } as unknown as StepContext["session"]

  /** `held`: mayAct's answer to the loop's `recovery` (none: it may go). */
  function context(held?: Hold): StepContext {
    return {
      session,
      now: 1_000,
      options: () => {
        throw new Error("the loops step reads no option")
      },
      mayAct: (act) => (act === "recovery" ? held : undefined),
      goal: () => undefined,
      paused: () => false,
      unknownModels: () => new Set<string>(),
    }
  }

  const signal = (s: Signal): PathInput => ({ type: "signal", signal: s })
  const start = (callID: string, args: unknown = { path: "a.ts" }): PathInput => signal({ type: "toolStart", sessionID: "s1", callID, tool: "read", args })

  /** Feeds the inputs in order; the state after them and every effect asked for. */
  function run(inputs: PathInput[], ctx = context()): { state: LoopsState; effects: PathEffect[] } {
    const { state, effects } = feed(loopsPath, inputs, ctx)
    return { state, effects }
  }

  const sixCalls = Array.from({ length: 6 }, (_, i) => start(`c${i}`))

  test("six identical calls: an abort then the tool-loop correction, counted as a recovery", () => {
    const { effects } = run(sixCalls)
    expect(effects).toHaveLength(1)
    const act = effects[0]!
    if (act.kind !== "act") throw new Error(act.kind)
    expect(act.effect).toMatchObject({ kind: "abort-continue", reason: "live tool loop", sendKind: "correction" })
    expect(act.via).toMatchObject({ budget: { what: "tool-loop recovery" }, exception: { kind: "live-tool-loop" }, journal: { trigger: "tool loop" } })
    // Negative control: five are not a loop.
    expect(run(sixCalls.slice(0, 5)).effects).toEqual([])
  })

  test("a call the host announces again is counted once", () => {
    const again = [...sixCalls.slice(0, 5), start("c4"), start("c4")]
    expect(run(again).effects).toEqual([])
  })

  test("idle forgets the turn's call ids: a provider reusing call_0 is fingerprinted again", () => {
    const turn = Array.from({ length: 3 }, (_, i) => start(`call_${i}`))
    const idle = signal({ type: "idle", sessionID: "s1" })
    expect(run([...turn, idle, ...turn]).effects.map((e) => e.kind)).toEqual(["act"])
    // Negative control: without the idle, the reused ids are announcements again.
    expect(run([...turn, ...turn]).effects).toEqual([])
  })

  test("a genuine user message starts the ring afresh; the plugin's own prompt does not", () => {
    const split = (genuine: boolean) => [...sixCalls.slice(0, 3), signal({ type: "userMessage", sessionID: "s1", genuine }), ...sixCalls.slice(3)]
    expect(run(split(true)).effects).toEqual([])
    expect(run(split(false)).effects.map((e) => e.kind)).toEqual(["act"])
  })

  test("a held session: the refusal is journaled and logged, nothing is sent", () => {
    const { effects } = run(sixCalls, context({ reason: "paused", by: "user" }))
    expect(effects.map((e) => e.kind)).toEqual(["journal-refused", "log"])
    expect(effects[0]).toMatchObject({ action: "abort + correction", why: "held", reason: "paused" })
  })

  test("a recovery already under way: left alone, logged, not journaled", () => {
    const { effects } = run(sixCalls, context({ reason: "a recovery is already under way", by: "ours" }))
    expect(effects.map((e) => e.kind)).toEqual(["log"])
  })

  test("inputs the path does not follow change nothing", () => {
    const state = loopsPath.initial()
    expect(loopsPath.step(state, { type: "liveness", liveness: "live" }, context())).toBeUndefined()
    expect(loopsPath.step(state, signal({ type: "toolStart", sessionID: "s1", callID: "x", tool: "read" }), context())).toBeUndefined()
    expect(loopsPath.signals).toEqual(["userMessage", "toolStart", "idle"])
  })
})
