/**
 * The unattended-hours path (paths/unattended/): its step as the runtime drives it, on a
 * simulated clock. It only states a fact (`holds`), which mayAct weighs; the timelines through
 * the default export on both hosts are the matrix rows unattended*.
 */
import { describe, expect, test } from "bun:test"
import { newSessionState, type SessionState } from "../../../src/core/session-state.ts"
import { resolveOptions, type Options } from "../../../src/options/index.ts"
import { unattendedPath, type UnattendedState } from "../../../src/paths/unattended/path.ts"
import type { PathInput, StepContext } from "../../../src/runtime/path.ts"

const HOUR = 3_600_000
const T0 = 100 * HOUR

type World = { session: SessionState; now: number; options: Options }

/** `absent`: the option is not in the config at all. */
function world(unattendedMaxMs: number | "absent" = 8 * HOUR): World {
  const session = newSessionState("s1", T0)
  const options = resolveOptions(unattendedMaxMs === "absent" ? {} : { unattendedMaxMs }, {}).options
  return { session, now: T0, options }
}

function ctxOf(w: World): StepContext {
  return { session: w.session, now: w.now, options: () => w.options, mayAct: () => undefined, goal: () => undefined, paused: () => false, unknownModels: () => new Set() }
}

const busy: PathInput = { type: "signal", signal: { type: "busy", sessionID: "s1" } }
const wake: PathInput = { type: "wake" }
const userWrote = (genuine = true): PathInput => ({ type: "signal", signal: { type: "userMessage", sessionID: "s1", genuine } })

function step(w: World, state: UnattendedState, input: PathInput) {
  return unattendedPath.step(state, input, ctxOf(w))
}

/** The user writes at `at` (the session record takes it in before the paths hear it). */
function write(w: World, state: UnattendedState, at: number) {
  w.now = at
  w.session.lastGenuineUserAt = at
  return step(w, state, userWrote())!
}

describe("unattended hours", () => {
  test("the user's message arms the limit: a wake at its end, no hold before it", () => {
    const w = world()
    const armed = write(w, unattendedPath.initial(), T0 + 1000)
    expect(armed.wakeAt).toBe(T0 + 1000 + 8 * HOUR)
    expect(armed.effects).toEqual([])
    expect(unattendedPath.holds!(armed.state, w.now)).toBeUndefined()
    expect(unattendedPath.keeps!(armed.state)).toBe(false)
  })

  test("reached at its wake: the hold, one log line and one history entry, and the session is kept", () => {
    const w = world()
    const armed = write(w, unattendedPath.initial(), T0).state
    w.now = T0 + 8 * HOUR
    const reached = step(w, armed, wake)!
    expect(unattendedPath.holds!(reached.state, w.now)).toBe("unattended for 8h 0m 0s since the user's last message (unattendedMaxMs): no continues until the user writes")
    expect(reached.effects).toHaveLength(2)
    expect(reached.effects[0]).toMatchObject({ kind: "log", level: "info", text: expect.stringContaining("session s1: unattended for 8h 0m 0s") })
    expect(reached.effects[1]).toMatchObject({ kind: "journal-refused", tag: { trigger: "unattended hours", evidence: "8h 0m 0s since your last message" }, why: "stood down" })
    expect(reached.wakeAt).toBeUndefined()
    expect(unattendedPath.keeps!(reached.state)).toBe(true)
    // Once: later runs and wakes say nothing more.
    expect(step(w, reached.state, busy)).toBeUndefined()
    expect(step(w, reached.state, wake)).toBeUndefined()
  })

  test("negative control: a wake before the end (a clock that ran early) re-arms and holds nothing", () => {
    const w = world()
    const armed = write(w, unattendedPath.initial(), T0).state
    w.now = T0 + 7 * HOUR
    const early = step(w, armed, wake)!
    expect(early.wakeAt).toBe(T0 + 8 * HOUR)
    expect(early.effects).toEqual([])
    expect(unattendedPath.holds!(early.state, w.now)).toBeUndefined()
  })

  test("the user writing again ends the hold and starts the count afresh; the plugin's own prompt does not", () => {
    const w = world()
    w.now = T0 + 9 * HOUR
    w.session.lastGenuineUserAt = T0
    const reached = step(w, unattendedPath.initial(), busy)!.state
    expect(unattendedPath.holds!(reached, w.now)).toBeDefined()
    expect(step(w, reached, userWrote(false))).toBeUndefined()
    const again = write(w, reached, T0 + 10 * HOUR)
    expect(unattendedPath.holds!(again.state, w.now)).toBeUndefined()
    expect(again.wakeAt).toBe(T0 + 18 * HOUR)
  })

  test("a session the plugin never saw the user write in counts from when it first saw it", () => {
    const w = world()
    w.now = T0 + HOUR
    expect(step(w, unattendedPath.initial(), busy)?.wakeAt).toBe(T0 + 8 * HOUR)
  })

  test("off by default (0 or absent): nothing armed, nothing held, however long the run", () => {
    for (const w of [world("absent"), world(0)]) {
      expect(w.options.unattendedMaxMs).toBe(0)
      expect(write(w, unattendedPath.initial(), T0)).toBeUndefined()
      w.now = T0 + 100 * HOUR
      expect(step(w, unattendedPath.initial(), busy)).toBeUndefined()
    }
  })

  test("its state survives a plugin reload as plain data; anything else starts afresh", () => {
    expect(unattendedPath.restore!({ deadline: 5, since: 1, reached: true })).toEqual({ deadline: 5, since: 1, reached: true })
    expect(unattendedPath.restore!({ deadline: "5", since: 1 })).toBeUndefined()
    expect(unattendedPath.restore!(null)).toBeUndefined()
  })
})
