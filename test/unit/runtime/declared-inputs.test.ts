/**
 * What the runtime asks of a path beyond signals and wakes (runtime/path.ts): the rare inputs a
 * path declares it hears (RecoveryPath.hears) and answers at once (the host's retry proposal,
 * a wait carried over a restart, the session leaving the table), a hold that ends at a time
 * (holds(state, now)), and a path's part of the status. The runtime names no path: these are
 * made-up ones.
 */
import { describe, expect, test } from "bun:test"
import type { RestoredWait } from "../../../src/core/carried-waits.ts"
import type { HostRetryProposal } from "../../../src/core/host-retry.ts"
import type { PathInput, RecoveryPath } from "../../../src/runtime/path.ts"
import { PathRuntime } from "../../../src/runtime/paths.ts"
import { bareContext } from "../../support/bare-context.ts"

/** The host's tool names: none, and never asked for here. */
const NO_TOOL_NAMES = { get: async () => undefined, peek: () => undefined }
const PROPOSAL: HostRetryProposal = { name: "APIError", message: "Rate limit exceeded", status: 429, attempt: 1, proposed: { retry: true, delayMs: 2000 } }
const WAIT: RestoredWait = { sessionID: "s1", rung: 2, remainingMs: 60_000, until: 60_000, busy: false }

/** A path that records every input it is handed and answers every retry proposal with no retry. */
function recorder(name: string, hears?: RecoveryPath<readonly string[]>["hears"]): RecoveryPath<readonly string[]> {
  return {
    name,
    ...(hears ? { hears } : {}),
    initial: () => [],
    step: (seen, input: PathInput) => ({ state: [...seen, input.type], effects: [], ...(input.type === "retryProposed" ? { retry: { retry: false as const } } : {}) }),
  }
}

/** What the path `name` was handed for the session: its state, kept by the runtime in the session record. */
const seenBy = (state: ReturnType<typeof bareContext>["state"], name: "deaf" | "hearing") => (state.paths[PLACES[name]] as { state: string[] } | undefined)?.state
/** Where each recorder stands in the runtime's list, which is where the session record keeps its state. */
const PLACES = { deaf: 0, hearing: 1 } as const

describe("inputs a path declares it hears", () => {
  test("the host's retry proposal is answered by the path that hears it, at once", () => {
    const { ctx, state } = bareContext()
    const runtime = new PathRuntime(ctx, [recorder("deaf"), recorder("hearing", ["retryProposed"])], NO_TOOL_NAMES)
    expect(runtime.retryProposed(state, PROPOSAL, 0)).toEqual({ retry: false })
    expect(seenBy(state, "hearing")).toEqual(["retryProposed"])
    // Negative control: a path that did not declare it never sees it (a stall step answers any input).
    expect(seenBy(state, "deaf")).toBeUndefined()
  })

  test("negative control: with no path hearing it the host's proposal stands", () => {
    const { ctx, state } = bareContext()
    const runtime = new PathRuntime(ctx, [recorder("deaf")], { get: async () => undefined, peek: () => undefined })
    expect(runtime.retryProposed(state, PROPOSAL, 0)).toBeUndefined()
  })

  test("a wait carried over a restart is taken by the path that hears it; none: not taken", () => {
    const taking = bareContext()
    const runtime = new PathRuntime(taking.ctx, [recorder("hearing", ["waitRestored"])], NO_TOOL_NAMES)
    expect(runtime.waitRestored(taking.state, WAIT, 0)).toBe(true)
    const none = bareContext()
    expect(new PathRuntime(none.ctx, [recorder("deaf")], { get: async () => undefined, peek: () => undefined }).waitRestored(none.state, WAIT, 0)).toBe(false)
  })

  test("the session leaving the table reaches only the paths that keep something outside it", () => {
    const { ctx, state } = bareContext()
    const runtime = new PathRuntime(ctx, [recorder("deaf"), recorder("hearing", ["dropped"])], NO_TOOL_NAMES)
    runtime.dropped(state)
    expect(seenBy(state, "hearing")).toEqual(["dropped"])
    expect(seenBy(state, "deaf")).toBeUndefined()
  })
})

describe("facts that depend on the time, and the status", () => {
  /** A path that holds the session until the time its state names. */
  const until: RecoveryPath<number> = {
    name: "until",
    signals: ["idle"],
    initial: () => 0,
    holds: (end, now) => (now < end ? "waiting until it is over" : undefined),
    status: (end) => (end > 0 ? { rateLimitWait: { until: end, rung: 1, carriedOver: false } } : undefined),
    step: (_end, input) => (input.type === "signal" ? { state: 1000, effects: [] } : undefined),
  }

  test("a hold that ends at a time is over at that time, and mayAct says so", () => {
    const { ctx, state } = bareContext()
    const runtime = new PathRuntime(ctx, [until], { get: async () => undefined, peek: () => undefined })
    runtime.signal(state, { type: "idle", sessionID: state.id }, 0)
    expect(runtime.holds(state, 999)).toBe("waiting until it is over")
    expect(runtime.holds(state, 1000)).toBeUndefined()
  })

  test("a path's part of the status; negative control: none before it has a state", () => {
    const { ctx, state } = bareContext()
    const runtime = new PathRuntime(ctx, [until], { get: async () => undefined, peek: () => undefined })
    expect(runtime.status(state)).toBeUndefined()
    runtime.signal(state, { type: "idle", sessionID: state.id }, 0)
    expect(runtime.status(state)).toEqual({ rateLimitWait: { until: 1000, rung: 1, carriedOver: false } })
  })
})
