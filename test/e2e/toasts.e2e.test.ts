/**
 * Told when it gives up (issue 29 part 7), on a real OpenCode 1.18.33 server with the plugin
 * loaded from this checkout and a scripted fake provider on 127.0.0.1. The plugin's toasts go
 * through `client.tui.showToast` (`POST /tui/show-toast`), which 1.18 publishes on its bus as
 * `tui.toast.show`: a headless server shows nothing, and the event is what an attached terminal
 * UI draws (test/e2e/probes/tui-look.ts gave-up|waits shows it on screen).
 *
 * With lifetimeMaxContinues 1: a session whose every request hangs gets one abort and
 * continue, then the plugin gives up, and says so once; an ordinary stall recovery that works
 * says nothing; a question nobody answers is said once, however long it stays open.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { hangAfter, startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, type OpencodeHost } from "./harness/opencode-host.ts"
import { PLUGIN_URL, SHORT_BUDGETS, STALL_ACT_MS, SHOW_MS, eventually, pluginPromptRequests, sleep, warmUp } from "./support.ts"

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, { ...SHORT_BUDGETS, lifetimeMaxContinues: 1 }]], logLevel: "DEBUG" })
  await warmUp(host, provider)
}, 90_000)

/** The toasts 1.18 published since `mark` that name the session. */
const toastsOf = (sessionID: string, mark: number) =>
  host.events
    .since(mark)
    .filter((e) => e?.type === "tui.toast.show" && String(e.properties?.message).includes(sessionID))
    .map((e) => e.properties as { title: string; message: string; variant: string; duration: number })

describe("told when it gives up, on OpenCode 1.18.33", () => {
  test(
    "a session that keeps hanging: one abort and continue, then the plugin gives up and one toast says so",
    async () => {
      const sessionID = await createSession(host)
      const mark = host.events.mark()
      const before = provider.requests.length
      provider.setFallback(hangAfter("Let me check the build log"))
      await promptAsync(host, sessionID, "check the build")
      expect(await eventually(() => toastsOf(sessionID, mark).length > 0, 4 * STALL_ACT_MS + 10_000, 250)).toBe(true)
      // Two more stall budgets: the give-up is said once.
      await sleep(2 * STALL_ACT_MS)
      const toasts = toastsOf(sessionID, mark)
      expect(toasts).toHaveLength(1)
      expect(toasts[0]).toMatchObject({ title: "auto-resume", variant: "warning", duration: 10_000 })
      expect(toasts[0]!.message).toMatch(new RegExp(`^auto-resume gave up on session ${sessionID} \\(stall: lifetime cap reached \\(1/1\\).*\\)\\. Nothing more is sent until you write\\.$`))
      expect(pluginPromptRequests(provider, before)).toHaveLength(1)
      await host.client.session.abort({ path: { id: sessionID } })
    },
    90_000,
  )

  test(
    "control: an ordinary stall recovery that works tells nothing",
    async () => {
      const sessionID = await createSession(host)
      const mark = host.events.mark()
      const before = provider.requests.length
      provider.enqueue(hangAfter("Let me check the build log"))
      provider.setFallback(text("Picked up where I stopped: the build log shows no errors."))
      await promptAsync(host, sessionID, "check the build")
      expect(await eventually(() => pluginPromptRequests(provider, before).length === 1, 4 * STALL_ACT_MS + 10_000, 250)).toBe(true)
      await sleep(2 * STALL_ACT_MS + SHOW_MS)
      expect(toastsOf(sessionID, mark)).toEqual([])
    },
    90_000,
  )

  test(
    "a question nobody answers: one toast that the session waits on the user, however long it stays open",
    async () => {
      const sessionID = await createSession(host)
      const mark = host.events.mark()
      provider.enqueue(toolCall("question", { questions: [{ header: "Database", question: "Which database should I use?", options: [{ label: "Postgres", description: "a server" }, { label: "SQLite", description: "a file" }] }] }))
      provider.setFallback(text("Going with your choice."))
      await promptAsync(host, sessionID, "set up the database")
      expect(await eventually(() => toastsOf(sessionID, mark).length > 0, 4 * STALL_ACT_MS + 10_000, 250)).toBe(true)
      await sleep(3 * STALL_ACT_MS)
      const toasts = toastsOf(sessionID, mark)
      expect(toasts.map((t) => t.message)).toEqual([
        `Session ${sessionID} waits for your answer (a question or permission is open): auto-resume holds its continue until you answer.`,
      ])
      await host.client.session.abort({ path: { id: sessionID } })
    },
    90_000,
  )
})
