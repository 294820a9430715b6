/**
 * Generators of valid-but-adversarial scenarios. The building blocks are small "chunks" (a
 * user turn, a tool phase, a silence, a question, a single odd event, ...) concatenated into
 * one timeline over a few interleaved sessions, so that recoveries really happen and then get
 * interrupted by everything a host can throw at them.
 *
 * New signal kind: add its generator to EVENT_ARBS (weight = how often it appears).
 */
import fc from "fast-check"
import { TOOL_WEDGED_CEILING_MS } from "../../src/options/index.ts"
import type { EventType, HostEvent } from "./events.ts"
import type { CallScript, Delivery, Scenario, Step } from "./model.ts"
import type { V2Faults } from "./v2-host.ts"

/** Sessions in the pool: s0..s3; s2 and s3 are usually created as subagents of s0 / s2. */
export const POOL = 4
const session = fc.integer({ min: 0, max: POOL - 1 })
const variant = fc.integer({ min: 0, max: 2 })
const callIndex = fc.integer({ min: 0, max: 4 })
const keyIndex = fc.integer({ min: 0, max: 2 })
const TOOLS = ["bash", "read", "edit", "task", "compress", "webfetch"] as const

const ev = <T extends EventType>(t: T, fields: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.record({ t: fc.constant(t), s: session, ...fields }) as unknown as fc.Arbitrary<Extract<HostEvent, { t: T }>>

/** One generator per event kind the timeline may contain (the host's own echoes excluded). */
export const EVENT_ARBS: { [K in EventType]?: { weight: number; arb: fc.Arbitrary<HostEvent> } } = {
  user: { weight: 3, arb: ev("user", { provider: fc.constantFrom(undefined, "cloud", "cloud", "local") }) },
  ownEcho: { weight: 1, arb: ev("ownEcho") },
  busy: { weight: 4, arb: ev("busy") },
  idle: { weight: 3, arb: ev("idle", { v: variant }) },
  output: { weight: 4, arb: ev("output", { v: variant }) },
  say: { weight: 2, arb: ev("say", { text: fc.integer({ min: 0, max: 6 }) }) },
  usage: {
    weight: 2,
    arb: ev("usage", {
      msg: fc.integer({ min: 0, max: 2 }),
      tokens: fc.integer({ min: 0, max: 400 }),
      context: fc.constantFrom(undefined, 20_000, 120_000, 190_000),
    }),
  },
  toolStart: { weight: 3, arb: ev("toolStart", { call: callIndex, tool: fc.constantFrom(...TOOLS), v: variant }) },
  toolEnd: { weight: 3, arb: ev("toolEnd", { call: callIndex, v: variant }) },
  esc: { weight: 2, arb: ev("esc", { v: variant }) },
  ask: { weight: 1, arb: ev("ask", { key: keyIndex, v: variant }) },
  answer: { weight: 1, arb: ev("answer", { key: keyIndex, v: variant }) },
  error: {
    weight: 1,
    arb: ev("error", {
      name: fc.constantFrom("APIError", "ProviderError", "UnknownError", "ProviderAuthError"),
      status: fc.constantFrom(undefined, 429, 500, 529),
    }),
  },
  retry: { weight: 1, arb: ev("retry") },
  activity: { weight: 2, arb: ev("activity") },
  todos: { weight: 1, arb: ev("todos", { open: fc.integer({ min: 0, max: 2 }) }) },
  created: { weight: 1, arb: ev("created", { parent: fc.constantFrom(undefined, 0, 1, 2) }) },
  deleted: { weight: 1, arb: ev("deleted") },
}

const anyEvent: fc.Arbitrary<HostEvent> = fc.oneof(
  ...Object.values(EVENT_ARBS).map((e) => ({ weight: e!.weight, arbitrary: e!.arb })),
)

const delivery: fc.Arbitrary<Delivery> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Delivery>("once") },
  { weight: 1, arbitrary: fc.constant<Delivery>("twice") },
  { weight: 1, arbitrary: fc.constant<Delivery>("hold") },
)

