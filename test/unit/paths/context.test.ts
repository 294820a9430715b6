/**
 * The context path (paths/context/) as a pure step (runtime/path.ts): host signals in, our
 * compaction and the one continue out as data, the episode, the measured usage and the wake it
 * asked for kept in its state; and its saturation rule, handed what the runtime looked up. The
 * episode's transitions are test/unit/paths/context-episode.test.ts; the whole timelines
 * through the default export are the matrix rows full-context*, saturation*.
 */
import { feed } from "../../support/path-steps.ts"
import { describe, expect, test } from "bun:test"
import { contextPath, type ContextState } from "../../../src/paths/context/path.ts"
import type { Act, Hold } from "../../../src/runtime/may-act.ts"
import type { PathEffect, PathInput, PathTurnRule, StepContext, TurnInput } from "../../../src/runtime/path.ts"
import { effectiveOptions, resolveOptions, type Options } from "../../../src/options/index.ts"

const options: Options = effectiveOptions(resolveOptions({}, {}))
const NOW = 10_000_000

type Session = { id: string; busy: boolean; dropped: boolean; outputWatched: boolean }

function context(session: Session, held: (act: Act) => Hold | undefined = () => undefined, now = NOW): StepContext {
  return { session: session as unknown as StepContext["session"], now, options: () => options, mayAct: held, goal: () => undefined, paused: () => false, unknownModels: () => new Set() }
}

const free = (): Session => ({ id: "s1", busy: false, dropped: false, outputWatched: false })
const overflow: PathInput = { type: "signal", signal: { type: "error", sessionID: "s1", name: "ContextOverflowError", message: "prompt is too long" } }
const idle: PathInput = { type: "signal", signal: { type: "idle", sessionID: "s1" } }
const compaction = (phase: "started" | "ended" | "failed"): PathInput => ({ type: "signal", signal: { type: "compaction", sessionID: "s1", phase } })
const settled = (id: number, outcome: "ok" | "busy" | "error"): PathInput => ({ type: "effectSettled", id, outcome: { kind: "delivered", outcome } as never })

/** Feeds the inputs in order; the state after them, every effect asked for, and the last wake asked. */
function run(inputs: PathInput[], ctx: StepContext, from: ContextState = contextPath.initial()) {
  return feed(contextPath, inputs, ctx, from, true)
}

const acts = (effects: PathEffect[]) => effects.flatMap((e) => (e.kind === "act" ? [e] : []))

describe("the context path's step: a full context the host does not compact", () => {
  test("overflow, the run ends: a look a check interval later, then our compaction; once compacted and idle, one continue", () => {
    const ctx = context(free())
    const full = run([overflow, idle], ctx)
    expect(full.effects.map((e) => e.kind)).toEqual(["log", "watch-output"])
    expect(contextPath.holds!(full.state, 0)).toContain("waiting for its compaction")
    expect(contextPath.keeps!(full.state)).toBe(true)
    // The host may yet compact by itself: nothing of ours at the idle, a look one interval later.
    expect(acts(full.effects)).toEqual([])
    expect(full.wakeAt).toBe(NOW + options.checkIntervalMs)

    const woken = run([{ type: "wake" }], ctx, full.state)
    const [compact] = acts(woken.effects)
    expect(compact?.effect).toMatchObject({ kind: "compact", feature: "context-window" })
    expect(woken.state.episode.phase).toBe("compacting")
    expect(woken.wakeAt).toBeUndefined()

    const resumed = run([settled(compact!.id!, "ok"), compaction("ended"), idle], ctx, woken.state)
    const [resume] = acts(resumed.effects)
    expect(resume?.effect).toMatchObject({ kind: "continue", attempt: 1, maxAttempts: 1 })
    if (resume?.effect.kind !== "continue") throw new Error("no continue")
    expect(resume.effect.reason).toContain("the context window overflowed")
    expect(resume.via.budget).toMatchObject({ what: "context recovery", refundUnsent: true })
    expect(contextPath.holds!(resumed.state, 0)).toBeUndefined()

    const over = run([settled(resume.id!, "ok"), { type: "signal", signal: { type: "modelOutput", sessionID: "s1", part: "p", delta: "x" } } as PathInput, idle], ctx, resumed.state)
    expect(over.state.episode.phase).toBe("clear")
    expect(contextPath.keeps!(over.state)).toBe(false)
  })

  test("the user's guard keeps our compaction back: looked at again an interval later, nothing asked", () => {
    const full = run([overflow, idle], context(free())).state
    const held = run([{ type: "wake" }], context(free(), () => ({ reason: "paused", by: "user" })), full)
    expect(acts(held.effects)).toEqual([])
    expect(held.wakeAt).toBe(NOW + options.checkIntervalMs)
    // Control: the context's own hold (by "path") is what the compaction ends, so it does not keep it back.
    const own = run([{ type: "wake" }], context(free(), () => ({ reason: "the context window is full", by: "path" })), full)
    expect(acts(own.effects)).toHaveLength(1)
  })

  test("a compaction call not sent is tried again an interval later; a refused one stands down until the user writes", () => {
    const ctx = context(free())
    const compacting = run([overflow, idle, { type: "wake" }], ctx).state
    const retry = run([settled(0, "busy")], ctx, compacting)
    expect(retry.state.episode.phase).toBe("full")
    expect(retry.wakeAt).toBe(NOW + options.checkIntervalMs)
    const refused = run([settled(0, "error")], ctx, compacting)
    expect(refused.state.episode.phase).toBe("stood-down")
    // (watch-output again: this fake session's flag is never set, the runtime would set it)
    expect(refused.effects.map((e) => e.kind)).toEqual(["watch-output", "log", "journal-refused"])
    expect(contextPath.holds!(refused.state, 0)).toContain("waiting for the user")
    const user: PathInput = { type: "signal", signal: { type: "userMessage", sessionID: "s1", genuine: true } as never }
    expect(run([user], ctx, refused.state).state.episode.phase).toBe("clear")
  })
})

