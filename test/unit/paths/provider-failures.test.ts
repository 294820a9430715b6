/** Provider failures through the whole engine, on the simulated clock. */
import { describe, expect, test } from "bun:test"
import { MIN_LATE_LANDING_HOLD_MS } from "../../../src/core/intervention.ts"
import { ECHO_GRACE_MS as FAILURE_ECHO_GRACE_MS } from "../../../src/options/constants.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { deadEndpoint, makeHarness, streamFailure, userTurn } from "../../support/harness.ts"

const streamError = { type: "error", name: "UnknownError", message: "Streaming response failed: connection reset" } as const
const rateLimit = { type: "error", name: "APIError", message: "Rate limit exceeded", status: 429 } as const
const overflow = { type: "error", name: "APIError", message: "prompt is too long: context length exceeded", status: 400 } as const

describe("streaming failure", () => {
  test("a streaming failure the host gave up on gets a recovery prompt once idle", async () => {
    const h = makeHarness()
    h.emit(...userTurn, streamError, { type: "idle" })
    await h.advance(5000, 250)
    expect(h.port.sends).toHaveLength(1)
    expect(h.port.sends[0]!.text).toContain("auto-resume")
    expect(h.port.logged(/streaming failure .*recovery armed/)).toBe(true)
  })

  test("a streaming failure while the run is still busy waits for its idle (the chain starts from the session's busy state)", async () => {
    const h = makeHarness({ chunkTimeoutMs: 600_000 })
    h.emit(...userTurn, streamError)
    await h.advance(30_000, 1000)
    expect(h.port.sends).toHaveLength(0)
    h.emit({ type: "idle" })
    await h.advance(500, 100)
    expect(h.port.sends).toHaveLength(1)
  })

  test("negative control: a non-transient error (400) is not retried", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "error", name: "APIError", message: "Bad request: invalid schema", status: 400 }, { type: "idle" })
    await h.advance(60_000, 1000)
    expect(h.port.sends).toHaveLength(0)
  })

  test("a prompt that restarts the session ends the chain; one that does not is retried, then abort + resume", async () => {
    const ok = makeHarness()
    ok.emit(...userTurn, streamError, { type: "idle" })
    await ok.advance(3000, 250)
    ok.emit({ type: "busy" }, { type: "modelOutput" }, { type: "idle" })
    await ok.advance(60_000, 1000)
    expect(ok.port.sends).toHaveLength(1)

    const dead = makeHarness()
    dead.emit(...userTurn, streamError, { type: "idle" })
    await dead.advance(120_000, 250)
    // Three prompts (streamingFailureMaxPrompts), then abort + resume, then it gives up: nothing more, ever.
    expect(dead.port.actions).toEqual(["send", "send", "send", "abort", "send"])
    expect(dead.port.logged(/gave up/)).toBe(true)
  })

  /** A streaming failure, then idle; prompt calls answer per `behaviour`. Short stall budget: the late-landing hold is at its minute. */
  const failedWithPrompts = (behaviour: "hang" | "reject") => {
    const h = makeHarness({ sendTimeoutMs: 1000, chunkTimeoutMs: 10_000, gracePeriodMs: 0 })
    h.port.sendBehaviour = behaviour
    h.emit(...userTurn, streamError, { type: "idle" })
    return h
  }

  test("a recovery prompt whose call timed out may still land: the next one waits until it no longer could (K18)", async () => {
    const h = failedWithPrompts("hang")
    await h.advance(5000, 250)
    expect(h.port.sends).toHaveLength(1)
    // The prompt goes out after the 1 s backoff and times out 1 s later; the hold runs from
    // there: a minute, as the stall budget is short.
    await h.advance(MIN_LATE_LANDING_HOLD_MS - 4000, 1000)
    expect(h.port.sends).toHaveLength(1)
    // Bounded: past the hold the call is presumed lost and the chain goes on.
    await h.advance(15_000, 1000)
    expect(h.port.sends).toHaveLength(2)
  })

  test("negative control: a recovery prompt the host refused will never land: the next one comes at the usual time", async () => {
    const h = failedWithPrompts("reject")
    await h.advance(15_000, 250)
    expect(h.port.sends).toHaveLength(2)
  })

  test("an idle that comes while the session is paused is not lost: the chain acts once it is resumed", async () => {
    const h = makeHarness({ chunkTimeoutMs: 600_000 })
    h.emit(...userTurn, streamError) // while busy: armed, waiting for the idle
    h.pauses.pause("s1")
    h.emit({ type: "idle" })
    await h.advance(30_000, 1000)
    expect(h.port.sends).toHaveLength(0)
    h.pauses.resume("s1")
    await h.advance(30_000, 1000)
    expect(h.port.sends.length).toBeGreaterThan(0)
  })

  test("an idle that comes while a prompt of ours is on its way is not lost: the chain acts once it could have shown", async () => {
    const h = makeHarness({ chunkTimeoutMs: 1000, gracePeriodMs: 0 })
    h.emit(...userTurn)
    await h.advance(3000, 250) // the stall's continue: accepted, never shown (this port shows nothing)
    expect(h.port.sends).toHaveLength(1)
    h.emit(streamError, { type: "idle" }) // within the echo grace of that continue
    await h.advance(30_000, 1000)
    expect(h.port.sends.length).toBeGreaterThan(1)
    expect(h.port.logged(/streaming failure .*recovery prompt/)).toBe(true)
  })

  test("a recovery prompt waits behind another path's prompt whose call timed out, until it could no longer land", async () => {
    const sendsAfter = async (behaviour: "hang" | "reject") => {
      const h = makeHarness({ chunkTimeoutMs: 1000, gracePeriodMs: 0, sendTimeoutMs: 1000 })
      h.port.sendBehaviour = behaviour
      h.emit(...userTurn)
      await h.advance(4000, 250) // the stall's continue went out and timed out (or was refused)
      expect(h.port.sends).toHaveLength(1)
      h.emit(streamError, { type: "idle" })
      await h.advance(30_000, 1000)
      return h.port.sends.length
    }
    expect(await sendsAfter("hang")).toBe(1)
    // Negative control: a refused continue will never land; the chain's prompt follows soon.
    expect(await sendsAfter("reject")).toBeGreaterThan(1)
  })

  test("a chain that gave up is lifted by model output: the next failure is recovered again", async () => {
    const afterGiveUp = async (between: Parameters<ReturnType<typeof makeHarness>["emit"]>[0]) => {
      const h = makeHarness()
      h.emit(...userTurn, streamError, { type: "idle" })
      await h.advance(120_000, 250)
      expect(h.port.logged(/gave up/)).toBe(true)
      const before = h.port.sends.length
      h.emit({ type: "busy" }, between, streamError, { type: "idle" })
      await h.advance(10_000, 250)
      return h.port.sends.length - before
    }
    expect(await afterGiveUp({ type: "modelOutput" })).toBe(1)
    // Negative control: the same run with mere liveness and no output stays given up.
    expect(await afterGiveUp({ type: "activity" })).toBe(0)
  })

  /**
   * A host that records each recovery prompt at once, answers the call `acceptMs` later and
   * shows the prompt in the session (our own user message) `echoMs` after recording it, or
   * never; with `revive` the sighting comes with the run it starts (busy), as in OpenCode.
   * Returns when each call was made.
   */
  const promptTimes = async (host: { acceptMs?: number; echoMs?: number | "never"; revive?: boolean }) => {
    const { acceptMs = 0, echoMs = 0, revive = false } = host
    const h = makeHarness()
    const send = h.port.send.bind(h.port)
    h.port.send = (request) => {
      void send(request)
      if (echoMs !== "never") {
        h.time.schedule(echoMs, () => h.emit({ type: "userMessage", genuine: false }, ...(revive ? [{ type: "busy" as const }] : [])))
      }
      return new Promise<void>((resolve) => h.time.schedule(acceptMs, resolve))
    }
    h.emit(...userTurn, streamError, { type: "idle" })
    await h.advance(30_000, 100)
    return h.port.calls.map((c) => c.at)
  }
  const gap = async (host: Parameters<typeof promptTimes>[0]) => {
    const at = await promptTimes(host)
    expect(at.length).toBeGreaterThanOrEqual(2)
    return at[1]! - at[0]!
  }

  test("a recovery prompt the host is slow to accept: the next one waits the full watchdog after it was taken", async () => {
    // Watchdog streamingFailureWatchdogMs (3 s), then the second backoff (2 s): counted from the
    // moment the host took prompt 1, not from the decision to send it.
    expect(await gap({ acceptMs: 2_900 })).toBe(2_900 + 3_000 + 2_000)
    // Control: a prompt taken at once keeps the timing it always had.
    expect(await gap({ acceptMs: 0 })).toBe(3_000 + 2_000)
  })

  test("a recovery prompt the host shows late gets no second prompt behind it (K16)", async () => {
    // Shown (and run) 5.5 s after it was taken: past the watchdog and the backoff, which
    // would have sent prompt 2 at 5 s; within the grace, so the chain waits for it.
    expect(await promptTimes({ echoMs: 5_500, revive: true })).toHaveLength(1)
  })

  test("a recovery prompt shown late that starts nothing: the watchdog counts from the sighting", async () => {
    expect(await gap({ echoMs: 5_500 })).toBe(5_500 + 3_000 + 2_000)
  })

  test("negative control: shown at once and nothing runs, the next prompt comes at the usual time", async () => {
    expect(await gap({ echoMs: 0 })).toBe(3_000 + 2_000)
  })

  test("negative control: a host that never shows the prompt gets the next one after the grace", async () => {
    expect(await gap({ echoMs: "never" })).toBe(3_000 + FAILURE_ECHO_GRACE_MS + 2_000)
  })

  /**
   * A dead session driven to abort + resume (streamingFailureMaxPrompts 1). This host answers the abort
   * `abortMs` after it was made and the continue that follows `acceptMs` after; with `echo` it
   * shows that continue in the session at once, with `revive` it also starts a run (busy).
   * Returns the harness, when the abort was made and when the give-up line was written.
   */
  const abortResume = async (host: { abortMs?: number; acceptMs?: number; echo?: boolean; revive?: boolean }) => {
    const { abortMs = 0, acceptMs = 0, echo = false, revive = false } = host
    const h = makeHarness({ streamingFailureMaxPrompts: 1 })
    const answer = (ms: number) => new Promise<void>((resolve) => h.time.schedule(ms, resolve))
    const abort = h.port.abort.bind(h.port)
    h.port.abort = (sessionID) => {
      void abort(sessionID)
      return answer(abortMs)
    }
    const send = h.port.send.bind(h.port)
    h.port.send = (request) => {
      void send(request)
      if (h.port.aborts === 0) {
        h.emit({ type: "userMessage", genuine: false }) // recovery prompt 1: shown at once, revives nothing
        return answer(0)
      }
      // A revived run is one the model speaks in (a busy alone is not: see "dead endpoint" below).
      if (echo || revive) h.emit({ type: "userMessage", genuine: false }, ...(revive ? [{ type: "busy" as const }, { type: "modelOutput" as const }] : []))
      return answer(acceptMs)
    }
    const gaveUp: number[] = []
    const log = h.port.log.bind(h.port)
    h.port.log = (level, message) => {
      if (/streaming-failure recovery gave up/.test(message)) gaveUp.push(h.time.now())
      log(level, message)
    }
    h.emit(...userTurn, streamError, { type: "idle" })
    await h.advance(60_000, 100)
    const abortAt = h.port.calls.find((c) => c.kind === "abort")?.at
    expect(abortAt).toBeDefined()
    // The continue after the abort: an abort answered "at once" is answered on the harness's next
    // clock step (the look before the abort moves the call off the timer's own turn), so the
    // pause is timed from there, not from the call.
    const continueAt = h.port.calls.filter((c) => c.kind === "send").at(-1)?.at ?? Number.NaN
    return { h, abortAt: abortAt!, continueAt, gaveUp }
  }

  test("abort + resume whose continue the host is slow to accept: no give-up before the watchdog after it settled", async () => {
    // Continue out ABORT_CONTINUE_DELAY_MS after the abort, taken 20 s later, shown at once;
    // the verdict is the watchdog (3 s) after that, not 3 s after the pause.
    const { h, abortAt, continueAt, gaveUp } = await abortResume({ acceptMs: 20_000, echo: true })
    expect(h.port.actions).toEqual(["send", "abort", "send"])
    expect(continueAt - abortAt).toBeGreaterThanOrEqual(ABORT_CONTINUE_DELAY_MS)
    expect(gaveUp).toEqual([continueAt + 20_000 + 3_000])
  })

  test("abort + resume whose abort the host is slow to answer: the give-up waits for the continue too", async () => {
    const { abortAt, gaveUp } = await abortResume({ abortMs: 20_000, echo: true })
    expect(gaveUp).toEqual([abortAt + 20_000 + ABORT_CONTINUE_DELAY_MS + 3_000])
  })

  test("a continue that revives the session after a slow abort: the revived run's next failure is recovered again", async () => {
    // Timed from the decision, the chain gave up while the abort was still out, and a chain
    // that gave up ignores failures: the new run's failure would get nothing.
    const { h, gaveUp } = await abortResume({ abortMs: 20_000, revive: true })
    expect(h.port.actions).toEqual(["send", "abort", "send"])
    h.emit(streamError, { type: "idle" })
    await h.advance(5_000, 100)
    expect(h.port.actions).toEqual(["send", "abort", "send", "send"])
    expect(gaveUp).toEqual([])
  })

  test("negative control: the revived run ends without a failure: nothing more is sent", async () => {
    const { h, gaveUp } = await abortResume({ abortMs: 20_000, revive: true })
    h.emit({ type: "modelOutput" }, { type: "idle" })
    await h.advance(60_000, 100)
    expect(h.port.actions).toEqual(["send", "abort", "send"])
    expect(gaveUp).toEqual([])
  })

  test("negative control: abort + resume answered at once on a session that stays dead gives up at the usual time", async () => {
    const shown = await abortResume({ echo: true })
    expect(shown.gaveUp).toEqual([shown.continueAt + 3_000])
    // Never shown: the echo grace on top, as for a recovery prompt.
    const unseen = await abortResume({})
    expect(unseen.gaveUp).toEqual([unseen.continueAt + 3_000 + FAILURE_ECHO_GRACE_MS])
  })

  test("ESC during the chain stops it", async () => {
    const h = makeHarness()
    h.emit(...userTurn, streamError, { type: "interrupted" }, { type: "idle" })
    await h.advance(60_000, 1000)
    expect(h.port.calls).toHaveLength(0)
  })
})