const once = (e: HostEvent): Step => ({ k: "ev", ev: e, how: "once" })

/** Waits on every scale the engine cares about: ms, backoffs, budgets, the tool ceiling. */
export const waitMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 300 }) },
  { weight: 3, arbitrary: fc.integer({ min: 300, max: 3_000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 3_000, max: 70_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 70_000, max: 700_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(2_000, 1_000, TOOL_WEDGED_CEILING_MS, TOOL_WEDGED_CEILING_MS + 1) },
)

/**
 * Clock jumps as the core can meet them: forward only. The production clock
 * (src/host/real-time.ts) never goes back and follows the wall clock forward (a laptop resumed
 * from sleep, a forward NTP step) but never back, so a step back of the wall clock never
 * reaches the engine; generating one would only find failures that cannot happen. The core
 * still copes with a clock that goes back (hand-written timelines in known-bugs.test.ts).
 */
const jumpMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 600_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 600_000, max: 2 * TOOL_WEDGED_CEILING_MS }) },
)

type Chunk = fc.Arbitrary<Step[]>

const chunks: Array<{ weight: number; arbitrary: Chunk }> = [
  // A single event of any kind, possibly duplicated or held back.
  { weight: 10, arbitrary: fc.record({ k: fc.constant("ev" as const), ev: anyEvent, how: delivery }).map((s) => [s as Step]) },
  // A genuine user turn that starts a run and streams a little.
  {
    weight: 4,
    arbitrary: fc
      .tuple(session, fc.constantFrom(undefined, "cloud", "local"), fc.integer({ min: 0, max: 3 }))
      .map(([s, provider, outputs]) => [
        once({ t: "user", s, provider } as HostEvent),
        once({ t: "busy", s }),
        ...Array.from({ length: outputs }, () => once({ t: "output", s })),
      ]),
  },
  // A finished turn whose closing text the idle judgement acts on; the idle maybe doubled.
  {
    weight: 3,
    arbitrary: fc
      .tuple(session, fc.integer({ min: 0, max: 6 }), delivery, waitMs, fc.boolean())
      .map(([s, text, how, ms, fresh]) => [
        ...(fresh ? [once({ t: "user", s }), once({ t: "busy", s })] : []),
        once({ t: "say", s, text }),
        { k: "ev", ev: { t: "idle", s }, how } as Step,
        { k: "wait", ms } as Step,
      ]),
  },
  // A tool call, with or without its end, with time passing inside it.
  {
    weight: 3,
    arbitrary: fc
      .tuple(session, callIndex, fc.constantFrom(...TOOLS), waitMs, fc.boolean(), variant)
      .map(([s, call, tool, ms, ends, v]) => [
        once({ t: "toolStart", s, call, tool, v }),
        { k: "wait", ms } as Step,
        ...(ends ? [once({ t: "toolEnd", s, call, v })] : []),
      ]),
  },
  // A question or permission, answered or not.
  {
    weight: 1,
    arbitrary: fc
      .tuple(session, keyIndex, waitMs, fc.boolean(), variant)
      .map(([s, key, ms, answered, v]) => [
        once({ t: "ask", s, key, v }),
        { k: "wait", ms } as Step,
        ...(answered ? [once({ t: "answer", s, key, v })] : []),
      ]),
  },
  // A run left to stall, then ESC somewhere around the recovery, then maybe more host noise.
  {
    weight: 2,
    arbitrary: fc
      .tuple(session, waitMs, waitMs, variant, fc.boolean())
      .map(([s, before, after, v, busyAgain]) => [
        once({ t: "user", s }),
        once({ t: "busy", s }),
        { k: "wait", ms: before } as Step,
        once({ t: "esc", s, v }),
        ...(busyAgain ? [once({ t: "busy", s })] : []),
        { k: "wait", ms: after } as Step,
      ]),
  },
  // A pause that spans part of a stall.
  {
    weight: 1,
    arbitrary: fc
      .tuple(session, waitMs, waitMs)
      .map(([s, during, after]) => [{ k: "pause", s } as Step, { k: "wait", ms: during } as Step, { k: "resume", s } as Step, { k: "wait", ms: after } as Step]),
  },
  // A subagent: created under a parent, then its own user turn.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 2, max: POOL - 1 }), fc.integer({ min: 0, max: 1 }))
      .map(([s, parent]) => [once({ t: "created", s, parent }), once({ t: "user", s }), once({ t: "busy", s })]),
  },
  // Time passing.
  { weight: 8, arbitrary: waitMs.map((ms) => [{ k: "wait", ms } as Step]) },
  { weight: 1, arbitrary: jumpMs.map((ms) => [{ k: "jump", ms } as Step]) },
  { weight: 1, arbitrary: fc.constant([{ k: "release" } as Step]) },
  { weight: 1, arbitrary: session.map((s) => [{ k: "pause", s } as Step]) },
  { weight: 1, arbitrary: session.map((s) => [{ k: "resume", s } as Step]) },
  { weight: 1, arbitrary: fc.boolean().map((on) => [{ k: "pauseAll", on } as Step]) },
  { weight: 1, arbitrary: fc.constant([{ k: "sweep" } as Step]) },
]

