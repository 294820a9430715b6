/**
 * The two cures for a hung stream on a real `opencode serve` 1.18.33, with the plugin loaded
 * from this checkout and the scripted fake provider on 127.0.0.1:
 *
 *  - a plain hang (no bytes at all): the plugin handed OpenCode's provider `chunkTimeout` its
 *    stall budget at start-up, so OpenCode cuts the request itself and asks again inside the
 *    same turn. The turn completes and the plugin sends nothing;
 *  - a hang kept warm by SSE keep-alive comments, which reset OpenCode's `chunkTimeout` while
 *    no event reaches the session: the plugin finds the stall, OpenCode still lists the run as
 *    live, so the plugin aborts it and sends exactly one continue (attempt 1), and the session
 *    finishes.
 *
 * Negative control, on a second server: the user's config sets `chunkTimeout` itself. The
 * plugin keeps it (and says so), OpenCode does not retry within the budget, and the same plain
 * hang is the plugin's to recover: abort, then one continue.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { hangAfter, hangWarm, startFakeProvider, text, type FakeProvider, type RecordedRequest } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { PLUGIN_URL, SHORT_BUDGETS, autoResumeLog, eventually, lastAssistantText, pluginMessages, pluginPromptRequests, warmUp } from "./support.ts"

/** OpenCode's chunkTimeout becomes 3 s; the plugin acts after 3 s + 2 s of silence. */
const OPTIONS = { ...SHORT_BUDGETS, chunkTimeoutMs: 3000, gracePeriodMs: 2000 }
const BUDGET_MS = OPTIONS.chunkTimeoutMs + OPTIONS.gracePeriodMs

let provider: FakeProvider
let plain: OpencodeHost
let userSet: OpencodeHost | undefined

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  // No chunkTimeout or headerTimeout in the user's config: the plugin decides both.
  plain = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, OPTIONS]], logLevel: "DEBUG", chunkTimeoutMs: null, headerTimeoutMs: null })
  await warmUp(plain, provider)
}, 90_000)

function retryStatuses(host: OpencodeHost, sessionID: string): number {
  return host.events.all().filter((e) => e?.type === "session.status" && e.properties?.sessionID === sessionID && e.properties?.status?.type === "retry").length
}

function sessionRequests(since: number): RecordedRequest[] {
  return provider.requests.slice(since)
}

/** How long after the hung stream's last byte the plugin's continue reached the provider, as a ratio of the budget (printed, not asserted). */
function printRecovery(label: string, hung: RecordedRequest | undefined, since: number): void {
  const cont = pluginPromptRequests(provider, since)[0]
  if (!hung?.lastByteAt || !cont) return
  const ms = cont.at - hung.lastByteAt
  console.log(`[stall-live e2e] ${label}: last byte -> continue ${ms} ms = ${(ms / BUDGET_MS).toFixed(2)} x (chunkTimeoutMs + gracePeriodMs)`)
}

