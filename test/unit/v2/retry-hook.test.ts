/**
 * The 2.x session `retry` hook through the default export: the host's own retries and the
 * cooldown ladder's wait are one wait. Figures (fake time, the host's 2 s doubling over four
 * retries, the default ladder's first rung of 15 minutes):
 *
 * - a rate limit the host retries: its retry is the wait; the plugin starts no wait of its own
 *   beside it and climbs no rung per attempt, so a burst 429 retried after 2 s is a 2 s wait;
 * - the provider's Retry-After (heard through `http.response`), when longer than the host's
 *   next delay, re-times that retry: one wait of the provider's length, and it is the resume;
 * - once the host's budget is spent the run fails and the ladder takes over from its first
 *   rung, as without the hook (as on 1.x: five requests in 30 s, then the ladder's 15 minutes
 *   and a continue at 15 min 30 s).
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

  test("a rate limit the host retries: its retry is the wait; no wait of ours beside it and no continue", async () => {
    await withRig({}, async (rig) => {
      rig.host.userTurn(SID)
      const at = Date.now()
      const done = rig.host.providerFails(SID, RATE_LIMIT, { times: 1 })
      await rig.advance(16 * MINUTE)
      const { decisions } = await done
      // The host's own proposal stands, and its retry answers.
      expect(decisions).toEqual([{ retry: true, delay: 2_000 }])
      expect(requestsAfter(rig, at)).toEqual([0, 2_000])
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

  test("Retry-After read from http.response re-times the host's retry when longer than its delay (40 min over 2 s)", async () => {
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

  test("control: a Retry-After shorter than the host's delay (1 s under 2 s) leaves the host's proposal", async () => {
    const rig = await entryRig()
    try {
      rig.host.userTurn(SID)
      void rig.host.providerFails(SID, RATE_LIMIT, { times: 1, retryAfterMs: 1_000 })
      await rig.advance(3_000)
      expect(rig.host.retryDecisions).toEqual([{ retry: true, delay: 2_000 }])
    } finally {
      await rig.close()
    }
  })

  test("a session this instance does not watch (another location's) is left to its own: the proposal stands; control: the same proposal for a watched session is shaped", async () => {
    const rig = await entryRig()
    try {
      const [hook] = rig.host.liveHooks("retry")
      const proposal = (sessionID: string) => ({ sessionID, agent: "build", model: { id: "m", providerID: "p" }, error: { type: "provider.unknown", message: "prompt is too long: 260000 tokens > 200000 maximum" }, attempt: 2, decision: { retry: true, delay: 2_000 } as Record<string, unknown> })
      const foreign = proposal("ses_elsewhere")
      await hook!.cb(foreign)
      expect(foreign.decision).toEqual({ retry: true, delay: 2_000 })
      rig.host.userTurn(SID)
      await rig.advance(100)
      const watched = proposal(SID)
      await hook!.cb(watched)
      expect(watched.decision).toEqual({ retry: false })
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

  test("once the host's budget is spent, the ladder takes over from its first rung", async () => {
    const ladder = [10_000, 20_000, 30_000]
    const rig = await entryRig({ rateLimitCooldownsMs: ladder })
    try {
      rig.host.userTurn(SID)
      const at = Date.now()
      const done = rig.host.providerFails(SID, RATE_LIMIT)
      await rig.advance(35_000)
      const { decisions } = await done
      // The host's four retries at its own delays; the hook is not called after the fourth.
      expect(decisions).toEqual([2_000, 4_000, 8_000, 16_000].map((delay) => ({ retry: true, delay })))
      expect(requestsAfter(rig, at)).toEqual([0, 2_000, 6_000, 14_000, 30_000])
      await rig.advance(20_000)
      // The run's failure is the ladder's first hit: its 10 s, then our continue.
      expect(sendsAfter(rig, at)).toEqual([40_000])
    } finally {
      await rig.close()
    }
  })
})