/**
 * Undo (ScenarioShape.reverts): a finished turn the user reverts, maybe a repeat of the same
 * revert, maybe the host running the session again and leaving it to stall; or the reverted
 * messages leaving the history (as the user's next message goes in). Apart from `chunks` so a
 * seed draws the timelines without reverts exactly as before.
 */
const revertChunks: Array<{ weight: number; arbitrary: Chunk }> = [
  {
    weight: 3,
    arbitrary: fc
      .tuple(session, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 2 }), waitMs, fc.boolean(), fc.boolean(), waitMs)
      .map(([s, text, msg, ms, again, stalls, after]) => [
        once({ t: "say", s, text }),
        once({ t: "idle", s }),
        once({ t: "revert", s, msg, v: 0 }),
        { k: "wait", ms } as Step,
        ...(again ? [once({ t: "revert", s, msg, v: 2 })] : []),
        ...(stalls ? [once({ t: "busy", s }), once({ t: "output", s })] : []),
        { k: "wait", ms: after } as Step,
      ]),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("ev" as const), ev: ev("revert", { msg: fc.integer({ min: 0, max: 2 }), v: variant }), how: delivery }).map((s) => [s as Step]) },
]

/** Rare: a burst of new sessions big enough to hit MAX_TRACKED_SESSIONS. */
const flood: Chunk = fc
  .tuple(fc.integer({ min: 1, max: 1_200 }), fc.integer({ min: 0, max: 9 }))
  .map(([n, tag]) => [{ k: "flood", n, tag } as Step])

export function timelineArb(maxChunks: number, withFloods: boolean, size: fc.SizeForArbitrary = "medium", withReverts = false): fc.Arbitrary<Step[]> {
  const all = [...chunks, ...(withFloods ? [{ weight: 3, arbitrary: flood }] : []), ...(withReverts ? revertChunks : [])]
  return fc.array(fc.oneof(...all), { minLength: 1, maxLength: maxChunks, size }).map((cs) => cs.flat())
}

function outcomeArb(overdue: boolean): fc.Arbitrary<CallScript["outcome"]> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant("ok" as const) },
    { weight: 1, arbitrary: fc.constant("reject" as const) },
    { weight: 1, arbitrary: fc.constant("throw" as const) },
    { weight: 1, arbitrary: fc.constant("hang" as const) },
    { weight: 2, arbitrary: fc.constant("late" as const) },
    { weight: 1, arbitrary: fc.constant("junk" as const) },
    { weight: overdue ? 1 : 0, arbitrary: fc.constant("overdue" as const) },
  )
}

