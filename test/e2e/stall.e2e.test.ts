/**
 * Stall recovery proven inside a real OpenCode 1.18.33 server, with the plugin loaded from
 * this checkout and a scripted fake provider on 127.0.0.1. One server for the file; a new
 * session per scenario.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { hangAfter, startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { abortSession, createSession, messages, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { CONTROL_WAIT_MS, PLUGIN_URL, SHORT_BUDGETS, autoResumeLog, eventually, lastAssistantText, pluginMessages, pluginPromptRequests, sleep, warmUp } from "./support.ts"

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, SHORT_BUDGETS]], logLevel: "DEBUG" })
  // A fresh server's first turn is slow; see warmUp for why the scenarios must not be it.
  await warmUp(host, provider)
}, 90_000)

describe("stall recovery on OpenCode 1.18.33", () => {
  test(
    "(a) a stream that hangs mid-answer is recovered and the turn completes",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(hangAfter("Let me look into"))
      provider.setFallback(text("Recovered: the answer is 42."))
      await promptAsync(host, sessionID, "what is the answer?")

      const recovered = await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered"), 30_000, 100)
      expect(recovered).toBe(true)
      const log = autoResumeLog(host).filter((l) => l.includes(sessionID))
      expect(log.some((l) => /stall detected phase=idle/.test(l))).toBe(true)
      // The hung request was answered by a fresh one carrying the plugin's continue.
      expect(pluginPromptRequests(provider, before).length).toBeGreaterThanOrEqual(1)
      // The plugin's own messages are marked as such in the stored history.
      expect((await pluginMessages(host, sessionID)).length).toBeGreaterThanOrEqual(1)
      await waitForIdle(host, sessionID, 15_000, 0)
    },
    60_000,
  )

  test(
    "(b) a bash tool running longer than the stall budget is not interrupted",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      // 5 s: twice the stall budget, so the watchdog looks at the silent tool (and holds, which
      // the log line below shows) about 2 s before it ends.
      provider.enqueue(toolCall("bash", { command: "sleep 5 && echo slept", description: "wait a while" }), text("The command finished."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "run the slow command")
      await waitForIdle(host, sessionID, 40_000)

      const history = await messages(host, sessionID)
      const tool = history.flatMap((m) => m.parts).find((p: any) => p.type === "tool" && p.tool === "bash")
      expect(tool?.state?.status).toBe("completed")
      expect(String(tool?.state?.output)).toContain("slept")
      expect(await lastAssistantText(host, sessionID)).toBe("The command finished.")
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(autoResumeLog(host).some((l) => l.includes(sessionID) && /tool phase: tool "bash"/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "(c) when the user aborts, no continue follows",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(hangAfter("Thinking about"))
      provider.setFallback(text("should never be asked"))
      await promptAsync(host, sessionID, "start something long")
      await provider.waitForRequests(before + 1, 15_000)
      await sleep(300)
      await abortSession(host, sessionID)
      // A continue the abort did not stop would come from a stall (the plugin missing the
      // abort) or from the judge over the ended turn: CONTROL_WAIT_MS covers both.
      await sleep(CONTROL_WAIT_MS)

      expect(provider.requests.length).toBe(before + 1)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(autoResumeLog(host).some((l) => l.includes(sessionID) && /cancelled by the user/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "(d) a healthy session gets nothing from the plugin",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text("All good here."))
      await promptAsync(host, sessionID, "say something")
      await waitForIdle(host, sessionID, 20_000)
      // Long enough for a wrong stall or a judge's nudge to reach the provider (CONTROL_WAIT_MS).
      await sleep(CONTROL_WAIT_MS)

      expect(provider.requests.length).toBe(before + 1)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(autoResumeLog(host).some((l) => l.includes(sessionID) && /stall detected/.test(l))).toBe(false)
    },
    60_000,
  )
})
