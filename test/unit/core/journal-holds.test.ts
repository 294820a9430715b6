/**
 * The history's held and gave-up entries of the paths that once left none: the subagent paths
 * (a nudge or an orphan-parent abort due while the parent is blocked), a rate-limit wait whose
 * continue is held, and a fallback switch refused at the lifetime cap. Through the engine, on
 * the simulated clock. Each has its negative control: the same timeline without the guard
 * records the real action's entry instead, or one where nothing would be due records nothing.
 */
import { describe, expect, test } from "bun:test"
import type { JournalEntry } from "../../../src/core/journal.ts"
import type { Signal } from "../../../src/core/port.ts"
import { makeHarness, userTurn, type Harness } from "../../support/harness.ts"
import { TASK_COMPLETE_TOOL } from "../../../src/prompts/task-complete-tool.ts"

type Sig = Partial<Signal> & { type: Signal["type"] }
type Journaled = Harness & { entries: JournalEntry[] }

function journaled(rawOptions: Record<string, unknown> = {}): Journaled {
  const h = makeHarness(rawOptions)
  const entries: JournalEntry[] = []
  h.port.journal = (entry) => void entries.push(entry)
  return Object.assign(h, { entries })
}

const on = (h: Harness, sessionID: string, ...signals: Sig[]) => h.emit(...signals.map((s) => ({ ...s, sessionID })))
const genuine: Sig = { type: "userMessage", genuine: true }
const abortsOf = (h: Harness, id: string) => h.port.calls.filter((c) => c.kind === "abort" && c.sessionID === id).length
const sendsTo = (h: Harness, id: string) => h.port.sends.filter((s) => s.sessionID === id).length
const of = (h: Journaled, trigger: string) => h.entries.filter((e) => e.trigger === trigger)

describe("a stuck subagent's nudge due while its parent is blocked", () => {
  /** A child that goes quiet under a busy parent; `paused`: the user paused the parent first. */
  async function quietChild(paused: boolean, childStreams = false): Promise<Journaled> {
    const h = journaled()
    if (paused) h.pauses.pause("parent")
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" })
    on(h, "parent", genuine, { type: "busy" })
    for (let i = 0; i < 7; i++) {
      await h.advance(10_000, 1000)
      if (childStreams) on(h, "child", { type: "modelOutput" })
    }
    return h
  }

  test("is one `held` entry on the child, as its nudge would have been, naming the parent's guard; nothing goes out", async () => {
    const h = await quietChild(true)
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries).toHaveLength(1)
    const [e] = h.entries
    expect(e).toMatchObject({ sessionID: "child", trigger: "subagent nudge", action: "prompt to the subagent", outcome: "held", note: "parent parent: paused" })
    expect(e!.evidence).toMatch(/^subagent quiet for 6\ds$/)
    // Asked again on every look while the pause stands: still the one entry.
    await h.advance(40_000, 1000)
    expect(h.entries.filter((x) => x.trigger === "subagent nudge")).toHaveLength(1)
  })

  test("not before the nudge would have been due", async () => {
    const h = journaled()
    h.pauses.pause("parent")
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" })
    on(h, "parent", genuine, { type: "busy" })
    await h.advance(55_000, 1000)
    expect(h.entries).toEqual([])
  })

  test("negative control: the parent not paused, the nudge goes out and its entry is the real one", async () => {
    const h = await quietChild(false)
    expect(sendsTo(h, "child")).toBe(1)
    on(h, "child", { type: "modelOutput" })
    await h.advance(10_000, 1000)
    expect(of(h, "subagent nudge").map((e) => [e.sessionID, e.action, e.outcome])).toEqual([["child", "prompt to the subagent", "revived"]])
    expect(h.entries.some((e) => e.outcome === "held")).toBe(false)
  })

  test("negative control: paused, but the child keeps producing output: nothing would be due, nothing is recorded", async () => {
    const h = await quietChild(true, true)
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries).toEqual([])
  })
})

