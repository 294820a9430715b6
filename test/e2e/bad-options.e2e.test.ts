/**
 * (e) Options with bad values: the plugin still loads, names each bad key once, and still
 * recovers a stall with the values that were valid.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { hangAfter, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, type OpencodeHost } from "./harness/opencode-host.ts"
import { PLUGIN_URL, SHORT_BUDGETS, autoResumeLog, eventually, lastAssistantText, pluginPromptRequests, warmUp } from "./support.ts"

const BAD = {
  maxRetries: "three",
  loopWindowMs: -5,
  busyStallStrategy: "sometimes",
  stopPatterns: ["(unclosed"],
  baseBackoffMs: "NaN",
  chunkTimeoutMS: 1,
}

let provider: FakeProvider
let host: OpencodeHost
registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, { ...SHORT_BUDGETS, ...BAD }]] })
  // A fresh server's first turn is slow; see warmUp for why the scenarios must not be it.
  await warmUp(host, provider)
}, 90_000)

test(
  "(e) bad option values: one warning per bad key, and a stall is still recovered",
  async () => {
    const sessionID = await createSession(host)
    provider.enqueue(hangAfter("Partial"))
    provider.setFallback(text("Recovered after bad options."))
    await promptAsync(host, sessionID, "go")
    expect(await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered"), 30_000, 100)).toBe(true)
    expect(pluginPromptRequests(provider).length).toBeGreaterThanOrEqual(1)

    const log = autoResumeLog(host)
    expect(log.filter((l) => l.startsWith("info opencode-auto-resume "))).toHaveLength(1)
    for (const key of ["maxRetries", "loopWindowMs", "busyStallStrategy", "stopPatterns", "baseBackoffMs"]) {
      expect(log.filter((l) => l.startsWith("warn") && l.includes(key))).toHaveLength(1)
    }
    const unknown = log.filter((l) => l.startsWith("warn") && l.includes("chunkTimeoutMS"))
    expect(unknown).toHaveLength(1)
    expect(unknown[0]).toContain("chunkTimeoutMs")
  },
  60_000,
)
