import { describe, expect, test } from "bun:test"
import { CLEAR_CONTEXT, contextHolds, nextContextEpisode, type ContextEpisode, type ContextEvent } from "../../../src/paths/context/episode.ts"

/** Feeds events in order; `idle` is the session's state when each arrives. */
function run(events: [ContextEvent, boolean][], from: ContextEpisode = CLEAR_CONTEXT) {
  let episode = from
  const actions: string[] = []
  for (const [i, [event, idle]] of events.entries()) {
    const step = nextContextEpisode(episode, event, i + 1, idle)
    episode = step.episode
    if (step.action.kind !== "none") actions.push(step.action.kind)
  }
  return { episode, actions }
}

const overflow: ContextEvent = { type: "overflow" }
const started: ContextEvent = { type: "compaction", phase: "started" }
const ended: ContextEvent = { type: "compaction", phase: "ended" }
const failed: ContextEvent = { type: "compaction", phase: "failed" }
const idle: ContextEvent = { type: "idle" }
const output: ContextEvent = { type: "modelOutput" }

describe("the host compacts by itself (1.18)", () => {
  test("overflow -> its compaction starts -> ends: the latch is released, nothing of ours is sent", () => {
    const r = run([[overflow, false], [started, false], [idle, false], [ended, false]])
    expect(r.episode).toEqual(CLEAR_CONTEXT)
    expect(r.actions).toEqual(["released"])
  })
  test("control: without the compaction ending the latch holds and nothing is asked while the host compacts", () => {
    const r = run([[overflow, false], [started, false], [idle, true]])
    expect(r.episode.phase).toBe("full")
    expect(contextHolds(r.episode)).toBe(true)
    expect(r.actions).toEqual([])
  })
  test("a compaction with no overflow before it (the user's /compact) is nothing to us", () => {
    expect(run([[started, false], [ended, false], [idle, true]]).actions).toEqual([])
  })
})

describe("the host does not compact", () => {
  test("overflow, idle: we compact once; its end and an idle: one continue; the turn goes through: clear", () => {
    const r = run([
      [overflow, false],
      [idle, true],
      [{ type: "compactCalled", outcome: "ok" }, true],
      [ended, false],
      [idle, true],
      [idle, true], // 1.x repeats its idle: still one continue
      [{ type: "continueCalled", outcome: "sent" }, true],
      [output, false],
      [idle, true],
    ])
    expect(r.actions).toEqual(["compact", "continue", "released"])
    expect(r.episode).toEqual(CLEAR_CONTEXT)
  })
  test("the host's compaction failed: ours once", () => {
    const r = run([[overflow, false], [started, false], [failed, false], [overflow, false], [idle, true]])
    expect(r.actions).toEqual(["compact"])
  })
  test("our compaction fails, is refused, or overflows: stand down until the user writes", () => {
    for (const bad of [failed, overflow, { type: "compactCalled", outcome: "refused" } as ContextEvent]) {
      const r = run([[overflow, false], [idle, true], [bad, true], [idle, true], [overflow, false], [idle, true]])
      expect(r.actions).toEqual(["compact", "stand-down"])
      expect(contextHolds(r.episode)).toBe(true)
      expect(run([[{ type: "genuineUser" }, false]], r.episode).episode).toEqual(CLEAR_CONTEXT)
    }
  })
  test("an overflow again after our continue stands down (once per episode)", () => {
    const r = run([[overflow, false], [idle, true], [ended, true], [{ type: "continueCalled", outcome: "sent" }, true], [overflow, false], [idle, true]])
    expect(r.actions).toEqual(["compact", "continue", "stand-down"])
  })
  test("a compaction that did not go out is not asked again at once (no call loop)", () => {
    const r = run([[overflow, false], [idle, true], [{ type: "compactCalled", outcome: "retry" }, true]])
    expect(r.actions).toEqual(["compact"])
    expect(r.episode.phase).toBe("full")
    expect(run([[idle, true]], r.episode).actions).toEqual(["compact"])
  })
  test("a continue that could not be sent stands down; one held is due again", () => {
    const compacted: ContextEpisode = { phase: "compacted", since: 1, cause: "overflow", sending: true }
    expect(run([[{ type: "continueCalled", outcome: "failed" }, true]], compacted).actions).toEqual(["stand-down"])
    const held = run([[{ type: "continueCalled", outcome: "retry" }, true], [idle, true]], compacted)
    expect(held.actions).toEqual(["continue"])
  })
  test("control: no overflow, no action", () => {
    expect(run([[idle, true], [output, false], [idle, true]]).actions).toEqual([])
  })
})

describe("our saturation check", () => {
  test("a nearly full parent: compaction at the next look, then one continue", () => {
    const r = run([[{ type: "saturated" }, true], [idle, true], [ended, true]])
    expect(r.actions).toEqual(["compact", "continue"])
    expect(r.episode).toMatchObject({ phase: "compacted", cause: "saturation" })
  })
})

test("only a full, compacting or stood-down episode holds other paths", () => {
  expect(contextHolds(CLEAR_CONTEXT)).toBe(false)
  expect(contextHolds({ phase: "compacted", since: 1, cause: "overflow", sending: false })).toBe(false)
  expect(contextHolds({ phase: "resumed", since: 1, answered: false })).toBe(false)
})
