/**
 * Smoke test for the e2e harness: one real OpenCode server for the whole file, the probe
 * fixture plugin loaded from a file:// URL, the fake provider scripted per test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import fs from "node:fs"
import { hangAfter, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import {
  createSession,
  messages,
  pluginLogs,
  promptAsync,
  registerOpencodeCleanup,
  startOpencode,
  waitForIdle,
  type OpencodeHost,
} from "./harness/opencode-host.ts"
import { probeFixture, readProbe } from "./fixtures/probe-records.ts"

const { probeUrl, recordFile, cleanup } = probeFixture("smoke")

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop(), cleanup)

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({
    providerUrl: provider.url,
    plugins: [[probeUrl, { recordFile, logService: "probe" }]],
  })
}, 60_000)

describe("e2e harness smoke", () => {
  test(
    "a healthy prompt completes and the plugin sees it",
    async () => {
      const sessionID = await createSession(host)
      provider.enqueue(text("Hello from the fake model", { chunks: 3 }))
      await promptAsync(host, sessionID, "say hello")
      await waitForIdle(host, sessionID, 20_000)

      // The model got our text.
      expect(provider.requests.length).toBeGreaterThanOrEqual(1)
      expect(provider.requests.at(-1)!.lastUserText).toBe("say hello")

      // The turn is stored and finished.
      const history = await messages(host, sessionID)
      const assistant = history.filter((m) => m.info.role === "assistant").at(-1)!
      expect(assistant.info.finish).toBe("stop")
      const said = assistant.parts.filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
      expect(said).toBe("Hello from the fake model")

      // The fixture plugin was loaded with its options and saw the turn.
      const recs = readProbe(recordFile)
      const init = recs.find((r) => r.kind === "init")
      expect(init?.options).toMatchObject({ recordFile })
      expect(init?.inputKeys).toEqual(expect.arrayContaining(["client", "directory", "project", "serverUrl", "worktree"]))
      const chat = recs.find((r) => r.kind === "chat.message" && r.input?.sessionID === sessionID)
      expect(chat?.parts?.[0]?.text).toBe("say hello")
      const seen = new Set(
        recs.filter((r) => r.kind === "event" && r.properties?.sessionID === sessionID).map((r) => r.type),
      )
      expect(seen.has("session.idle")).toBe(true)
      expect(seen.has("session.status")).toBe(true)

      // Its app.log lines reach the server output (info and up at the default log level).
      const logs = pluginLogs(host, "probe")
      expect(logs.map((l) => l.message)).toEqual(
        expect.arrayContaining(["probe info line", "probe warn line", "probe error line"]),
      )
      expect(logs.find((l) => l.message === "probe warn line")?.level).toBe("warn")
    },
    30_000,
  )

  // Last on purpose: it stops the file's only server.
  test(
    "a hung stream reaches the provider and stop() cleans everything up",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(hangAfter("partial answer "))
      await promptAsync(host, sessionID, "hang now")
      const reqs = await provider.waitForRequests(before + 1, 15_000)
      const hung = reqs[before]!
      expect(hung.step.kind).toBe("hangAfter")
      expect(hung.lastUserText).toBe("hang now")
      expect(hung.outcome).toBe("pending")
      // The partial text arrives as a text part while the stream stays open.
      await host.events.waitForEvent(
        (e) => e.type === "message.part.updated" && e.properties?.part?.sessionID === sessionID && e.properties?.part?.type === "text",
        10_000,
      )
      expect(provider.hungCount()).toBe(1)

      await host.stop()

      expect(host.exited()).toBe(true)
      expect(() => process.kill(host.pid, 0)).toThrow()
      expect(() => process.kill(-host.pid, 0)).toThrow() // nothing left in its process group
      expect(fs.existsSync(host.root)).toBe(false)
      // The server went away mid-stream: the provider saw the client hang up.
      for (let i = 0; i < 50 && provider.hungCount() > 0; i++) await Bun.sleep(20)
      expect(provider.hungCount()).toBe(0)
      expect(hung.outcome).toBe("clientAborted")
      await host.stop() // idempotent
    },
    30_000,
  )
})
