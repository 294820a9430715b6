/**
 * Our own abort against the user's ESC, and aborts that are accepted but not yet reported.
 * Both arrive as the same interruption; the core counts one per accepted abort (own-abort.ts).
 * Each case has its negative control.
 */
import { describe, expect, test } from "bun:test"
import { ABORT_REPORT_SKEW_MS as OWN_ABORT_REPORT_SKEW_MS } from "../../../src/core/intervention.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { makeHarness, userTurn, type Harness } from "../../support/harness.ts"

const BUDGET = 183_000 // chunkTimeoutMs + gracePeriodMs (fast profile defaults)
const SEND_TIMEOUT = 30_000
const ABORT_FIRST = { busyStallStrategy: "abort" }

/** Until the first stall's abort has gone out (backoff 1 s). */
async function untilAbort(h: Harness): Promise<void> {
  h.emit(...userTurn)
  await h.advance(BUDGET + 1000, 1000)
  expect(h.port.actions).toEqual(["abort"])
}

/** Until the first stall's abort has gone out, with a host that never answers the abort call. */
async function untilHangingAbort(): Promise<Harness> {
  const h = makeHarness(ABORT_FIRST)
  h.port.abortBehaviour = "hang"
  await untilAbort(h)
  return h
}

/**
 * The host reports the abort as 1.18 does: the interruption arrives while the call is out, and
 * the answer follows `answerAfterMs` later.
 */
function reportBeforeAnswer(h: Harness, answerAfterMs: number): void {
  const record = h.port.abort.bind(h.port)
  h.port.abort = (sessionID: string) => {
    void record(sessionID)
    h.emit({ type: "interrupted" }, { type: "idle" })
    return new Promise<void>((resolve) => h.time.schedule(answerAfterMs, resolve))
  }
}

