/**
 * The 2.x session `retry` hook through the default export: the host's own retries and the
 * cooldown ladder's wait are one wait. Figures (fake time, the default ladder's first rung of
 * 15 minutes, the host's 2 s doubling over four retries):
 *
 * - without the hook (as on 1.x, or a 2.x build without `session.hook`): the host retries
 *   after 2, 4, 8 and 16 s (five requests against the limited endpoint in 30 s), gives up,
 *   and the ladder waits 15 minutes more: the continue goes out at 15 min 30 s;
 * - with it: the host's first retry is timed to the rung, 15 minutes after the 429; it is the
 *   resume (no continue prompt), and the endpoint sees one request in between instead of five.
 */
import { describe, expect, test } from "bun:test"
import { until } from "../../matrix/host-common.ts"
import type { FakeV2Options } from "../../support/fake-v2-host.ts"
import { entryRig, type EntryRig } from "../../support/v2-entry.ts"

const SID = "ses_retry"
const RATE_LIMIT = { type: "provider.rate-limit", message: "429 Too Many Requests", status: 429 }
const MINUTE = 60_000

/** When each provider request of the session started (each step is one), relative to `from`. */
function requestsAfter(rig: EntryRig, from: number): number[] {
  return (rig.host.history.get(SID) ?? []).filter((m) => m.type === "assistant").map((m) => (m.time as { created: number }).created - from)
}

function sendsAfter(rig: EntryRig, from: number): number[] {
  return [...rig.host.callsTo("session.prompt"), ...rig.host.callsTo("session.synthetic")].map((c) => c.at - from)
}

async function withRig(options: Record<string, unknown>, body: (rig: EntryRig) => Promise<void>, hostOptions: FakeV2Options = {}): Promise<void> {
  const rig = await entryRig(options, hostOptions)
  try {
    await body(rig)
  } finally {
    await rig.close()
  }
}

describe("the session retry hook: the host's retry and the ladder's wait are one wait", () => {
  test("registered through the default export and disposed on cleanup", async () => {
    const rig = await entryRig()
    expect(rig.host.liveHooks("retry")).toHaveLength(1)
    expect(rig.host.liveHooks("http.response")).toHaveLength(1)
    await rig.close()
    expect(rig.host.liveHooks("retry")).toHaveLength(0)
    expect(rig.host.liveHooks("http.response")).toHaveLength(0)
  })

  test("a rate limit: the host's first retry waits the ladder's rung (15 min) and is the resume; no continue is sent", async () => {
    await withRig({}, async (rig) => {
      rig.host.userTurn(SID)
      const at = Date.now()
      const done = rig.host.providerFails(SID, RATE_LIMIT, { times: 1 })
      await rig.advance(16 * MINUTE)
      const { decisions } = await done
      expect(decisions).toEqual([{ retry: true, delay: 15 * MINUTE }])
      // The first request, then the retry at the end of the rung: one wait.
      expect(requestsAfter(rig, at)).toEqual([0, 15 * MINUTE])
      expect(sendsAfter(rig, at)).toEqual([])
      expect(rig.host.isBusy(SID)).toBe(false)
    })
  })

  test("negative control (today, and a build without session.hook): the host retries four times in 30 s, then the ladder waits 15 min and sends a continue", async () => {
    await withRig({}, async (rig) => {
      rig.host.userTurn(SID)
      const at = Date.now()
      const done = rig.host.providerFails(SID, RATE_LIMIT)
      await rig.advance(17 * MINUTE)
      const { decisions } = await done
      expect(decisions).toEqual([2_000, 4_000, 8_000, 16_000].map((delay) => ({ retry: true, delay })))
      expect(requestsAfter(rig, at).slice(0, 5)).toEqual([0, 2_000, 6_000, 14_000, 30_000])
      // The second wait: the ladder's 15 minutes after the host gave up, then a continue.
      expect(sendsAfter(rig, at)).toEqual([30_000 + 15 * MINUTE])
      expect(await until(() => rig.log().some((l) => l.includes("ctx.session.hook is missing")))).toBe(true)
    }, { withoutHook: true })
  })

  test("Retry-After read from http.response wins when longer than the rung (40 min over 15)", async () => {
    const rig = await entryRig()
    try {
      rig.host.userTurn(SID)
      void rig.host.providerFails(SID, RATE_LIMIT, { times: 1, retryAfterMs: 40 * MINUTE })
      await rig.advance(2_000)
      expect(rig.host.retryDecisions).toEqual([{ retry: true, delay: 40 * MINUTE }])
    } finally {
      await rig.close()
    }
  })

  test("control: the same rate limit with a short Retry-After (1 min) keeps the rung's 15 min", async () => {
    const rig = await entryRig()
    try {
      rig.host.userTurn(SID)
      void rig.host.providerFails(SID, RATE_LIMIT, { times: 1, retryAfterMs: MINUTE })
      await rig.advance(2_000)
      expect(rig.host.retryDecisions).toEqual([{ retry: true, delay: 15 * MINUTE }])
    } finally {
      await rig.close()
    }
  })

  test("a permanent failure (a full context the host took for retryable) is not retried: the run fails at once", async () => {
    const rig = await entryRig()
    try {
      rig.host.userTurn(SID)
      const at = Date.now()
      const { decisions } = await rig.host.providerFails(SID, { type: "provider.unknown", message: "prompt is too long: 260000 tokens > 200000 maximum" })
      expect(decisions).toEqual([{ retry: false }])
      expect(requestsAfter(rig, at)).toEqual([0])
      expect(rig.host.isBusy(SID)).toBe(false)
      expect(await until(() => rig.log().some((l) => l.includes("the host's retry 2 is cancelled: message matches")))).toBe(true)
    } finally {
      await rig.close()
    }
  })

  test("control: a broken stream keeps the host's own proposal (2 s)", async () => {
    const rig = await entryRig()
    try {
      rig.host.userTurn(SID)
      const done = rig.host.providerFails(SID, { type: "provider.transport", message: "socket hang up" }, { times: 1 })
      await rig.advance(3_000)
      expect((await done).decisions).toEqual([{ retry: true, delay: 2_000 }])
    } finally {
      await rig.close()
    }
  })

  test("once the host's budget is spent, the ladder takes over from the rung the retries reached", async () => {
    const ladder = [10_000, 20_000, 30_000, 40_000, 50_000, 60_000]
    const rig = await entryRig({ rateLimitCooldownsMs: ladder })
    try {
      rig.host.userTurn(SID)
      const at = Date.now()
      const done = rig.host.providerFails(SID, RATE_LIMIT)
      await rig.advance(100_000)
      const { decisions } = await done
      // Rungs 1-4 time the host's four retries; the hook is not called after the fourth.
      expect(decisions).toEqual(ladder.slice(0, 4).map((delay) => ({ retry: true, delay })))
      expect(requestsAfter(rig, at)).toEqual([0, 10_000, 30_000, 60_000, 100_000])
      await rig.advance(60_000)
      // The run's failure is rung 5: our own wait of 50 s, then our continue.
      expect(sendsAfter(rig, at)).toEqual([150_000])
    } finally {
      await rig.close()
    }
  })
})