describe("a hung stream on opencode serve 1.18.33, plugin-set provider timeouts", () => {
  test("start-up: the plugin hands the fake provider its budget as chunkTimeout and headerTimeout", () => {
    const line = autoResumeLog(plain).filter((l) => /^info provider timeouts set to chunkTimeoutMs .*: fake chunkTimeout\+headerTimeout=3000ms$/.test(l))
    expect(line.length).toBeGreaterThanOrEqual(1)
  })

  test(
    "a hang without keep-alives is retried by OpenCode itself inside the same turn; the plugin sends nothing",
    async () => {
      const sessionID = await createSession(plain)
      const since = provider.requests.length
      provider.enqueue(hangAfter("Let me look into"))
      provider.setFallback(text("Retried by the host: the answer is 42."))
      await promptAsync(plain, sessionID, "what is the answer?")

      const done = await eventually(async () => (await lastAssistantText(plain, sessionID)).includes("Retried by the host"), 30_000, 250)
      expect(done).toBe(true)
      await waitForIdle(plain, sessionID, 15_000, 0)
      // OpenCode's own retry: a retry status, and a second request carrying the user's own turn.
      expect(retryStatuses(plain, sessionID)).toBeGreaterThanOrEqual(1)
      const requests = sessionRequests(since)
      expect(requests.length).toBe(2)
      expect(requests[0]!.outcome).toBe("clientAborted")
      expect(requests[1]!.lastUserText).toContain("what is the answer?")
      // Nothing from the plugin: no message, no prompt, not even a stall.
      expect(pluginPromptRequests(provider, since)).toHaveLength(0)
      expect(await pluginMessages(plain, sessionID)).toHaveLength(0)
      expect(autoResumeLog(plain).some((l) => l.includes(sessionID) && /stall detected|aborted the run/.test(l))).toBe(false)
    },
    60_000,
  )

  test(
    "a hang kept warm by keep-alive comments: OpenCode never retries, the plugin aborts the live run and sends ONE continue (attempt 1/3)",
    async () => {
      const sessionID = await createSession(plain)
      const since = provider.requests.length
      provider.enqueue(hangWarm("Let me look into", 500))
      provider.setFallback(text("Recovered after the abort: the answer is 42."))
      await promptAsync(plain, sessionID, "what is the answer, again?")

      const done = await eventually(async () => (await lastAssistantText(plain, sessionID)).includes("Recovered after the abort"), 40_000, 250)
      expect(done).toBe(true)
      await waitForIdle(plain, sessionID, 15_000, 0)
      const hung = sessionRequests(since)[0]
      // The keep-alives went on past OpenCode's 3 s chunkTimeout, and it never cut the request.
      expect(hung?.lastKeepAliveAt! - hung?.lastByteAt!).toBeGreaterThan(OPTIONS.chunkTimeoutMs)
      expect(retryStatuses(plain, sessionID)).toBe(0)
      const log = autoResumeLog(plain).filter((l) => l.includes(sessionID))
      expect(log.some((l) => /stall recovery: abort first, then continue; the host still runs it/.test(l))).toBe(true)
      expect(log.some((l) => /aborted the run \(send continue\)/.test(l))).toBe(true)
      // Exactly one plugin message in the session, quoting the first attempt.
      const mine = await pluginMessages(plain, sessionID)
      expect(mine).toHaveLength(1)
      const said = mine[0]!.parts.map((p: any) => p.text ?? "").join("")
      expect(said).toContain("Attempt 1/3")
      expect(pluginPromptRequests(provider, since)).toHaveLength(1)
      printRecovery("keep-alive-warm hang", hung, since)
    },
    60_000,
  )
})

describe("negative control: the user's config sets chunkTimeout itself", () => {
  beforeAll(async () => {
    // chunkTimeout as the user wrote it (10 min); headerTimeout left to the plugin.
    userSet = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, OPTIONS]], logLevel: "DEBUG", chunkTimeoutMs: 600_000, headerTimeoutMs: null })
    await warmUp(userSet, provider)
  }, 90_000)

  afterAll(async () => {
    await userSet?.stop()
  })

  test("the plugin keeps it and says so; only headerTimeout is shortened", () => {
    const log = autoResumeLog(userSet!)
    expect(log.some((l) => /^info provider timeouts set to chunkTimeoutMs .*: fake headerTimeout=3000ms; kept as configured: fake chunkTimeout$/.test(l))).toBe(true)
  })

  test(
    "the same plain hang is not retried by OpenCode within the budget: the plugin aborts, then sends one continue",
    async () => {
      const host = userSet!
      const sessionID = await createSession(host)
      const since = provider.requests.length
      provider.enqueue(hangAfter("Let me look into"))
      provider.setFallback(text("Recovered by the plugin: the answer is 42."))
      await promptAsync(host, sessionID, "what is the answer, once more?")

      const done = await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered by the plugin"), 40_000, 250)
      if (!done) console.log(autoResumeLog(host).filter((l) => l.includes(sessionID)).join("\n"), JSON.stringify(sessionRequests(since).map((r) => [r.outcome, r.lastUserText.slice(0, 80)])))
      expect(done).toBe(true)
      await waitForIdle(host, sessionID, 15_000, 0)
      expect(retryStatuses(host, sessionID)).toBe(0)
      const log = autoResumeLog(host).filter((l) => l.includes(sessionID))
      expect(log.some((l) => /stall recovery: abort first, then continue; the host still runs it/.test(l))).toBe(true)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      printRecovery("plain hang, user-set chunkTimeout", sessionRequests(since)[0], since)
    },
    60_000,
  )
})
