/**
 * visibleContinue on a real OpenCode 1.18.33: a stall continue sent as a plain (not synthetic)
 * text part still reaches the model, still carries `metadata.autoResume` in chat.message and
 * in the stored history, and so is still taken by the plugin as its own prompt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { probeFixture, readProbe } from "./fixtures/probe-records.ts"
import { hangAfter, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { PLUGIN_URL, SHORT_BUDGETS, autoResumeLog, eventually, lastAssistantText, pluginMessages, pluginPromptRequests, warmUp } from "./support.ts"

const { probeUrl, recordFile, cleanup } = probeFixture("visibility")

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop(), cleanup)

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({
    providerUrl: provider.url,
    plugins: [[PLUGIN_URL, { ...SHORT_BUDGETS, visibleContinue: true }], [probeUrl, { recordFile }]],
    logLevel: "DEBUG",
  })
  // A fresh server's first turn is slow; see warmUp for why the scenarios must not be it.
  await warmUp(host, provider)
}, 90_000)

describe("visible continues on OpenCode 1.18.33", () => {
  test(
    "the continue is a plain text part with the marker: the model gets it and the plugin knows it as its own",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(hangAfter("Let me look into"))
      provider.setFallback(text("Recovered after a visible continue."))
      await promptAsync(host, sessionID, "what is the answer?")
      expect(await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered"), 30_000, 100)).toBe(true)

      // The fake provider received the continue's text as the newest user turn.
      const continues = pluginPromptRequests(provider, before)
      expect(continues.length).toBeGreaterThanOrEqual(1)
      expect(continues[0]!.lastUserText).toContain("continue — auto-resume:")

      // Stored: not synthetic (so the TUI shows it), marker intact.
      const own = await pluginMessages(host, sessionID)
      expect(own.length).toBeGreaterThanOrEqual(1)
      const part = own[0]!.parts.find((p: any) => p.type === "text")
      expect(part.synthetic).not.toBe(true)
      expect(part.metadata).toMatchObject({ autoResume: true, kind: "continue" })

      // chat.message saw the same part, metadata included.
      const seen = readProbe(recordFile).filter((r) => r.kind === "chat.message" && r.input?.sessionID === sessionID)
      const echoed = seen.flatMap((r) => r.parts ?? []).filter((p: any) => p.metadata?.autoResume === true)
      expect(echoed.length).toBeGreaterThanOrEqual(1)
      expect(echoed[0].synthetic).not.toBe(true)

      // Taken for the user's own turn, it would have re-armed the budgets (a debug line).
      const log = autoResumeLog(host).filter((l) => l.includes(sessionID))
      expect(log.some((l) => /continue sent/.test(l))).toBe(true)
      expect(log.some((l) => /genuine user message; budgets and latches re-armed/.test(l))).toBe(false)
      await waitForIdle(host, sessionID, 15_000, 0)
    },
    60_000,
  )
})