describe("our abort's interruption or the user's ESC", () => {
  test("reported just before the host answers the abort, the interruption is ours: the continue follows", async () => {
    const h = makeHarness(ABORT_FIRST)
    reportBeforeAnswer(h, 100)
    await untilAbort(h)
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("negative control: an interruption long before the answer (the call hung meanwhile) is the user's", async () => {
    const h = makeHarness(ABORT_FIRST)
    reportBeforeAnswer(h, OWN_ABORT_REPORT_SKEW_MS + 5000)
    await untilAbort(h)
    await h.advance(9 * 60_000, 5000) // (an idle session is forgotten after 10 min)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
    expect(h.port.logged(/stopped while our abort was out \(abort ok\)/)).toBe(true)
    expect(h.port.logged(/prompting in/)).toBe(false)
  })

  test("an ESC while our abort hangs is the user's once the call times out: nothing follows, even after the run moves on", async () => {
    const h = await untilHangingAbort()
    h.emit({ type: "interrupted" })
    await h.advance(SEND_TIMEOUT + 1000, 1000)
    h.emit({ type: "busy" }, { type: "modelOutput" })
    await h.advance(20 * 60_000, 5000)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
    expect(h.port.logged(/stopped while our abort was out \(abort timeout\)/)).toBe(true)
  })

  test("negative control: the same hang without the ESC is recovered once the run moves on", async () => {
    const h = await untilHangingAbort()
    await h.advance(SEND_TIMEOUT + 1000, 1000)
    h.emit({ type: "busy" }, { type: "modelOutput" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["abort", "abort"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("a second interruption before the continue, however late (host reports the abort seconds late), is the user's", async () => {
    const h = makeHarness(ABORT_FIRST)
    await untilAbort(h)
    await h.advance(100)
    h.emit({ type: "interrupted" }) // the user's ESC, taken for our abort's echo
    await h.advance(2500)
    h.emit({ type: "interrupted" }) // our abort's echo, reported late
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
  })

  test("once our continue after the abort has shown up, a later interruption is the user's ESC", async () => {
    const h = makeHarness(ABORT_FIRST)
    await untilAbort(h)
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000, 1000)
    expect(h.port.actions).toEqual(["abort", "send"])
    // The host never reported the abort; our continue reached the session and a run started.
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, { type: "activity" })
    await h.advance(5000, 1000)
    h.emit({ type: "interrupted" })
    await h.advance(3 * BUDGET, 1000)
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
    expect(h.port.actions).toEqual(["abort", "send"])
  })

  test("negative control: with nothing in between, an interruption inside the window is the abort's late report", async () => {
    const h = makeHarness(ABORT_FIRST)
    await untilAbort(h)
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000, 1000)
    h.emit({ type: "busy" }, { type: "activity" })
    await h.advance(5000, 1000)
    h.emit({ type: "interrupted" })
    await h.advance(1000)
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("the user writes while our abort is out: an interruption then is their ESC, however our call answers", async () => {
    const escAfter = async (userWrites: boolean) => {
      const h = makeHarness(ABORT_FIRST)
      const record = h.port.abort.bind(h.port)
      h.port.abort = (sessionID: string) => {
        void record(sessionID)
        return new Promise<void>((resolve) => h.time.schedule(1000, resolve)) // answered 1 s later
      }
      await untilAbort(h)
      if (userWrites) h.emit(...userTurn)
      await h.advance(300)
      h.emit({ type: "interrupted" }) // 700 ms before our call is answered
      await h.advance(3 * BUDGET, 1000)
      return h.engine.status("s1")?.cancelledByUser
    }
    expect(await escAfter(true)).toBe(true)
    // Negative control: with no word from the user it is our abort's report.
    expect(await escAfter(false)).toBe(false)
  })

  test("negative control: one interruption for one abort, reported late, is ours: the continue follows", async () => {
    const h = makeHarness(ABORT_FIRST)
    await untilAbort(h)
    await h.advance(2600)
    h.emit({ type: "interrupted" })
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })
})

describe("an ESC judged only when our hanging abort times out", () => {
  const afterLateVerdict = async (toolStarts: boolean) => {
    const h = await untilHangingAbort()
    h.emit({ type: "interrupted" }) // the user's ESC while our abort hangs: undecided
    await h.advance(3000)
    if (toolStarts) h.emit({ type: "toolStart", callID: "late", tool: "bash" }) // a run after the ESC
    await h.advance(SEND_TIMEOUT, 1000)
    expect(h.port.logged(/that was the user/)).toBe(true)
    h.emit(...userTurn)
    await h.advance(BUDGET + 2000, 1000)
    return h.port.actions
  }

  test("a tool started after the ESC is still running when the verdict comes: it is not aborted", async () => {
    expect(await afterLateVerdict(true)).toEqual(["abort"])
  })

  test("negative control: with no tool running, the user's next turn is recovered as usual", async () => {
    expect(await afterLateVerdict(false)).toEqual(["abort", "abort"])
  })
})

describe("no second abort before the first is reported", () => {
  test("an accepted abort the host has not reported holds the next stall until the run moves on", async () => {
    const h = makeHarness(ABORT_FIRST)
    h.port.sendBehaviour = "reject"
    await untilAbort(h)
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000, 1000)
    expect(h.port.actions).toEqual(["abort", "send"])
    h.emit({ type: "activity" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.port.logged(/held: our abort is not reported by the host yet/)).toBe(true)
    h.emit({ type: "modelOutput" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["abort", "send", "abort"])
  })

  test("a report the host lost does not hold the session for good: past two stall budgets the ladder acts again", async () => {
    const h = makeHarness(ABORT_FIRST)
    await untilAbort(h)
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000, 1000)
    expect(h.port.actions).toEqual(["abort", "send"])
    // The host took the continue (already busy for us) and hangs again, never reporting the abort.
    h.emit({ type: "busy" }, { type: "activity" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["abort", "send"])
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions.slice(0, 3)).toEqual(["abort", "send", "abort"])
  })

  test("negative control: once the host reported the abort, the next stall may abort again", async () => {
    const h = makeHarness(ABORT_FIRST)
    h.port.sendBehaviour = "reject"
    await untilAbort(h)
    h.emit({ type: "interrupted" })
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000, 1000)
    h.emit({ type: "activity" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["abort", "send", "abort"])
  })

  test("an abort that timed out may still be carried out: no second abort until the run moves on", async () => {
    const h = await untilHangingAbort()
    await h.advance(SEND_TIMEOUT + 1000, 1000)
    h.emit({ type: "activity" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.port.logged(/held: our abort is not reported by the host yet/)).toBe(true)
  })

  test("negative control: an abort the host refused will never land: the next stall aborts again", async () => {
    const h = makeHarness(ABORT_FIRST)
    h.port.abortBehaviour = "reject"
    await untilAbort(h)
    h.emit({ type: "activity" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["abort", "abort"])
  })
})
