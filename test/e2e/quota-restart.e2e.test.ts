/**
 * Quota waits that survive a restart (issue 17 part 4), on a real OpenCode 1.18.33 server with
 * the plugin from this checkout and the fake provider on 127.0.0.1. Each case: the provider
 * answers 429 until OpenCode gives up, the plugin arms its wait (a first rung of COOLDOWN_MS,
 * scaled down from fifteen minutes), then the server goes away during the wait and a new one
 * starts on the same folders (same config dir, so the same wait file; same data, so the same
 * session).
 *
 *  - killed with SIGKILL: the new server takes the wait over and sends exactly one continue
 *    when it ends;
 *  - a clean exit: the host disposes the plugin first (what the terminal UI does when you quit,
 *    measured in HOST-NOTES.md; `opencode serve` itself has no clean exit a plugin can see), so
 *    the wait leaves the file and the new server sends nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import fs from "node:fs"
import path from "node:path"
import { httpError, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, type OpencodeHost } from "./harness/opencode-host.ts"
import { JOURNAL_FILE_NAME } from "../../src/stores/journal-file.ts"
import { PLUGIN_URL, SHORT_BUDGETS, SHOW_MS, autoResumeLog, eventually, pluginPromptRequests, sleep, warmUp } from "./support.ts"

/**
 * The wait must outlast a restart (stop, boot, plugin load: about 3 s, more under load), so
 * the restarted server takes it over before it ends; 8 s leaves more than twice that.
 */
const COOLDOWN_MS = 8_000
/**
 * A due wait's continue goes out at the next check and, on a warmed-up server, reaches the
 * provider a few hundred ms later: two checks and SHOW_MS bound when a continue (or a second
 * one) would show. (On a cold server the instance's first prompt takes up to about 3.5 s, so
 * the restarted servers are warmed up while the wait runs; see warmDuringWait.)
 */
const CONTINUE_SHOWS_MS = 2 * SHORT_BUDGETS.checkIntervalMs + SHOW_MS

let provider: FakeProvider
registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
})

// A stall budget past the whole test: the first prompt of a fresh server can take seconds to
// reach the provider, and a stall recovery then would be a plugin prompt of its own.
const OPTIONS = { ...SHORT_BUDGETS, chunkTimeoutMs: 60_000, rateLimitCooldownsMs: [COOLDOWN_MS], injectIntervalMs: 0 }
const start = (reuseRoot?: string) => startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, OPTIONS]], keepTemp: reuseRoot === undefined, reuseRoot })
const waitFile = (host: OpencodeHost) => path.join(host.root, "config", "opencode", "auto-resume.rate-waits.json")
const waitsIn = (host: OpencodeHost): any[] => {
  try {
    return JSON.parse(fs.readFileSync(waitFile(host), "utf8")).waits ?? []
  } catch {
    return []
  }
}

/** A session whose 429s OpenCode gave up on, with the plugin's wait in the file; returns when that wait ends (wall clock). */
async function rateLimitedSession(host: OpencodeHost): Promise<{ sessionID: string; until: number }> {
  const sessionID = await createSession(host)
  provider.setFallback(httpError(429, { retryAfterMs: 50 }))
  await promptAsync(host, sessionID, "hello")
  const armed = await eventually(() => waitsIn(host).some((w) => w.sessionID === sessionID), 30_000, 100)
  if (!armed) console.log(`[quota-restart] no wait in the file; requests ${provider.requests.length}; plugin log:\n${autoResumeLog(host).slice(-30).join("\n")}\nserver log:\n${host.logs().slice(-25).join("\n")}`)
  expect(armed).toBe(true)
  const entry = waitsIn(host).find((w) => w.sessionID === sessionID)
  expect(entry).toMatchObject({ rung: 1, directory: host.directory, owner: { pid: host.pid } })
  expect(fs.statSync(waitFile(host)).mode & 0o777).toBe(0o600)
  // From here the provider answers: only a continue of ours can make a request.
  provider.setFallback(text("resumed fine."))
  return { sessionID, until: entry.until }
}

