/**
 * A path's finished-turn rules as the runtime hands them to its passes (runtime/paths.ts
 * turnRules): each decides on the turn with its path's state for the session and, when it says
 * it reads them, the host's tool names; the state it answers is the one its path has next.
 */
import { describe, expect, test } from "bun:test"
import { PathRuntime } from "../../../src/runtime/paths.ts"
import type { AnyPath, PathTurnRule, RecoveryPath } from "../../../src/runtime/path.ts"
import { bareContext } from "../../support/bare-context.ts"

type Facts = Parameters<PathTurnRule<number>["decide"]>[0]

/** A path whose rule counts the turns it saw and answers on the second. */
function counting(readsTools: boolean, seen: Array<readonly string[] | undefined>): RecoveryPath<number> {
  const rule: PathTurnRule<number> = {
    name: "count",
    pass: "second",
    priority: 60,
    ...(readsTools ? { readsTools: true as const } : {}),
    decide(_facts, { state, tools }) {
      seen.push(tools)
      return { state: state + 1, ...(state === 1 ? { effect: { kind: "stand-down" as const, reason: "second turn" } } : {}) }
    },
  }
  return { name: "counting", turnRules: [rule], initial: () => 0, step: () => undefined }
}

function runtimeWith(path: AnyPath) {
  const { ctx, state } = bareContext()
  let reads = 0
  const runtime = new PathRuntime(ctx, [path], { get: async () => (reads++, ["bash"]), peek: () => undefined })
  const [rule] = runtime.turnRules()
  if (!rule) throw new Error("no rule")
  return { rule, facts: { state } as unknown as Facts, state, reads: () => reads }
}

describe("a path's turn rules", () => {
  test("decide with the path's state for the session, which keeps what the rule answers", async () => {
    const seen: Array<readonly string[] | undefined> = []
    const { rule, facts, state } = runtimeWith(counting(false, seen))
    expect(rule).toMatchObject({ name: "count", pass: "second", priority: 60 })
    expect(await rule.decide(facts)).toBeUndefined()
    expect(await rule.decide(facts)).toEqual({ kind: "stand-down", reason: "second turn" })
    // The runtime's only path: its state is at the first place.
    expect((state.paths[0] as { state: number }).state).toBe(2)
  })

  test("a rule that reads the host's tool names gets them; one that does not, does not ask for them", async () => {
    const reading: Array<readonly string[] | undefined> = []
    const r = runtimeWith(counting(true, reading))
    await r.rule.decide(r.facts)
    expect(reading).toEqual([["bash"]])
    expect(r.reads()).toBe(1)
    const plain: Array<readonly string[] | undefined> = []
    const p = runtimeWith(counting(false, plain))
    await p.rule.decide(p.facts)
    expect(plain).toEqual([undefined])
    expect(p.reads()).toBe(0)
  })

  test("a rule that reads the cached tool names gets what the runtime has at hand, at once, and never asks the host", () => {
    const { ctx, state } = bareContext()
    const handed: Array<readonly string[] | undefined> = []
    const rule: PathTurnRule<number> = { name: "peek", pass: "second", priority: 50, readsTools: "cached", decide: (_facts, { tools }) => void handed.push(tools) }
    let cached: readonly string[] | undefined
    let asked = 0
    const runtime = new PathRuntime(ctx, [{ name: "peek", turnRules: [rule], initial: () => 0, step: () => undefined }], { get: async () => (asked++, ["bash"]), peek: () => cached })
    const [decide] = runtime.turnRules()
    // Nothing at hand: nothing handed, and the rule answers at once (no promise).
    expect(decide!.decide({ state } as unknown as Facts)).toBeUndefined()
    cached = ["read", "edit"]
    decide!.decide({ state } as unknown as Facts)
    expect(handed).toEqual([undefined, ["read", "edit"]])
    expect(asked).toBe(0)
  })

  test("a rule that weighs a hand-off itself says so to the passes; one that does not, does not", () => {
    const { ctx } = bareContext()
    const rule = (weighs: boolean): PathTurnRule<number> => ({ name: `w${weighs}`, pass: "first", priority: 50, ...(weighs ? { weighsHandOff: true as const } : {}), decide: () => undefined })
    const runtime = new PathRuntime(ctx, [{ name: "w", turnRules: [rule(true), rule(false)], initial: () => 0, step: () => undefined }], { get: async () => undefined, peek: () => undefined })
    expect(runtime.turnRules().map((r) => [r.name, r.weighsHandOff])).toEqual([["wtrue", true], ["wfalse", undefined]])
  })

  test("a rule that reads the model's context is handed it when it says it needs it; what it answers beside its state is carried out", async () => {
    const { ctx, state, time } = bareContext()
    const handed: unknown[] = []
    const rule: PathTurnRule<number> = {
      name: "room",
      pass: "first",
      priority: 55,
      readsContext: (_facts, n) => n > 0,
      decide: (_facts, { state: n, context }) => (handed.push(context), { state: n + 1, effects: [{ kind: "watch-output" }], wakeAt: time.now() + 1_000 }),
    }
    const woke: number[] = []
    const path: RecoveryPath<number> = { name: "room", turnRules: [rule], initial: () => 0, step: (_s, input) => void (input.type === "wake" && woke.push(time.now())) }
    let looked = 0
    const answer = { limit: { context: 1_000 }, magicContext: false }
    const runtime = new PathRuntime(ctx, [path], { get: async () => undefined, peek: () => undefined }, async () => (looked++, answer))
    const [decide] = runtime.turnRules()
    await decide!.decide({ state } as unknown as Facts)
    // Not needed yet (the rule's state says so): not looked up.
    expect(looked).toBe(0)
    expect(handed).toEqual([undefined])
    await decide!.decide({ state } as unknown as Facts)
    expect(looked).toBe(1)
    expect(handed[1]).toBe(answer)
    // Its effects ran, and its wake is the session's.
    expect(state.outputWatched).toBe(true)
    const due = time.now() + 1_000
    time.advance(999)
    expect(woke).toEqual([])
    time.advance(1)
    expect(woke).toEqual([due])
  })
})
