/**
 * Unattended hours (issue 29 part 6), inside a real OpenCode 1.18.33 server with the plugin from
 * this checkout and the scripted fake provider on 127.0.0.1. Hours are seconds here: sessions
 * on the twin provider `fakequick` run with `unattendedMaxMs: 4000`, sessions on `fake` with the
 * option off (its default), so one server shows both.
 *
 * The scripted model runs a five-second command, then its stream hangs. With the limit, the
 * session has run longer than it since the user's message: the hang is held, one log line and
 * one history entry say why, and `/auto-resume status` shows it; the user writing again ends the
 * hold. The control, the same run with the option off, is recovered (abort, then continue).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { hangAfter, startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { abortSession, createSession, promptAsync, registerOpencodeCleanup, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { AFTER_HOLD_MS, SHORT_BUDGETS, STALL_ACT_MS, eventually, pluginMessages, pluginPromptRequests, sessionLog, sleep, startTwinHost } from "./support.ts"

const QUICK = "fakequick"
const QUICK_MODEL = { providerID: QUICK, modelID: "fake-model" }
const LIMIT_MS = 4000

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startTwinHost(provider, QUICK, { ...SHORT_BUDGETS, modelProfiles: { [QUICK]: { unattendedMaxMs: LIMIT_MS } } })
}, 90_000)

const logged = (sessionID: string, re: RegExp) => sessionLog(host, sessionID).filter((l) => re.test(l)).length

/** `/auto-resume <args>` as the terminal UI runs it; the reply's text. */
async function command(sessionID: string, args: string): Promise<string> {
  const mark = host.events.mark()
  const r = await host.client.session.command({ path: { id: sessionID }, body: { command: "auto-resume", arguments: args } as any })
  await waitForIdle(host, sessionID, 15_000, mark)
  return ((r.data as any)?.parts ?? []).filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
}

/** A five-second command, then a stream that hangs: longer than the limit, with no word from the user. */
function scriptLongRunThenHang(): void {
  provider.enqueue(toolCall("bash", { command: "sleep 5", description: "long build" }), hangAfter("Looking at the build output"))
  provider.setFallback(text("Back at work."))
}

describe("unattended hours on OpenCode 1.18.33", () => {
  test(
    "past unattendedMaxMs since the user's message, a hang gets no continue; the log, the history and /auto-resume status say why; the user writing again ends it",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      scriptLongRunThenHang()
      await promptAsync(host, sessionID, "run the long build", { model: QUICK_MODEL })

      // The limit is reached while the command runs: one line says so.
      expect(await eventually(() => logged(sessionID, /unattended for 4s since the user's last message/) > 0, 20_000, 100)).toBe(true)
      // The hang that follows is held by it, where the control below is recovered.
      expect(await eventually(() => logged(sessionID, /stall recovery held: unattended for 4s/) > 0, STALL_ACT_MS + 20_000, 100)).toBe(true)
      await sleep(AFTER_HOLD_MS)
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logged(sessionID, /session \S+: unattended for 4s/)).toBe(1)

      // The user stops the hung turn and asks what happened.
      await abortSession(host, sessionID)
      await waitForIdle(host, sessionID, 15_000)
      const status = await command(sessionID, "status")
      expect(status).toContain("Held: unattended for 4s since the user's last message (unattendedMaxMs): no continues until the user writes")
      const history = await command(sessionID, "history")
      expect(history).toMatch(/unattended hours \(\d+s since your last message\) -> no more continues until you write: stood down/)
      expect(history.match(/unattended hours/g)).toHaveLength(1)

      // Writing again ends the hold.
      const mark = host.events.mark()
      await promptAsync(host, sessionID, "thanks, carry on", { model: QUICK_MODEL })
      await waitForIdle(host, sessionID, 15_000, mark)
      expect(await command(sessionID, "status")).not.toContain("Held:")
    },
    90_000,
  )

  test(
    "control: the same long run with the option off (the default) is recovered: the hang is aborted and continued",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      scriptLongRunThenHang()
      await promptAsync(host, sessionID, "run the long build")

      const continued = await eventually(() => pluginPromptRequests(provider, before).length > 0, STALL_ACT_MS + 20_000, 100)
      expect(continued).toBe(true)
      expect(provider.requests.slice(before).some((r) => r.outcome === "clientAborted")).toBe(true)
      expect(logged(sessionID, /unattended/)).toBe(0)
    },
    60_000,
  )
})