describe("a dead endpoint: every recovery fails about a second after it is sent, with no model output", () => {
  /** The quoted labels of each prompt the host took: "recovery k/n", "Attempt k/n", "continue #k". */
  const labels = (text: string) => [/recovery \d\/\d/.exec(text)?.[0] ?? "-", /Attempt \d+\/\d+/.exec(text)?.[0], /continue #\d+/.exec(text)?.[0]].join(" ")
  const start = async (opts: Parameters<typeof deadEndpoint>[1] = {}) => {
    const h = makeHarness()
    const host = deadEndpoint(h, opts)
    h.emit(...userTurn, streamFailure, { type: "idle" })
    await h.advance(600_000, 250)
    return { h, ...host }
  }

  test("one incident: recovery 1/3, 2/3, abort + resume 3/3, then the failure loop gives up; nothing refused, nothing more", async () => {
    const { h, taken, refused } = await start()
    expect(h.port.actions).toEqual(["send", "send", "abort", "send"])
    expect(taken.map((t) => labels(t.text))).toEqual([
      "recovery 1/3 Attempt 1/3 continue #1",
      "recovery 2/3 Attempt 2/3 continue #2",
      "recovery 3/3 Attempt 3/3 continue #3",
    ])
    expect(taken[2]!.text).toContain("earlier recovery prompts did not restart the turn")
    expect(refused).toEqual([])
    expect(h.port.logs.filter((l) => /gave up/.test(l.message)).map((l) => l.message)).toEqual([
      "session s1: streaming-failure recovery gave up: failure loop: 3 recoveries in a row brought no model output (APIError)",
    ])
    expect(h.port.logged(/same incident/)).toBe(true)
    expect(h.engine.status("s1")?.lifetimeContinues).toBe(3)
  })

  test("each prompt waits until the send spacing allows it (the failure comes 1 s after the previous prompt)", async () => {
    const { taken, refused } = await start()
    // Due at 1 s (the failure) + 2 s (backoff) after prompt 1, prompt 2 waits for the 5 s spacing instead of being refused.
    expect(taken[1]!.at - taken[0]!.at).toBe(5000)
    expect(refused).toEqual([])
    // Negative control: a failure that comes after the spacing is over is answered at its backoff, not held to the spacing.
    const late = await start({ failAfterMs: 8000 })
    expect(late.taken[1]!.at - late.taken[0]!.at).toBe(8000 + 2000)
  })

  test("negative control: the model speaks in each revived run before it fails: every failure is a new incident at recovery 1/3", async () => {
    const { h, taken } = await start({ speaks: true, spacingMs: 0 })
    expect(taken.length).toBeGreaterThanOrEqual(3)
    expect(new Set(taken.map((t) => /recovery \d\/\d/.exec(t.text)?.[0]))).toEqual(new Set(["recovery 1/3"]))
    expect(h.port.aborts).toBe(0)
    expect(h.port.logged(/same incident|failure loop/)).toBe(false)
  })
})

describe("a recovery prompt that never reached the session does not count against lifetimeMaxContinues", () => {
  /** The first recovery prompt's host call goes as `first`; later ones succeed. */
  const firstCall = async (first: "reject" | "hang") => {
    const h = makeHarness({ sendTimeoutMs: 1000, chunkTimeoutMs: 10_000, gracePeriodMs: 0, debug: true })
    h.port.sendBehaviour = first
    const send = h.port.send.bind(h.port)
    h.port.send = (request) => {
      const out = send(request)
      h.port.sendBehaviour = "ok"
      return out
    }
    h.emit(...userTurn, streamFailure, { type: "idle" })
    await h.advance(120_000, 500)
    return h
  }

  test("a refused prompt gives its continue back: the next one is still continue #1", async () => {
    const h = await firstCall("reject")
    expect(h.port.sends.length).toBeGreaterThanOrEqual(2)
    expect(h.port.sends[1]!.text).toContain("continue #1 since")
    expect(h.port.logged(/failure recovery not sent \(failed\); not counted/)).toBe(true)
  })

  test("negative control: a prompt whose call timed out may still land and keeps its count: the next one is continue #2", async () => {
    const h = await firstCall("hang")
    expect(h.port.sends.length).toBeGreaterThanOrEqual(2)
    expect(h.port.sends[1]!.text).toContain("continue #2 since")
    expect(h.port.logged(/not counted/)).toBe(false)
  })
})

describe("rate limits", () => {
  test("a 429 the host gave up on waits the first cooldown, then one continue that spends no budget", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [60_000, 120_000] })
    h.emit(...userTurn, rateLimit, { type: "idle" })
    await h.advance(59_000, 1000)
    expect(h.port.sends).toHaveLength(0)
    await h.advance(2000, 250)
    expect(h.port.sends).toHaveLength(1)
    expect(h.engine.status("s1")?.lifetimeContinues).toBe(0)
  })

  test("a pause ends a running wait: resumed later, the session gets no continue from it", async () => {
    const afterPause = async (pause: boolean) => {
      const h = makeHarness({ rateLimitCooldownsMs: [20_000] })
      h.emit(...userTurn, rateLimit, { type: "idle" })
      await h.advance(5000, 1000)
      if (pause) h.pauses.pause("s1")
      await h.advance(10_000, 1000)
      h.pauses.resume("s1")
      await h.advance(60_000, 1000)
      return { sends: h.port.sends.length, wait: h.engine.status("s1")?.rateLimitWait }
    }
    expect(await afterPause(true)).toEqual({ sends: 0, wait: undefined })
    // Negative control: no pause, the wait runs out and its one continue goes.
    expect((await afterPause(false)).sends).toBe(1)
  })

  test("a rung's continue that times out may still be carried out: it is not sent again", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [60_000] })
    h.port.sendBehaviour = "hang"
    h.emit(...userTurn, rateLimit, { type: "idle" })
    await h.advance(61_000, 1000)
    expect(h.port.sends).toHaveLength(1)
    await h.advance(2 * 60_000, 1000) // well past sendTimeoutMs (30 s)
    expect(h.port.sends).toHaveLength(1)
  })

  test("negative control: a rung's continue the host refused is tried again shortly", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [60_000] })
    h.port.sendBehaviour = "reject"
    h.emit(...userTurn, rateLimit, { type: "idle" })
    await h.advance(61_000, 1000)
    expect(h.port.sends).toHaveLength(1)
    await h.advance(2 * 60_000, 1000)
    expect(h.port.sends.length).toBeGreaterThan(1)
  })

  test("while the gate is closed, no other path may continue (a stall is held)", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [10 * 60_000] })
    h.emit(...userTurn, rateLimit, { type: "busy" })
    await h.advance(5 * 60_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/held: rate limited until/)).toBe(true)
  })

  test("past the ladder the session stays silent until the user writes", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [1000] })
    h.emit(...userTurn, rateLimit, { type: "idle" })
    await h.advance(2000, 250)
    expect(h.port.sends).toHaveLength(1)
    h.emit({ type: "busy" }, rateLimit, { type: "idle" })
    await h.advance(10 * 60_000, 5000)
    expect(h.port.sends).toHaveLength(1)
    expect(h.port.logged(/past the cooldown ladder/)).toBe(true)
  })

  test("a provider's Retry-After longer than the rung is honoured", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [1000] })
    h.emit(...userTurn, { ...rateLimit, retryAfterMs: 30_000 }, { type: "idle" })
    await h.advance(29_000, 1000)
    expect(h.port.sends).toHaveLength(0)
    await h.advance(2000, 250)
    expect(h.port.sends).toHaveLength(1)
  })

  test("ESC during the wait: nothing at the end of the cooldown", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [5000] })
    h.emit(...userTurn, rateLimit, { type: "idle" })
    await h.advance(1000)
    h.emit({ type: "interrupted" })
    await h.advance(60_000, 1000)
    expect(h.port.calls).toHaveLength(0)
  })

  test("a paused session never arms the ladder", async () => {
    const h = makeHarness({ rateLimitCooldownsMs: [5000] })
    h.pauses.pause("s1")
    h.emit(...userTurn, rateLimit, { type: "idle" })
    h.pauses.resume("s1")
    await h.advance(60_000, 1000)
    expect(h.port.calls).toHaveLength(0)
  })
})

