/**
 * A stall asks the host whether the run is live before it picks the cure, and any abort first
 * looks at the newest assistant message. Simulated clock; each case has its negative control.
 */
import { describe, expect, test } from "bun:test"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { ABORT_CONTINUE_DELAY_MS, UNREAD_HISTORY_MAX_LOOK_GAP_MS } from "../../../src/options/constants.ts"
import { makeHarness, SESSION, userTurn, type Harness } from "../../support/harness.ts"

const BUDGET = 183_000 // chunkTimeoutMs + gracePeriodMs (fast profile defaults)
const BACKOFF = 1_000 // baseBackoffMs before the first attempt
/** Discovery reads the same listing and would mark an unlisted session idle by itself: kept out. */
const NO_DISCOVERY = { discoveryDelayMs: 24 * 60 * 60_000 }
const harness = (options: Record<string, unknown> = {}) => makeHarness({ ...NO_DISCOVERY, ...options })

function assistantWithTool(status: "pending" | "running" | "completed", callID = "call_hidden"): TranscriptMessage[] {
  return [
    { id: "m1", role: "user", parts: [{ kind: "text", text: "build it" }] },
    { id: "m2", role: "assistant", parts: [{ kind: "tool", callID, tool: "bash", status }] },
  ]
}

/** A busy session silent for the whole budget, then the backoff, then the host answers. */
async function stalled(h: Harness): Promise<void> {
  h.emit(...userTurn)
  await h.advance(BUDGET + BACKOFF + 500, 500)
}

describe("a live hung run", () => {
  test("is aborted first, then gets ONE continue quoting attempt 1/3, within budget + backoff + the abort pause", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    await stalled(h)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.port.logged(/abort first, then continue; the host still runs it/)).toBe(true)
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.port.sends[0]!.text).toContain("Attempt 1/3")
    await h.advance(30_000, 1000)
    expect(h.port.actions).toEqual(["abort", "send"])
  })

  test("negative control: a session the host no longer lists gets the plain continue, no abort", async () => {
    const h = harness()
    h.port.busySessions = []
    await stalled(h)
    expect(h.port.actions).toEqual(["send"])
    expect(h.port.sends[0]!.text).toContain("Attempt 1/3")
    expect(h.port.logged(/plain continue; the host no longer runs it/)).toBe(true)
  })

  test("a listing that fails falls back to the plain continue (no abort on a guess), and says so", async () => {
    const h = harness()
    h.port.busySessions = undefined // the listing rejects
    await stalled(h)
    expect(h.port.actions).toEqual(["send"])
    expect(h.port.logged(/plain continue; the host did not say whether it still runs it: no abort on a guess \(.*no session listing/)).toBe(true)
  })

  test("a listing that never answers is given up after sendTimeoutMs, then the plain continue goes out", async () => {
    const h = harness({ sendTimeoutMs: 2_000 })
    h.port.busySessions = [SESSION]
    h.port.readBehaviour = "hang"
    h.emit(...userTurn)
    await h.advance(BUDGET + BACKOFF + 1_000, 500)
    expect(h.port.actions).toEqual([])
    await h.advance(1_500, 500)
    expect(h.port.actions).toEqual(["send"])
    expect(h.port.logged(/did not settle within 2000ms/)).toBe(true)
  })

  test("output of the aborted run during the pause does not make the continue read attempt 0", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    await stalled(h)
    expect(h.port.actions).toEqual(["abort"])
    h.emit({ type: "modelOutput" }) // the tail of the run being aborted resets the episode
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.port.sends[0]!.text).toContain("Attempt 1/3")
  })

  test("a user message while the host is asked cancels the recovery: nothing is aborted or sent", async () => {
    const h = harness({ sendTimeoutMs: 10_000 })
    h.port.busySessions = [SESSION]
    h.port.readBehaviour = "hang"
    h.emit(...userTurn)
    await h.advance(BUDGET + BACKOFF + 500, 500)
    h.emit({ type: "userMessage", genuine: true })
    await h.advance(12_000, 500)
    expect(h.port.actions).toEqual([])
  })

  test("busyStallStrategy abort does not ask: it aborts even a session the host no longer lists", async () => {
    const h = harness({ busyStallStrategy: "abort" })
    h.port.busySessions = []
    await stalled(h)
    expect(h.port.actions).toEqual(["abort"])
  })

  test("busyStallStrategy off: nothing, whatever the host says", async () => {
    const h = harness({ busyStallStrategy: "off" })
    h.port.busySessions = [SESSION]
    await stalled(h)
    await h.advance(60_000, 1000)
    expect(h.port.actions).toEqual([])
  })
})