/**
 * One throwaway turn in a session of its own on the restarted server, during the wait (which
 * has to be sat out anyway), so that a continue at the wait's end is not slowed by the
 * instance's lazy first prompt. The provider then answers as before.
 */
async function warmDuringWait(host: OpencodeHost): Promise<void> {
  await warmUp(host, provider)
  provider.setFallback(text("resumed fine."))
}

describe("a quota wait across a restart of OpenCode 1.18.33", () => {
  test(
    "killed with SIGKILL during the wait: the restarted server takes it over and sends exactly one continue after it ends",
    async () => {
      const first = await start()
      const { sessionID, until } = await rateLimitedSession(first)
      process.kill(-first.pid, "SIGKILL")
      expect(await eventually(() => first.exited(), 10_000, 20)).toBe(true)
      await first.stop()
      const since = provider.requests.length

      const second = await start(first.root)
      expect(await eventually(() => autoResumeLog(second).some((l) => l.includes(`session ${sessionID}: rate-limit wait carried over from a restart`)), 15_000, 100)).toBe(true)
      // Not before the wait's end; then once.
      expect(pluginPromptRequests(provider, since)).toHaveLength(0)
      await warmDuringWait(second)
      const continuedAtAll = await eventually(() => pluginPromptRequests(provider, since).length > 0, until - Date.now() + 15_000, 100)
      if (!continuedAtAll) console.log(`[quota-restart] no continue; requests since the restart: ${provider.requests.slice(since).map((r) => JSON.stringify(r.lastUserText.slice(0, 80))).join(", ")}\nplugin log:\n${autoResumeLog(second).slice(-30).join("\n")}`)
      expect(continuedAtAll).toBe(true)
      const continued = pluginPromptRequests(provider, since)
      expect(continued[0]!.at).toBeGreaterThanOrEqual(until)
      expect(continued[0]!.lastUserText).toContain("rate limit was hit once")
      // A second continue (the same wait fired twice) would come at a later check.
      await sleep(CONTINUE_SHOWS_MS)
      expect(pluginPromptRequests(provider, since)).toHaveLength(1)
      expect(autoResumeLog(second).filter((l) => l.includes(`session ${sessionID}: rate-limit wait over (hit 1, carried over from a restart); one continue`))).toHaveLength(1)
      // The wait is over: out of the file, so a third start would not send it again.
      expect(waitsIn(second).filter((w) => w.sessionID === sessionID)).toEqual([])
      // The history says where the continue came from.
      const journal = path.join(second.root, "config", "opencode", JOURNAL_FILE_NAME)
      const noted = () => {
        try {
          return fs.readFileSync(journal, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).some((e) => e.sessionID === sessionID && e.trigger === "rate limit" && e.note === "carried over from a restart")
        } catch {
          return false
        }
      }
      expect(await eventually(noted, 15_000, 200)).toBe(true)
      console.log(`[quota-restart] SIGKILL: continue ${continued[0]!.at - until} ms after the wait's end`)
      await second.stop()
    },
    60_000,
  )

  test(
    "a clean exit (the host disposes the plugin, then the process ends): the wait leaves the file and the restarted server sends no continue",
    async () => {
      const first = await start()
      const { sessionID, until } = await rateLimitedSession(first)
      const disposed = await fetch(`${first.url}/global/dispose`, { method: "POST" })
      expect(disposed.status).toBe(200)
      expect(await eventually(() => !waitsIn(first).some((w) => w.sessionID === sessionID), 5000, 50)).toBe(true)
      process.kill(-first.pid, "SIGTERM")
      expect(await eventually(() => first.exited(), 10_000, 20)).toBe(true)
      await first.stop()
      const since = provider.requests.length

      const second = await start(first.root)
      await warmDuringWait(second)
      // Past the wait's end by the time a continue for it would take to show: nothing of ours
      // reached the provider.
      await sleep(Math.max(0, until - Date.now()) + CONTINUE_SHOWS_MS)
      expect(pluginPromptRequests(provider, since)).toHaveLength(0)
      expect(autoResumeLog(second).some((l) => l.includes("carried over"))).toBe(false)
      await second.stop()
    },
    60_000,
  )
})
