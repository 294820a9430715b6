/**
 * 2.x errors through the adapter: `{ type, message, status? }` on session.step.failed and
 * session.execution.failed, classified as on 1.x (streaming failure, rate limit), with a
 * content filter never retried and `aborted` read as an interruption.
 */
import { describe, expect, test } from "bun:test"
import { makeV2, SID, sends } from "./harness.ts"

/** A run that wrote a little and then failed with `error`; then `ms` of silence. */
async function failedRun(error: { type: string; message: string; status?: number }, ms: number, options?: Record<string, unknown>) {
  const r = makeV2(options ? { options } : {})
  r.host.userTurn(SID)
  r.host.textDelta(SID)
  r.host.failRun(SID, error)
  await r.advance(ms)
  return r
}

describe("streaming failures", () => {
  test("provider.transport is a broken stream: a recovery prompt follows within seconds", async () => {
    const r = await failedRun({ type: "provider.transport", message: "socket closed" }, 10_000)
    expect(r.logged(/streaming failure \(streaming failure \(provider\.transport\)\); recovery armed/)).toBe(true)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("negative control: a content filter is not a streaming failure; nothing is sent", async () => {
    const r = await failedRun({ type: "provider.content-filter", message: "Provider blocked the response" }, 30 * 60_000)
    expect(r.logged(/recovery armed/)).toBe(false)
    expect(sends(r.host)).toBe(0)
    r.instance.stop()
  })

  test("streamingFailureErrorNames matches the 2.x type", async () => {
    const listed = await failedRun({ type: "provider.flaky", message: "x" }, 10_000, { streamingFailureErrorNames: ["provider.flaky"] })
    expect(sends(listed.host)).toBe(1)
    listed.instance.stop()
    // Negative control: the same error without its type listed is not retried.
    const unlisted = await failedRun({ type: "provider.flaky", message: "x" }, 10_000)
    expect(sends(unlisted.host)).toBe(0)
    unlisted.instance.stop()
  })
})

describe("rate limits", () => {
  test("provider.rate-limit with status 429 waits out the first cooldown, then sends one continue", async () => {
    // A first rung shorter than the idle-session sweep (10 min); see the report on longer ones.
    const r = await failedRun({ type: "provider.rate-limit", message: "429", status: 429 }, 10_000, { rateLimitCooldownsMs: [5 * 60_000] })
    expect(r.logged(/rate limited \(HTTP 429\); hit 1/)).toBe(true)
    expect(r.logged(/hit 2/)).toBe(false)
    await r.advance(4 * 60_000, 10_000)
    expect(sends(r.host)).toBe(0)
    await r.advance(60_000, 10_000)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  // Was a bug on both hosts: an idle session with no event for IDLE_CLEANUP_MS (10 min) was
  // swept from the session table with its rate-limit wait, so the default 15-minute first rung
  // never sent its continue. The failures module now keeps a session it still waits on.
  test("a first rung longer than the idle sweep (the default 15 min) still resumes", async () => {
    const r = await failedRun({ type: "provider.rate-limit", message: "429", status: 429 }, 10_000)
    await r.advance(16 * 60_000, 10_000)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("the type alone is enough: provider.rate-limit / provider.quota without a status", async () => {
    for (const type of ["provider.rate-limit", "provider.quota"]) {
      const r = await failedRun({ type, message: "try later" }, 10_000)
      expect(r.logged(new RegExp(`rate limited \\(error type ${type.replace(".", "\\.")}\\)`))).toBe(true)
      expect(sends(r.host)).toBe(0)
      r.instance.stop()
    }
  })
})

describe("aborted", () => {
  test("a run failed as aborted is an interruption: the user's stop latches the session", async () => {
    const r = await failedRun({ type: "aborted", message: "Aborted" }, 60_000)
    expect(r.instance.engine.status(SID)?.cancelledByUser).toBe(true)
    await r.advance(30 * 60_000, 10_000)
    expect(sends(r.host)).toBe(0)
    r.instance.stop()
  })

  test("negative control: a provider failure is no stop of the user's", async () => {
    const r = await failedRun({ type: "provider.internal", message: "upstream 500", status: 500 }, 10_000)
    expect(r.instance.engine.status(SID)?.cancelledByUser).toBe(false)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })
})