describe("the context path's step: the host compacts by itself", () => {
  test("its compaction ends the latch: nothing of ours goes out", () => {
    const r = run([overflow, compaction("started"), idle, compaction("ended")], context(free()))
    expect(acts(r.effects)).toEqual([])
    expect(r.state.episode.phase).toBe("clear")
    expect(contextPath.holds!(r.state, 0)).toBeUndefined()
  })
})

describe("the context path's saturation rule", () => {
  const rule = contextPath.turnRules![0]! as PathTurnRule<ContextState>
  const parent = { id: "s1", busy: false, dropped: false, outputWatched: false, setup: { model: { providerID: "p", modelID: "m" } }, intervention: { sentThisTurn: new Set() }, cancelledByUser: false, completed: false }
  const facts = (session: object) => ({ state: session, options, now: NOW }) as unknown as Parameters<typeof rule.decide>[0]
  const usage: PathInput = { type: "signal", signal: { type: "usage", sessionID: "s1", tokens: 1, contextTokens: 95_000 } }
  const measured = run([usage], context(free())).state
  const limit = { context: 120_000, output: 20_000 }

  test("reads the context only with a usage measured and a model to look it up for", () => {
    expect(rule.readsContext!(facts(parent), measured)).toBe(true)
    expect(rule.readsContext!(facts(parent), contextPath.initial())).toBe(false)
    expect(rule.readsContext!(facts({ ...parent, setup: {} }), measured)).toBe(false)
    // The summary replaces the window: the figure measured before the compaction is gone.
    expect(run([compaction("ended")], context(free()), measured).state.tokens).toBeUndefined()
  })

  test("a nearly full parent without magic-context: the episode takes it on (our compaction at once), the judge stands down", () => {
    const input: TurnInput<ContextState> = { state: measured, tools: undefined, context: { limit, magicContext: false } }
    const answer = rule.decide(facts(parent), input)!
    expect(answer.effect?.kind).toBe("stand-down")
    expect(answer.state?.episode).toMatchObject({ phase: "full", cause: "saturation" })
    expect(answer.wakeAt).toBe(NOW)
    expect(answer.effects?.map((e) => e.kind)).toEqual(["watch-output", "log"])
    // With magic-context: its wrap-up, and no episode.
    const magic = rule.decide(facts(parent), { ...input, context: { limit, magicContext: true } })!
    expect(magic.effect).toMatchObject({ kind: "command", name: "ctx-wrapup" })
    expect(magic.state).toBeUndefined()
    // An episode already running: nothing more of the rule's.
    expect(rule.decide(facts(parent), { ...input, state: answer.state! })).toBeUndefined()
    // A failed look-up: no decision.
    expect(rule.decide(facts(parent), { state: measured, tools: undefined })).toBeUndefined()
  })
})
