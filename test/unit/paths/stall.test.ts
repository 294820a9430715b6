/**
 * The stall path as a pure step (runtime/path.ts): each input gives the next state, the effects
 * as data, the wake and the hold, and nothing is run. The engine-level timelines stay in
 * test/unit/core/stall.test.ts and stall-live.test.ts; these pin the step's own contract.
 */
import { describe, expect, test } from "bun:test"
import { stallPath, type StallState } from "../../../src/paths/stall/path.ts"
import type { Act, Hold } from "../../../src/runtime/may-act.ts"
import type { PathInput, StepContext, StepResult } from "../../../src/runtime/path.ts"
import { effectiveOptions, resolveOptions, type Options } from "../../../src/options/index.ts"

const options: Options = effectiveOptions(resolveOptions({}, {}))
const BUDGET = options.chunkTimeoutMs + options.gracePeriodMs
const T0 = 1_000_000

type Session = StepContext["session"]

function busySession(over: Partial<Record<keyof Session, unknown>> = {}): Session {
  return {
    id: "s1",
    busy: true,
    busySince: T0,
    dropped: undefined,
    lastActivityAt: T0,
    lastModelOutputAt: T0,
    lastProgressAt: T0,
    quietEvents: undefined,
    openTools: new Map(),
    runEpoch: 1,
    episodeRetries: 0,
    recentContinues: [],
    lifetimeContinues: 0,
    lastRecovery: undefined,
    lastHeldReason: undefined,
    ...over,
  } as unknown as Session
}

/** `held`: mayAct's answer, per act asked (none: every act may go). */
function context(session: Session, now: number, held: (act: Act) => Hold | undefined = () => undefined): StepContext {
  return { session, now, options: () => options, mayAct: held, goal: () => undefined, paused: () => false, unknownModels: () => new Set() }
}

function step(state: StallState, input: PathInput, session: Session, now: number, held?: (act: Act) => Hold | undefined): StepResult<StallState> {
  const result = stallPath.step(state, input, context(session, now, held))
  if (!result) throw new Error(`no change on ${input.type}`)
  return result
}

const live: PathInput = { type: "liveness", liveness: "live" }
const wake = (): PathInput => ({ type: "wake" })

/** A busy session whose deadline passed with nothing heard: the step right after the deadline. */
function stalled(): { state: StallState; result: StepResult<StallState>; session: Session } {
  const session = busySession()
  const armed = step(stallPath.initial(), live, session, T0)
  const result = step(armed.state, wake(), session, T0 + BUDGET)
  return { state: result.state, result, session }
}

