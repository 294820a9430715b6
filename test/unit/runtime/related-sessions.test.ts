/**
 * The runtime's contract for a path whose sessions are related (a parent and its subagents):
 * a step reads another tracked session with the path's state for it (StepContext.peer), asks
 * the step for another session to look again (the `tell` effect, heard as `told`), names the
 * session an `act` is for (`target`, its outcome back to the step that asked), and states the
 * facts mayAct weighs from other sessions (holds with peers, waitedOnSettled).
 */
import { describe, expect, test } from "bun:test"
import { newSessionState, ownAwaiting, type SessionState } from "../../../src/core/session-state.ts"
import { PathRuntime } from "../../../src/runtime/paths.ts"
import type { EffectOutcome, PathEffect, RecoveryPath } from "../../../src/runtime/path.ts"
import { bareContext } from "../../support/bare-context.ts"
import { settle } from "../../support/harness.ts"

/** What the path did, in order, for the test to read. */
type Heard = { session: string; told?: { from: string; fromState?: number }; settled?: EffectOutcome }

/**
 * Its state counts the idles its session saw. On an idle, a session tells `b` (when it is not
 * `b`) and, when `nudge` is set, has a prompt sent to `b`. A session holds while `b` waits on
 * its user; its open subagent calls wait on nothing once its count reached two.
 */
function relay(heard: Heard[], nudge = false): RecoveryPath<number> {
  return {
    name: "relay",
    signals: ["idle"],
    initial: () => 0,
    holds: (_state, _now, peers) => ((peers?.("b")?.session.awaiting.size ?? 0) > 0 ? "b is waiting for the user" : undefined),
    waitedOnSettled: (state) => state >= 2,
    step(state, input, ctx) {
      if (input.type === "told") {
        const from = ctx.peer?.(input.from)
        heard.push({ session: ctx.session.id, told: { from: input.from, fromState: from?.state as number | undefined } })
        return undefined
      }
      if (input.type === "effectSettled") {
        heard.push({ session: ctx.session.id, settled: input.outcome })
        return undefined
      }
      if (input.type !== "signal" || ctx.session.id === "b") return input.type === "signal" ? { state: state + 1, effects: [] } : undefined
      const effects: PathEffect[] = [{ kind: "tell", session: "b" }]
      if (nudge) {
        effects.push({
          kind: "act",
          id: 7,
          target: "b",
          effect: { kind: "nudge", text: "go on, b", sendKind: "correction", feature: "relay", reason: "a asked" },
          via: { label: "send relay nudge" },
        })
      }
      return { state: state + 1, effects }
    },
  }
}

function world(path: RecoveryPath<number>, tracked: string[]) {
  const { ctx, port, state } = bareContext()
  const table = new Map<string, SessionState>([[state.id, state]])
  for (const id of tracked) table.set(id, newSessionState(id, 0))
  const runtime = new PathRuntime(ctx, [path], { get: async () => undefined, peek: () => undefined }, async () => undefined, table)
  const idle = (id: string) => runtime.signal(table.get(id) ?? newSessionState(id, 0), { type: "idle", sessionID: id }, 0)
  return { runtime, port, table, idle }
}

describe("a tell", () => {
  test("reaches the path's step for the session it names, which reads the teller's state there", () => {
    const heard: Heard[] = []
    const w = world(relay(heard), ["a", "b"])
    w.idle("a")
    expect(heard).toEqual([{ session: "b", told: { from: "a", fromState: 1 } }])
  })

  test("negative control: a session the table does not track hears nothing", () => {
    const heard: Heard[] = []
    const w = world(relay(heard), ["a"])
    w.idle("a")
    expect(heard).toEqual([])
  })
})

describe("an act naming another session", () => {
  test("is carried out on that session, and how it went comes back to the step that asked", async () => {
    const heard: Heard[] = []
    const w = world(relay(heard, true), ["a", "b"])
    w.idle("a")
    await settle()
    const sends = w.port.calls.flatMap((c) => (c.kind === "send" ? [c.request] : []))
    expect(sends.map((r) => [r.sessionID, r.text])).toEqual([["b", "go on, b"]])
    expect(heard.filter((h) => h.settled)).toEqual([{ session: "a", settled: { kind: "delivered", outcome: "ok" } }])
  })

  test("negative control: a target the table does not track gets nothing, and nothing settles", async () => {
    const heard: Heard[] = []
    const w = world(relay(heard, true), ["a"])
    w.idle("a")
    await settle()
    expect(w.port.calls).toHaveLength(0)
    expect(heard).toEqual([])
  })
})

describe("the facts a path states from other sessions", () => {
  test("a hold read off another session (b waiting on its user) holds the session; none when b does not wait", () => {
    const w = world(relay([]), ["a", "b"])
    w.idle("a")
    const a = w.table.get("a")!
    expect(w.runtime.holds(a, 0)).toBeUndefined()
    ownAwaiting(w.table.get("b")!).add("q1")
    expect(w.runtime.holds(a, 0)).toBe("b is waiting for the user")
  })

  test("whether every session the subagent calls wait on settled is the path's answer for its state", () => {
    const w = world(relay([]), ["a", "b"])
    const a = w.table.get("a")!
    w.idle("a")
    expect(w.runtime.waitedOnSettled(a, 0)).toBe(false)
    w.idle("a")
    expect(w.runtime.waitedOnSettled(a, 0)).toBe(true)
  })

  test("negative control: with no path that knows of such waits, nothing is settled", () => {
    const { ctx, state } = bareContext()
    const runtime = new PathRuntime(ctx, [{ name: "plain", initial: () => 0, step: () => undefined }], { get: async () => undefined, peek: () => undefined })
    expect(runtime.waitedOnSettled(state, 0)).toBe(false)
  })
})
