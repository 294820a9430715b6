/**
 * The continue after our own abort goes out as soon as the host shows the aborted run over (the
 * `idle` both adapters make of it: 1.18's idle status, 2.x's execution.interrupted), with no fixed
 * pause; ABORT_CONTINUE_DELAY_MS is only the ceiling for a host that shows nothing. A run the
 * host started by itself meanwhile still gets nothing. Simulated clock; each case has its control.
 */
import { describe, expect, test } from "bun:test"
import type { Signal } from "../../../src/core/port.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { makeHarness, userTurn, type Harness } from "../../support/harness.ts"

/** A one-second stall budget, no backoff, and a live run aborted before its continue. */
const FAST = { busyStallStrategy: "abort", chunkTimeoutMs: 1000, gracePeriodMs: 0, baseBackoffMs: 0 }
/** How long the host takes to answer the abort call. */
const ANSWER_MS = 50

type Report = Array<Partial<Signal> & { type: Signal["type"] }>

/**
 * A host that answers the abort ANSWER_MS after the call and reports `whileCalling` as the call
 * goes out (1.18 reports the abort before it answers it).
 */
function hostAnswersAbort(h: Harness, whileCalling: Report = []): void {
  const record = h.port.abort.bind(h.port)
  h.port.abort = (sessionID: string) => {
    void record(sessionID)
    h.emit(...whileCalling)
    return new Promise<void>((resolve) => h.time.schedule(ANSWER_MS, resolve))
  }
}

/** Until the stall's abort has been answered; returns when that was. */
async function untilAbortAnswered(h: Harness): Promise<number> {
  h.emit(...userTurn)
  for (let i = 0; i < 400 && h.port.aborts === 0; i++) await h.advance(10, 10)
  expect(h.port.actions).toEqual(["abort"])
  const abortAt = h.port.calls.find((c) => c.kind === "abort")!.at
  await h.advance(abortAt + ANSWER_MS - h.time.now(), 10)
  return abortAt + ANSWER_MS
}

const sendTimes = (h: Harness) => h.port.calls.filter((c) => c.kind === "send").map((c) => c.at)

describe("the continue after our abort", () => {
  test("follows the end the host reported while the call was out (1.18's order) as the call answers", async () => {
    const h = makeHarness(FAST)
    hostAnswersAbort(h, [{ type: "interrupted" }, { type: "idle" }])
    const answeredAt = await untilAbortAnswered(h)
    await h.advance(20, 10)
    expect(sendTimes(h)).toEqual([answeredAt])
    expect(h.port.logged(/aborted the run \(send continue\); prompting in 0ms \(the run has ended\)/)).toBe(true)
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("negative control: an interruption with no idle is no end of the run: the continue waits for the ceiling", async () => {
    const h = makeHarness(FAST)
    hostAnswersAbort(h, [{ type: "interrupted" }])
    const answeredAt = await untilAbortAnswered(h)
    await h.advance(ABORT_CONTINUE_DELAY_MS - 100, 100)
    expect(h.port.actions).toEqual(["abort"])
    await h.advance(200, 100)
    expect(sendTimes(h)).toEqual([answeredAt + ABORT_CONTINUE_DELAY_MS])
  })

  test("follows at once an end the host reports after it answered (a late host; 2.x's interrupted comes with its idle)", async () => {
    const h = makeHarness(FAST)
    hostAnswersAbort(h)
    await untilAbortAnswered(h)
    await h.advance(2000, 100)
    expect(h.port.actions).toEqual(["abort"])
    const reportedAt = h.time.now()
    h.emit({ type: "interrupted" }, { type: "idle" })
    await h.advance(10, 10)
    expect(sendTimes(h)).toEqual([reportedAt])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("negative control: with nothing reported it goes out at the ceiling, ABORT_CONTINUE_DELAY_MS after the answer, and once", async () => {
    const h = makeHarness(FAST)
    hostAnswersAbort(h)
    const answeredAt = await untilAbortAnswered(h)
    await h.advance(ABORT_CONTINUE_DELAY_MS - 100, 100)
    expect(h.port.actions).toEqual(["abort"])
    await h.advance(200, 100)
    expect(sendTimes(h)).toEqual([answeredAt + ABORT_CONTINUE_DELAY_MS])
    h.emit({ type: "idle" }) // a late report after the continue went out sends nothing more
    await h.advance(ABORT_CONTINUE_DELAY_MS, 100)
    expect(h.port.actions).toEqual(["abort", "send"])
  })

  test("is not sent when a run the host started by itself follows the end (a queued prompt it ran)", async () => {
    const h = makeHarness(FAST)
    hostAnswersAbort(h)
    await untilAbortAnswered(h)
    h.emit({ type: "interrupted" }, { type: "idle" }, { type: "busy" })
    // (Within the new run's own stall budget: a hang of it is a stall of its own.)
    await h.advance(500, 100)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.port.logged(/a new run started by itself after the abort; nothing sent/)).toBe(true)
  })

  test("is not sent when that run started while the call was still out, after the reported end", async () => {
    const h = makeHarness(FAST)
    hostAnswersAbort(h, [{ type: "interrupted" }, { type: "idle" }, { type: "busy" }])
    await untilAbortAnswered(h)
    await h.advance(500, 100)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.port.logged(/a new run started by itself after the abort; nothing sent/)).toBe(true)
  })

  test("is not sent when the user writes between the end and the wake", async () => {
    const h = makeHarness(FAST)
    hostAnswersAbort(h)
    await untilAbortAnswered(h)
    h.emit({ type: "interrupted" }, { type: "idle" }, { type: "userMessage", genuine: true })
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000, 100)
    expect(h.port.actions).toEqual(["abort"])
  })
})