describe("the stall path's step", () => {
  test("the first event of a busy session arms the deadline one budget out; later events change nothing (the hot path)", () => {
    const session = busySession()
    const armed = step(stallPath.initial(), live, session, T0)
    expect(armed.wakeAt).toBe(T0 + BUDGET)
    expect(armed.effects).toEqual([])
    expect(armed.hold).toBeUndefined()
    expect(stallPath.step(armed.state, live, context(session, T0 + 5))).toBeUndefined()
  })

  test("negative control: an idle session arms nothing, and the run's end disarms", () => {
    const idle = busySession({ busy: false })
    expect(stallPath.step(stallPath.initial(), live, context(idle, T0))).toBeUndefined()
    const session = busySession()
    const armed = step(stallPath.initial(), live, session, T0)
    const ended = step(armed.state, { type: "liveness", liveness: "ended" }, session, T0 + 1)
    expect(ended.wakeAt).toBeUndefined()
  })

  test("the deadline passing on a silent session decides a continue: a backoff held as a recovery under way, nothing sent yet", () => {
    const { result } = stalled()
    expect(result.hold).toBeDefined()
    expect(result.wakeAt).toBe(T0 + BUDGET + options.baseBackoffMs)
    expect(result.effects.map((e) => e.kind)).toEqual(["note-held", "log"])
    expect(result.effects.some((e) => e.kind === "episode-continue" || e.kind === "ask-host-run")).toBe(false)
  })

  test("a hold at the deadline goes to the history and only re-arms the deadline", () => {
    const session = busySession()
    const armed = step(stallPath.initial(), live, session, T0)
    const asked: Act[] = []
    const held = step(armed.state, wake(), session, T0 + BUDGET, (act) => (asked.push(act), { reason: "paused", by: "user" }))
    expect(asked).toEqual(["ladder"])
    expect(held.effects[0]).toMatchObject({ kind: "journal-refused", why: "held", reason: "paused" })
    expect(held.hold).toBeUndefined()
    expect(held.wakeAt).toBe(T0 + BUDGET + options.checkIntervalMs)
  })

  test("negative control: a recovery of ours under way at the deadline is no refusal: logged once, not journaled", () => {
    const session = busySession()
    const armed = step(stallPath.initial(), live, session, T0)
    const held = step(armed.state, wake(), session, T0 + BUDGET, () => ({ reason: "a recovery is already under way", by: "ours" }))
    expect(held.effects.map((e) => e.kind)).toEqual(["note-held", "log"])
    expect(held.wakeAt).toBe(T0 + BUDGET + options.checkIntervalMs)
  })

  test("a hold when the backoff ends goes to the history, and nothing is asked of the host", () => {
    const { state, result, session } = stalled()
    const held = step(state, wake(), session, result.wakeAt!, (act) => (act === "touch" ? { reason: "cancelled by the user (ESC)", by: "user" } : undefined))
    expect(held.effects.map((e) => e.kind)).toEqual(["journal-refused", "note-held", "log"])
    expect(held.effects[0]).toMatchObject({ why: "held", reason: "cancelled by the user (ESC)" })
    expect(held.hold).toBeUndefined()
  })

  test("after the backoff a plain continue asks the host first, under a new hold; a live run is aborted first", () => {
    const { state, result, session } = stalled()
    const asking = step(state, wake(), session, result.wakeAt!)
    const ask = asking.effects.find((e) => e.kind === "ask-host-run")
    expect(ask).toBeDefined()
    expect(asking.hold).toBeDefined()
    expect(asking.hold).not.toBe(result.hold)
    const id = (ask as { id: number }).id
    const acting = step(asking.state, { type: "effectSettled", id, outcome: { kind: "host-run", run: { state: "live" } } }, session, result.wakeAt! + 5)
    expect(acting.hold).toBeUndefined()
    const send = acting.effects.find((e) => e.kind === "episode-continue")
    expect(send).toMatchObject({ effect: { kind: "abort-continue" }, recovery: "abort+continue", label: "send continue" })
  })

  test("negative control: a session the host no longer runs gets the plain continue", () => {
    const { state, result, session } = stalled()
    const asking = step(state, wake(), session, result.wakeAt!)
    const id = (asking.effects.find((e) => e.kind === "ask-host-run") as { id: number }).id
    const acting = step(asking.state, { type: "effectSettled", id, outcome: { kind: "host-run", run: { state: "stopped" } } }, session, result.wakeAt! + 5)
    expect(acting.effects.find((e) => e.kind === "episode-continue")).toMatchObject({ effect: { kind: "continue" }, recovery: "continue" })
  })

  test("a cancelled backoff (the user wrote, ESC) ends quietly: no hold, no wake, nothing sent", () => {
    const { state, session } = stalled()
    const cancelled = step(state, { type: "holdCancelled" }, session, T0 + BUDGET + 10)
    expect(cancelled.hold).toBeUndefined()
    expect(cancelled.wakeAt).toBeUndefined()
    expect(cancelled.effects).toEqual([])
  })

  test("an answer for a question that was cancelled meanwhile sends nothing and re-arms the deadline", () => {
    const { state, result, session } = stalled()
    const asking = step(state, wake(), session, result.wakeAt!)
    const id = (asking.effects.find((e) => e.kind === "ask-host-run") as { id: number }).id
    const cancelled = step(asking.state, { type: "holdCancelled" }, session, result.wakeAt! + 1)
    expect(cancelled.hold).toBeUndefined()
    const answered = step(cancelled.state, { type: "effectSettled", id, outcome: { kind: "host-run", run: { state: "stopped" } } }, session, result.wakeAt! + 2)
    expect(answered.effects.some((e) => e.kind === "episode-continue")).toBe(false)
    expect(answered.wakeAt).toBe(result.wakeAt! + 2 + BUDGET)
  })

  test("a vetoed abort is not counted and is looked at again after checkIntervalMs", () => {
    const session = busySession({ episodeRetries: 0, lastRecovery: { kind: "continue", reason: "x", at: T0, epoch: 1, outputAt: T0 } })
    const armed = step(stallPath.initial(), live, session, T0)
    const decided = step(armed.state, wake(), session, T0 + BUDGET)
    const acting = step(decided.state, wake(), session, decided.wakeAt!)
    const send = acting.effects.find((e) => e.kind === "episode-continue") as { id: number }
    expect(send).toMatchObject({ effect: { kind: "abort-continue" } })
    const at = decided.wakeAt! + 10
    const vetoed = step(acting.state, { type: "effectSettled", id: send.id, outcome: { kind: "delivered", outcome: undefined, vetoed: "a tool is running" } }, session, at)
    expect(vetoed.wakeAt).toBe(at + options.checkIntervalMs)
    expect(vetoed.effects).toContainEqual({ kind: "log", level: "info", text: "session s1: stall recovery held: not aborting: a tool is running" })
  })

  test("a sent continue re-arms the deadline and says so", () => {
    const { state, result, session } = stalled()
    const asking = step(state, wake(), session, result.wakeAt!)
    const askId = (asking.effects.find((e) => e.kind === "ask-host-run") as { id: number }).id
    const acting = step(asking.state, { type: "effectSettled", id: askId, outcome: { kind: "host-run", run: { state: "stopped" } } }, session, result.wakeAt! + 5)
    const sendId = (acting.effects.find((e) => e.kind === "episode-continue") as { id: number }).id
    const sent = step(acting.state, { type: "effectSettled", id: sendId, outcome: { kind: "delivered", outcome: "ok" } }, busySession({ lastActivityAt: result.wakeAt! + 6, lifetimeContinues: 1 }), result.wakeAt! + 6)
    expect(sent.wakeAt).toBe(result.wakeAt! + 6 + BUDGET)
    expect(sent.effects).toContainEqual({ kind: "log", level: "info", text: `session s1: continue sent (1/${options.lifetimeMaxContinues} this user episode)` })
  })

  test("a session taken over keeps what was left of its budget", () => {
    const session = busySession({ lastActivityAt: T0 - 60_000 })
    const adopted = step(stallPath.initial(), { type: "adopted" }, session, T0)
    expect(adopted.wakeAt).toBe(T0 + BUDGET - 60_000)
  })
})