export const callScriptArb = (overdue = false): fc.Arbitrary<CallScript> => fc.record({
  outcome: outcomeArb(overdue),
  lateMs: fc.oneof(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 500, max: 60_000 })),
  echoDelayMs: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 3_000 }) }),
  idleAfterAbort: fc.boolean(),
})

/** Small budgets so that stalls, backoffs and timeouts all happen inside a short timeline. */
export const optionsArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      chunkTimeoutMs: fc.constantFrom(200, 1_000, 5_000, 60_000),
      gracePeriodMs: fc.constantFrom(0, 50, 1_000),
      checkIntervalMs: fc.constantFrom(500, 1_000, 5_000),
      baseBackoffMs: fc.constantFrom(0, 100, 1_000),
      maxBackoffMs: fc.constantFrom(0, 500, 8_000),
      maxRetries: fc.integer({ min: 1, max: 4 }),
      lifetimeMaxContinues: fc.integer({ min: 1, max: 6 }),
      loopMaxContinues: fc.integer({ min: 1, max: 4 }),
      loopWindowMs: fc.constantFrom(1_000, 60_000, 600_000),
      sendTimeoutMs: fc.constantFrom(100, 1_000, 30_000),
      stuckToolAgeMs: fc.constantFrom(100, 60_000),
      busyStallStrategy: fc.constantFrom("continue", "continue", "abort", "off"),
      richContinuePrompt: fc.boolean(),
      // The finished-turn judgement: quick enough to act inside a short timeline.
      activeUserWindowMs: fc.constantFrom(0, 0, 300_000),
      warmupMs: fc.constantFrom(0, 15_000),
      toolTextCheckDelayMs: fc.constantFrom(0, 200, 3_000),
      minActivityGapMs: fc.constantFrom(0, 1_000),
      injectIntervalMs: fc.constantFrom(0, 5_000),
      subagentWaitMs: fc.constantFrom(1_000, 15_000),
    }),
  },
  // Shipped defaults, profiles included (a local model switches a session to the slow one).
  { weight: 1, arbitrary: fc.constant({}) },
)

export type ScenarioShape = {
  maxChunks?: number
  /** Bursts of up to 1,200 new sessions (the state caps); costly, so used with short timelines. */
  floods?: boolean
  size?: fc.SizeForArbitrary
  /** Host answers that land after the plugin gave up on them (known finding, see known-bugs). */
  overdue?: boolean
  /** The user's reverts (undo) in the mix. */
  reverts?: boolean
}

export function scenarioArb(opts: ScenarioShape = {}): fc.Arbitrary<Scenario> {
  return fc.record({
    options: optionsArb,
    steps: timelineArb(opts.maxChunks ?? 60, opts.floods ?? false, opts.size, opts.reverts ?? false),
    calls: fc.array(callScriptArb(opts.overdue ?? false), { maxLength: 12 }),
  })
}

/**
 * The 2.x faults (v2-host.ts), drawn after the scenario: fc.tuple draws its first member exactly
 * as the scenario alone would, so a seed gives the 2.x driver the same timeline as the others.
 */
export const v2FaultsArb: fc.Arbitrary<V2Faults> = fc.record({
  breaks: fc.array(fc.record({ after: fc.integer({ min: 0, max: 240 }), how: fc.constantFrom("end" as const, "throw" as const, "refuse" as const) }), { maxLength: 4 }),
  foreignEvery: fc.constantFrom(0, 0, 3, 7, 17),
  undurableEvery: fc.constantFrom(0, 2, 5),
})

export function v2ScenarioArb(opts: ScenarioShape = {}): fc.Arbitrary<Scenario> {
  return fc.tuple(scenarioArb(opts), v2FaultsArb).map(([sc, v2]) => ({ ...sc, v2 }))
}