/**
 * What this module holds when the user stops the session (a rate-limit wait, an armed chain,
 * their timer) must not outlive the stop: not while the session stands down, and not past
 * the user's next message, which starts every ladder from its first step.
 */
describe("a user stop (ESC), then the user writes", () => {
  const esc = { type: "interrupted", byUser: true } as const
  /** The user's new message; its run is reported later (no output, then whatever the test says). */
  const write = { type: "userMessage", genuine: true } as const
  const stopThenWrite = async (trigger: typeof rateLimit | typeof streamError, opts: { esc: boolean; write: boolean; stopAtMs?: number }) => {
    const h = makeHarness({ rateLimitCooldownsMs: [60_000, 120_000] })
    h.emit(...userTurn, trigger, { type: "idle" })
    await h.advance(opts.stopAtMs ?? 500, 100)
    if (opts.esc) h.emit(esc)
    await h.advance(1_000, 100)
    if (opts.write) h.emit(write)
    return h
  }
  const pastTheWait = (h: ReturnType<typeof makeHarness>) => h.advance(2 * 60_000, 1_000)
  const hits = (h: ReturnType<typeof makeHarness>) =>
    h.port.logs.flatMap((l) => (/rate limited \(/.test(l.message) ? [/hit (\d+)/.exec(l.message)?.[1]] : []))

  test("a rate-limit wait: nothing at its end; the user's run hitting the limit again starts from the first rung", async () => {
    const h = await stopThenWrite(rateLimit, { esc: true, write: true })
    await pastTheWait(h) // past the old wait's end
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/rate-limit wait over/)).toBe(false)
    h.emit({ type: "busy" }, rateLimit, { type: "idle" })
    await h.advance(59_000, 1_000)
    expect(h.port.calls).toHaveLength(0)
    await h.advance(2_000, 100)
    expect(hits(h)).toEqual(["1", "1"])
    expect(h.port.sends).toHaveLength(1) // the new wait's one continue, 60 s (rung 1) after the hit
  })

  test.each([
    ["armed (in its backoff)", 500, 0],
    ["waiting on recovery prompt 1", 1_500, 1],
  ])("a failure chain %s: nothing more for the old failure; the user's run failing starts a fresh chain", async (_, stopAtMs, before) => {
    const h = await stopThenWrite(streamError, { esc: true, write: true, stopAtMs })
    await h.advance(60_000, 1_000)
    expect(h.port.calls).toHaveLength(before)
    h.emit({ type: "busy" }, streamError, { type: "idle" })
    await h.advance(1_500, 100)
    expect(h.port.sends).toHaveLength(before + 1)
    expect(h.port.logs.filter((l) => /recovery prompt 1\/3/.test(l.message))).toHaveLength(before + 1)
  })

  test("stopped and never written to again: nothing, ever", async () => {
    for (const trigger of [rateLimit, streamError]) {
      const h = await stopThenWrite(trigger, { esc: true, write: false })
      await h.advance(10 * 60_000, 1_000)
      expect(h.port.calls).toHaveLength(0)
      expect(h.port.logged(/rate-limit wait over|recovery prompt|gave up/)).toBe(false)
    }
  })

  test("negative control: without the stop and the user's turn, the wait and the chain do act", async () => {
    const waited = await stopThenWrite(rateLimit, { esc: false, write: false })
    await pastTheWait(waited)
    expect(waited.port.sends).toHaveLength(1)
    expect(waited.port.logged(/rate-limit wait over/)).toBe(true)
    const chained = await stopThenWrite(streamError, { esc: false, write: false })
    await pastTheWait(chained)
    expect(chained.port.sends.length).toBeGreaterThan(0)
  })
})

describe("context overflow", () => {
  test("locks every continue until a genuine user turn", async () => {
    const h = makeHarness()
    h.emit(...userTurn, overflow, { type: "busy" })
    await h.advance(10 * 60_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/context window is full/)).toBe(true)
    h.emit(...userTurn)
    await h.advance(190_000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })
})