describe("an orphan parent's abort + continue due while the parent is blocked", () => {
  /** The parent holds its subagent call; the child runs, writes, then finishes. */
  async function orphan(block: (h: Journaled) => void): Promise<Journaled> {
    const h = journaled()
    on(h, "parent", genuine, { type: "busy" }, { type: "modelOutput" }, { type: "toolStart", callID: "call_task", tool: "task" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" })
    await h.advance(1000)
    on(h, "child", { type: "modelOutput" })
    await h.advance(2000)
    block(h)
    on(h, "child", { type: "idle" })
    return h
  }

  test("is one `held` entry on the parent once the orphan wait has run out, with the guard as its note", async () => {
    const h = await orphan((x) => x.pauses.pause("parent"))
    // subagentWaitMs + gracePeriodMs (18 s) not over yet: nothing would be due.
    await h.advance(15_000, 1000)
    expect(h.entries).toEqual([])
    await h.advance(5_000, 1000)
    expect(h.entries).toHaveLength(1)
    expect(h.entries[0]).toMatchObject({ sessionID: "parent", trigger: "orphan-parent recovery", action: "abort + continue", outcome: "held", note: "paused" })
    expect(h.entries[0]!.evidence).toMatch(/did not pick the result up \(parent still waiting 1\ds after its subagents finished\)/)
    await h.advance(60_000, 1000)
    expect(h.port.calls).toHaveLength(0)
    expect(of(h, "orphan-parent recovery")).toHaveLength(1)
  })

  test("the task marked complete is a guard too, and its reason is the note", async () => {
    const h = await orphan(() => undefined)
    await h.engine.callTool("parent", TASK_COMPLETE_TOOL)
    await h.advance(30_000, 1000)
    expect(abortsOf(h, "parent")).toBe(0)
    expect(of(h, "orphan-parent recovery").map((e) => [e.outcome, e.note])).toEqual([["held", "task marked complete"]])
  })

  test("negative control: not paused, the parent is aborted and resumed, and the entry is that action's", async () => {
    const h = await orphan(() => undefined)
    // The host's answer to the abort: the subagent call ends with the run.
    const abort = h.port.abort.bind(h.port)
    h.port.abort = (id) => {
      on(h, id, { type: "toolEnd", callID: "call_task" }, { type: "idle" })
      return abort(id)
    }
    // The orphan wait (18 s), then the abort and, 5 s later, its continue.
    await h.advance(30_000, 1000)
    expect(abortsOf(h, "parent")).toBe(1)
    expect(sendsTo(h, "parent")).toBe(1)
    on(h, "parent", { type: "modelOutput" })
    await h.advance(5_000, 1000)
    expect(of(h, "orphan-parent recovery").map((e) => [e.action, e.outcome])).toEqual([["abort + continue", "revived"]])
  })

  test("negative control: paused, with the child still running, nothing would be due and nothing is recorded", async () => {
    const h = journaled()
    h.pauses.pause("parent")
    on(h, "parent", genuine, { type: "busy" }, { type: "toolStart", callID: "call_task", tool: "task" })
    on(h, "child", { type: "sessionCreated", parentID: "parent" }, genuine, { type: "busy" })
    for (let i = 0; i < 12; i++) {
      await h.advance(10_000, 1000)
      on(h, "child", { type: "modelOutput" })
    }
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries).toEqual([])
  })
})

describe("a rate-limit wait whose continue is held", () => {
  const rateLimit: Sig = { type: "error", name: "APIError", message: "Rate limit exceeded", status: 429 }
  const question: Sig = { type: "awaitingUser", key: "q1", open: true }

  test("an open question at the end of the wait is one `held` rate-limit entry; answered, the continue goes and is recorded", async () => {
    const h = journaled({ rateLimitCooldownsMs: [60_000] })
    h.emit(...userTurn, rateLimit, { type: "idle" }, question)
    await h.advance(59_000, 1000)
    expect(h.entries).toEqual([])
    await h.advance(3 * 60_000, 1000)
    expect(h.port.sends).toHaveLength(0)
    expect(of(h, "rate limit")).toHaveLength(1)
    const [e] = of(h, "rate limit")
    expect(e).toMatchObject({ sessionID: "s1", action: "continue", outcome: "held", note: "waiting for the user (question or permission open)" })
    expect(e!.evidence).toMatch(/^hit 1; waited 1m \d+s$/)
    h.emit({ type: "awaitingUser", key: "q1", open: false })
    await h.advance(5_000, 1000)
    expect(h.port.sends).toHaveLength(1)
    h.emit({ type: "modelOutput" })
    await h.advance(5_000, 1000)
    expect(of(h, "rate limit").map((x) => x.outcome)).toEqual(["held", "revived"])
  })

  test("negative control: no question, the continue goes at the end of the wait and only its entry is recorded", async () => {
    const h = journaled({ rateLimitCooldownsMs: [60_000] })
    h.emit(...userTurn, rateLimit, { type: "idle" })
    await h.advance(61_000, 1000)
    expect(h.port.sends).toHaveLength(1)
    h.emit({ type: "modelOutput" })
    await h.advance(5_000, 1000)
    expect(h.entries.map((x) => [x.trigger, x.action, x.outcome])).toEqual([["rate limit", "continue", "revived"]])
  })
})

describe("a fallback switch refused at the lifetime cap", () => {
  const HOUR = 3_600_000
  const longRateLimit: Sig = { type: "error", name: "APIError", message: "Rate limit exceeded", status: 429, retryAfterMs: HOUR }
  const farRetry: Sig = { type: "retryScheduled", retryInMs: HOUR, message: "Rate limit exceeded", status: 429 }
  const ON = { fallbackModels: ["anthropic/claude-y"] }

  test("is one `gave up` fallback entry that names the cap and says the usual wait applies; the wait is armed", async () => {
    const h = journaled({ ...ON, lifetimeMaxContinues: 0 })
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(10_000, 1000)
    expect(h.port.sends).toHaveLength(0)
    expect(h.port.logged(/rate limited \(HTTP 429\); hit 1, waiting until/)).toBe(true)
    expect(h.entries).toHaveLength(1)
    const [e] = h.entries
    expect(e).toMatchObject({ sessionID: "s1", trigger: "fallback", action: "model switch to anthropic/claude-y + continue", outcome: "gave up", note: "lifetime cap reached (0/0); the usual wait applies" })
    expect(e!.evidence).toBe("rate limited: HTTP 429; the wait would be 1h 0m 0s")
  })

  test("the host's own far retry, reported twice: one entry, saying that retry goes on", async () => {
    const h = journaled({ ...ON, lifetimeMaxContinues: 0 })
    h.emit(...userTurn, farRetry)
    await h.advance(5_000, 1000)
    h.emit(farRetry)
    await h.advance(5_000, 1000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries.map((e) => [e.trigger, e.outcome, e.note])).toEqual([["fallback", "gave up", "lifetime cap reached (0/0); the host's own retry goes on"]])
  })

  test("negative control: under the cap the switch is made and its entry is the real one", async () => {
    const h = journaled(ON)
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2_000, 1000)
    expect(h.port.sends).toHaveLength(1)
    h.emit({ type: "modelOutput" })
    await h.advance(5_000, 1000)
    expect(h.entries.map((e) => [e.trigger, e.action, e.outcome])).toEqual([["fallback", "model switch to anthropic/claude-y + continue", "revived"]])
  })

  test("negative control: at the cap, a wait short enough to be waited out is no fallback matter: nothing recorded", async () => {
    const h = journaled({ ...ON, lifetimeMaxContinues: 0, rateLimitCooldownsMs: [10_000] })
    h.emit(...userTurn, { ...longRateLimit, retryAfterMs: undefined }, { type: "idle" })
    await h.advance(5_000, 1000)
    expect(of(h, "fallback")).toEqual([])
  })
})
