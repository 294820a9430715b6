/**
 * The progress ceiling on the simulated clock: heartbeats without progress for
 * progressCeilingMs are a stall that goes through the stall ladder; every positive case has
 * its negative control (the same timeline with progress, an open tool, or the ceiling off).
 */
import { describe, expect, test } from "bun:test"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { makeHarness, SESSION, userTurn, type Harness } from "../../support/harness.ts"
import { NO_ENV, warningsFor } from "../options/helpers.ts"

const BUDGET = 183_000 // chunkTimeoutMs + gracePeriodMs (fast profile defaults)
const CEILING = 3 * BUDGET // the default: three stall budgets
const HEARTBEAT_MS = 30_000
/** Discovery reads the same listing and would mark an unlisted session idle by itself: kept out. */
const NO_DISCOVERY = { discoveryDelayMs: 24 * 60 * 60_000 }
const harness = (options: Record<string, unknown> = {}) => makeHarness({ ...NO_DISCOVERY, ...options })

/** `ms` of heartbeats only: a 1.x status repeat and an unmodelled keep-alive every 30 s. */
async function heartbeats(h: Harness, ms: number, between?: (elapsed: number) => void): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += HEARTBEAT_MS) {
    await h.advance(HEARTBEAT_MS, 1000)
    h.emit({ type: "busy" }, { type: "activity", event: "session.keepalive" })
    between?.(elapsed + HEARTBEAT_MS)
  }
}

describe("progress ceiling", () => {
  test("heartbeats alone for the ceiling are a stall: abort first on a live run, then one continue; the log names the heartbeats", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.emit(...userTurn)
    await heartbeats(h, CEILING - HEARTBEAT_MS)
    expect(h.port.calls).toHaveLength(0)
    await heartbeats(h, 2 * HEARTBEAT_MS)
    expect(h.port.logged(/stall detected phase=no-progress .*no progress for .*alive only through: (status busy x\d+, session\.keepalive x\d+|session\.keepalive x\d+, status busy x\d+)/)).toBe(true)
    expect(h.port.logged(/abort first, then continue; the host still runs it/)).toBe(true)
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.port.sends[0]!.kind).toBe("continue")
    expect(h.port.sends[0]!.text).toContain("Attempt 1/3")
    // Our continue starts the ceiling over: more heartbeats short of it send nothing more.
    await heartbeats(h, CEILING - 4 * HEARTBEAT_MS)
    expect(h.port.actions).toEqual(["abort", "send"])
  })

  test("the same ladder as a silent stall: a run OpenCode no longer lists gets the continue alone; still no progress after it, the next rung aborts first", async () => {
    const h = harness()
    h.port.busySessions = []
    h.emit(...userTurn)
    await heartbeats(h, CEILING + HEARTBEAT_MS)
    expect(h.port.actions).toEqual(["send"])
    await heartbeats(h, CEILING + 2 * HEARTBEAT_MS)
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(h.port.actions).toEqual(["send", "abort", "send"])
    expect(h.port.sends[1]!.text).toContain("Attempt 2/3")
  })

  test("negative control: the same timeline with one text delta inside the window does not fire", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.emit(...userTurn)
    await heartbeats(h, CEILING + HEARTBEAT_MS, (elapsed) => {
      if (elapsed === 300_000) h.emit({ type: "modelOutput" })
    })
    expect(h.port.calls).toHaveLength(0)
    // ...and the ceiling counts from that delta: it fires once heartbeats outlast it.
    await heartbeats(h, 300_000)
    expect(h.port.logged(/phase=no-progress/)).toBe(true)
  })

  test("negative control: a step or a tool state change is progress too", async () => {
    for (const progress of [{ type: "activity", progress: true }, { type: "toolEnd", callID: "c1" }] as const) {
      const h = harness()
      h.emit(...userTurn)
      await heartbeats(h, CEILING + HEARTBEAT_MS, (elapsed) => {
        if (elapsed === 300_000) h.emit(progress)
      })
      expect(h.port.calls).toHaveLength(0)
    }
  })

  test("negative control: an open tool keeps its own rules; heartbeats never interrupt it", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.emit(...userTurn, { type: "toolStart", callID: "c1", tool: "bash" })
    await heartbeats(h, 20 * 60_000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/no-progress/)).toBe(false)
  })

  test("negative control: progressCeilingMs 0 turns the ceiling off", async () => {
    const h = harness({ progressCeilingMs: 0 })
    h.port.busySessions = [SESSION]
    h.emit(...userTurn)
    await heartbeats(h, 20 * 60_000)
    expect(h.port.calls).toHaveLength(0)
  })

  test("a ceiling set by the user is the one applied; silence still goes by the stall budget", async () => {
    const h = harness({ progressCeilingMs: 90_000 })
    h.emit(...userTurn)
    await heartbeats(h, 60_000)
    expect(h.port.calls).toHaveLength(0)
    await heartbeats(h, 60_000)
    expect(h.port.logged(/phase=no-progress .*no progress for 1m ?3\ds/)).toBe(true)
    expect(h.port.logged(/phase=idle/)).toBe(false)
  })

  test("heartbeats arriving through the backoff do not call the recovery off; progress there does", async () => {
    const run = async (progressAt?: number) => {
      const h = harness({ progressCeilingMs: 90_000, baseBackoffMs: 10_000 })
      h.emit(...userTurn)
      for (let t = 1000; t <= 130_000; t += 1000) {
        await h.advance(1000, 1000)
        h.emit({ type: "activity", event: "session.keepalive" })
        if (t === progressAt) h.emit({ type: "modelOutput" })
      }
      return h
    }
    const beating = await run()
    expect(beating.port.sends).toHaveLength(1)
    // Control: output a few seconds into the backoff answers the stall; nothing is sent.
    const progressed = await run(95_000)
    expect(progressed.port.logged(/activity resumed before recovery; nothing sent/)).toBe(true)
    expect(progressed.port.calls).toHaveLength(0)
  })

  test("the counts start over with progress: events before it are not named", async () => {
    const h = harness({ progressCeilingMs: 120_000 })
    h.emit(...userTurn)
    await h.advance(1000)
    h.emit({ type: "activity", event: "session.diff" })
    await h.advance(1000)
    h.emit({ type: "modelOutput" })
    await heartbeats(h, 150_000)
    expect(h.port.logged(/alive only through: /)).toBe(true)
    expect(h.port.logged(/session\.diff/)).toBe(false)
  })
})

describe("progressCeilingMs option", () => {
  test("unset means three stall budgets (left to the watchdog), 0 is kept as off", () => {
    expect(resolveOptions({}, NO_ENV).options.progressCeilingMs).toBeUndefined()
    expect(resolveOptions({ progressCeilingMs: 0 }, NO_ENV).options.progressCeilingMs).toBe(0)
    expect(resolveOptions({ progressCeilingMs: 600_000 }, NO_ENV).options.progressCeilingMs).toBe(600_000)
  })

  test.each([-1, "abc", Number.NaN])("a bad value (%p) is warned about once and the default is kept", (value) => {
    const resolved = resolveOptions({ progressCeilingMs: value }, NO_ENV)
    expect(warningsFor(resolved, "progressCeilingMs")).toHaveLength(1)
    expect(resolved.options.progressCeilingMs).toBeUndefined()
  })
})
