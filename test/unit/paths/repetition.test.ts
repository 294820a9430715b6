/**
 * The repetition path (paths/repetition/) as a pure step (runtime/path.ts): streamed text in,
 * the abort then correction out as data, the loop window kept in its state. The engine-level
 * timelines (the abort, the prompt after it, the budgets) stay in test/unit/modules/repetition.test.ts.
 */
import { feed } from "../../support/path-steps.ts"
import { describe, expect, test } from "bun:test"
import { repetitionPath, type RepetitionState } from "../../../src/paths/repetition/path.ts"
import type { Act, Hold } from "../../../src/runtime/may-act.ts"
import type { PathEffect, PathInput, StepContext } from "../../../src/runtime/path.ts"
import { effectiveOptions, resolveOptions, type Options } from "../../../src/options/index.ts"

const options: Options = { ...effectiveOptions(resolveOptions({}, {})), loopMaxContinues: 1, loopWindowMs: 600_000 }
const NOW = 10_000_000
const SENTENCE = "I need to verify the session table before I change it. "
const session = { id: "s1" } as unknown as StepContext["session"]

function context(now = NOW, held: (act: Act) => Hold | undefined = () => undefined): StepContext {
  return { session, now, options: () => options, mayAct: held, goal: () => undefined, paused: () => false, unknownModels: () => new Set() }
}

/** The text streamed as deltas of one part, 11 characters at a time. */
function deltas(text: string, part = "prt_1"): PathInput[] {
  const out: PathInput[] = []
  for (let i = 0; i < text.length; i += 11) out.push({ type: "text", part, delta: text.slice(i, i + 11), text: undefined })
  return out
}

const signal = (type: "userMessage" | "idle" | "interrupted"): PathInput =>
  ({ type: "signal", signal: type === "userMessage" ? { type, sessionID: "s1", genuine: true } : { type, sessionID: "s1" } }) as PathInput

/** Feeds the inputs in order; the state after them and every effect asked for. */
function run(inputs: PathInput[], ctx = context(), from: RepetitionState = repetitionPath.initial()) {
  const { state, effects } = feed(repetitionPath, inputs, ctx, from)
  return { state, effects }
}

const LOOP = deltas(SENTENCE.repeat(30))

describe("the repetition path's step", () => {
  test("a sentence streamed again and again: an abort then the repetition correction, counted as a recovery", () => {
    const { effects } = run(LOOP)
    expect(effects).toHaveLength(1)
    const act = effects[0]!
    if (act.kind !== "act") throw new Error(act.kind)
    expect(act.effect).toMatchObject({ kind: "abort-continue", reason: "repetition", sendKind: "correction" })
    if (act.effect.kind !== "abort-continue") throw new Error(act.effect.kind)
    expect(act.effect.text).toContain(SENTENCE.trim())
    expect(act.via).toMatchObject({ budget: { what: "repetition recovery", record: { kind: "abort+continue" } }, journal: { trigger: "repetition" } })
    expect(act.id).toBeDefined()
    // Negative control: as much varied text asks for nothing.
    const rows = Array.from({ length: 60 }, (_, i) => `| ${i} | option-${i} | default | enabled |\n`).join("")
    expect(run(deltas(rows)).effects).toEqual([])
  })

  test("the buffer is the session's: the initial state every session starts from never holds one", () => {
    const { state } = run(deltas(SENTENCE.repeat(3)))
    expect(state.parts).toBeDefined()
    expect(repetitionPath.initial().parts).toBeUndefined()
    // Its own deltas after the first change nothing the runtime keeps.
    expect(repetitionPath.step(state, deltas("more text. ")[0]!, context())).toBeUndefined()
  })

  test("a genuine user message starts the parts over; the run's end drops them", () => {
    const half = deltas(SENTENCE.repeat(15))
    const { effects } = run([...half, signal("userMessage"), ...deltas(SENTENCE.repeat(6))])
    expect(effects).toEqual([])
    for (const end of ["idle", "interrupted"] as const) {
      const ended = run([...half, signal(end)])
      expect(ended.state.parts).toBeUndefined()
      expect(run(deltas(SENTENCE.repeat(6)), context(), ended.state).effects).toEqual([])
    }
    // Control: without the break the same text is a repetition.
    expect(run([...half, ...deltas(SENTENCE.repeat(15))]).effects.map((e) => e.kind)).toEqual(["act"])
  })

  test("a guard's hold is journaled and logged; a recovery of ours under way is only logged; nothing is sent", () => {
    const guarded = run(LOOP, context(NOW, (act) => (act === "recovery" ? { reason: "paused", by: "user" } : undefined)))
    expect(guarded.effects.map((e) => e.kind)).toEqual(["journal-refused", "log"])
    expect(guarded.effects[0]).toMatchObject({ action: "abort + correction", why: "held", reason: "paused" })
    const ours = run(LOOP, context(NOW, () => ({ reason: "a recovery is already under way", by: "ours" })))
    expect(ours.effects.map((e) => e.kind)).toEqual(["log"])
  })

  test("an abort counts against the loop window once committed; the next window allows one again", () => {
    const first = run(LOOP)
    const act = first.effects[0]
    if (act?.kind !== "act" || act.id === undefined) throw new Error("no act with an id")
    // Delivered alone (no abort went out) counts nothing.
    expect(repetitionPath.step(first.state, { type: "effectSettled", id: act.id, outcome: { kind: "delivered", outcome: undefined } }, context())).toBeUndefined()
    const committed = repetitionPath.step(first.state, { type: "effectSettled", id: act.id, outcome: { kind: "committed" } }, context())!
    expect(committed.state.aborts).toEqual([NOW])
    // A run later (the parts start afresh), the same repetition again.
    const again = run([signal("idle"), ...LOOP], context(NOW + 1_000), committed.state)
    expect(again.effects.map((e) => e.kind)).toEqual(["log"])
    expect(again.effects[0]).toMatchObject({ text: expect.stringMatching(/1 repetition recoveries in the loop window/) })
    expect(run([signal("idle"), ...LOOP], context(NOW + options.loopWindowMs), committed.state).effects.map((e) => e.kind)).toEqual(["act"])
  })

  test("it hears what it declared", () => {
    expect(repetitionPath.streams).toEqual(["text"])
    expect(repetitionPath.signals).toEqual(["userMessage", "idle", "interrupted"])
    expect(repetitionPath.step(repetitionPath.initial(), { type: "wake" }, context())).toBeUndefined()
  })
})
