/**
 * The facts a path states about a session beside its steps (runtime/path.ts RecoveryPath.holds,
 * keeps): the runtime answers them from the path's state for the session, for mayAct and the
 * idle sweep; and the engine weighs them.
 */
import { describe, expect, test } from "bun:test"
import { PathRuntime } from "../../../src/runtime/paths.ts"
import type { RecoveryPath } from "../../../src/runtime/path.ts"
import { bareContext } from "../../support/bare-context.ts"
import { makeHarness, SESSION, type Harness } from "../../support/harness.ts"

/** A path whose state is whether it holds the session; each idle turns it over. */
const holding: RecoveryPath<boolean> = {
  name: "holding",
  signals: ["idle"],
  initial: () => false,
  holds: (on) => (on ? "waiting on the host" : undefined),
  keeps: (on) => on,
  step: (on, input) => (input.type === "signal" ? { state: !on, effects: [] } : undefined),
}

describe("what a path states about a session", () => {
  test("its hold and its keep follow its state for the session; none before it has one", () => {
    const { ctx, state } = bareContext()
    const runtime = new PathRuntime(ctx, [holding], { get: async () => undefined, peek: () => undefined })
    expect(runtime.holds(state, 0)).toBeUndefined()
    expect(runtime.keeps(state)).toBe(false)
    runtime.signal(state, { type: "idle", sessionID: state.id }, 0)
    expect(runtime.holds(state, 0)).toBe("waiting on the host")
    expect(runtime.keeps(state)).toBe(true)
    runtime.signal(state, { type: "idle", sessionID: state.id }, 0)
    expect(runtime.holds(state, 0)).toBeUndefined()
    expect(runtime.keeps(state)).toBe(false)
  })
})

describe("the engine weighs what the paths state", () => {
  const tracked = (h: Harness) => h.engine.exportSessions().some((s) => s.id === SESSION)
  /** A run ends on a full context the host is still compacting (the context path waits on it), or, as a control, on nothing. */
  async function idleFor(full: boolean): Promise<Harness> {
    const h = makeHarness({ busyStallStrategy: "off" })
    h.emit({ type: "userMessage", genuine: true }, { type: "busy" })
    if (full) h.emit({ type: "error", name: "ContextOverflowError", message: "prompt is too long" }, { type: "compaction", phase: "started" })
    h.emit({ type: "idle" })
    await h.advance(700_000, 5_000)
    h.engine.sweep()
    return h
  }

  test("the idle sweep leaves a session a path keeps, and drops it otherwise", async () => {
    expect(tracked(await idleFor(true))).toBe(true)
    expect(tracked(await idleFor(false))).toBe(false)
  })
})