describe("the look before any abort", () => {
  test("a tool the plugin never saw start, still running in the newest assistant message, vetoes the abort; nothing is counted", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.port.history.set(SESSION, assistantWithTool("running"))
    await stalled(h)
    await h.advance(60_000, 1000)
    expect(h.port.actions).toEqual([])
    expect(h.port.logged(/stall recovery held: not aborting: tool "bash" \(call_hidden\) is still running in the newest assistant message/)).toBe(true)
    expect(h.engine.status(SESSION)?.episodeRetries ?? 0).toBe(0)
    // The tool finishes (the host's record says so): the next check aborts, then continues, attempt 1.
    h.port.history.set(SESSION, assistantWithTool("completed"))
    await h.advance(10_000, 500)
    expect(h.port.actions).toEqual(["abort"])
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(h.port.sends[0]!.text).toContain("Attempt 1/3")
  })

  test("a pending tool part vetoes too", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.port.history.set(SESSION, assistantWithTool("pending"))
    await stalled(h)
    expect(h.port.actions).toEqual([])
  })

  test("negative control: a completed tool part in the newest assistant message does not veto", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.port.history.set(SESSION, assistantWithTool("completed"))
    await stalled(h)
    expect(h.port.actions).toEqual(["abort"])
  })

  test("a running part in an older assistant message does not veto: only the newest is looked at", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.port.history.set(SESSION, [...assistantWithTool("running", "call_old"), { id: "m3", role: "assistant", parts: [{ kind: "text", text: "thinking" }] }])
    await stalled(h)
    expect(h.port.actions).toEqual(["abort"])
  })

  test("a history that cannot be read vetoes the abort (a tool may be running); the stall is looked at again", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.port.history.set(SESSION, [])
    await h.advance(0)
    h.emit(...userTurn)
    await h.advance(BUDGET + BACKOFF - 500, 500)
    h.port.readBehaviour = "reject" // listing and history both fail from here: unknown -> plain continue
    await h.advance(1_000, 500)
    expect(h.port.actions).toEqual(["send"])
    // The continue did not revive the run: the next rung aborts, but the unreadable history vetoes it.
    await h.advance(BUDGET + 10_000, 1000)
    expect(h.port.actions).toEqual(["send"])
    expect(h.port.logged(/not aborting: the newest assistant message could not be read/)).toBe(true)
    h.port.readBehaviour = "ok"
    await h.advance(10_000, 500)
    expect(h.port.actions).toEqual(["send", "abort"])
  })

  test("a history that never reads back: the stall's looks back off, so the host is not asked twice every check for as long as it fails", async () => {
    const h = harness({ checkIntervalMs: 500, sendTimeoutMs: 100 })
    h.port.busySessions = [SESSION]
    h.port.messagesBehaviour = "hang"
    await stalled(h)
    expect(h.port.logged(/not aborting: the newest assistant message could not be read/)).toBe(true)
    const before = h.port.reads
    await h.advance(60 * 60_000, 500)
    expect(h.port.actions).toEqual([])
    // A look is two reads (the listing, the history). One look per check and backoff (1.5 s) is
    // thousands in the hour; backing off towards one look per 5 minutes leaves a few dozen.
    expect(h.port.reads - before).toBeLessThan(2 * 40)
    // Once the history reads again the stall is still looked at, within the longest gap.
    h.port.messagesBehaviour = "ok"
    await h.advance(UNREAD_HISTORY_MAX_LOOK_GAP_MS + 1_000, 500)
    expect(h.port.actions[0]).toBe("abort")
  })

  test("negative control: a history that reads (a tool still running) is looked at every check, as checkIntervalMs says", async () => {
    const h = harness({ checkIntervalMs: 500, sendTimeoutMs: 100 })
    h.port.busySessions = [SESSION]
    h.port.history.set(SESSION, assistantWithTool("running"))
    await stalled(h)
    const before = h.port.reads
    await h.advance(60_000, 500)
    expect(h.port.reads - before).toBeGreaterThan(2 * 30)
    h.port.history.set(SESSION, assistantWithTool("completed"))
    await h.advance(1_000, 500)
    expect(h.port.actions).toEqual(["abort"])
  })

  test("a tool the plugin tracks past the wedged ceiling is left to its own guard: no veto", async () => {
    const h = harness()
    h.port.busySessions = [SESSION]
    h.port.history.set(SESSION, assistantWithTool("running", "call_tracked"))
    h.emit(...userTurn, { type: "toolStart", callID: "call_tracked", tool: "bash" })
    await h.advance(32 * 60_000, 5000)
    expect(h.port.actions[0]).toBe("abort")
  })

  test("the veto covers every abort path, not only stalls: a hallucination-loop abort is held too", async () => {
    const fast = { chunkTimeoutMs: 200, gracePeriodMs: 0, baseBackoffMs: 0, maxBackoffMs: 0, checkIntervalMs: 500, loopMaxContinues: 1, loopWindowMs: 60_000, stallEpisodeMaxContinues: 5, lifetimeMaxContinues: 5, injectIntervalMs: 0 }
    const h = harness(fast)
    h.port.busySessions = []
    h.port.history.set(SESSION, assistantWithTool("running"))
    h.emit(...userTurn)
    // Stopped per the host: a plain continue (no abort, so no look); the next stall is a loop abort.
    await h.advance(3_000, 50)
    expect(h.port.actions).toEqual(["send"])
    expect(h.port.logged(/not aborting: tool "bash" \(call_hidden\)/)).toBe(true)
  })
})
