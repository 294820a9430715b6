/**
 * Undo respected (issue 29 part 3), proven inside a real OpenCode 1.18.33 server with the
 * plugin loaded from this checkout and a scripted fake provider on 127.0.0.1. A turn ends on a
 * tool call printed as text, which the finished-turn judge corrects at its second look; the user
 * reverts that turn through the server's own revert endpoint (`POST /session/{id}/revert`, what
 * the TUI's undo calls) before that look: nothing is sent. The control is the same turn without
 * the revert: one correction.
 *
 * The judge's second look waits toolTextCheckDelayMs after the turn's idle; it is set long
 * enough here (REVERT_WINDOW_MS) that the revert, made as soon as the idle is seen, lands first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, messages, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { TOOL_TEXT_RECOVERY_PROMPT } from "../../src/paths/judge/prompts.ts"
import { PLUGIN_URL, SHORT_BUDGETS, SHOW_MS, pluginMessages, quiet, requestsWithUserText, sessionLog, warmUp } from "./support.ts"

/** From the turn's idle to the judge's second look: the time the revert has to land first. */
const REVERT_WINDOW_MS = 3_000
/** "Nothing is sent": the second look, a check's worth for its history read, and the time to show. */
const WATCH_MS = REVERT_WINDOW_MS + SHORT_BUDGETS.checkIntervalMs + 1_000 + SHOW_MS

const PRINTED_CALL = "<function=bash>\n<parameter=command>echo hi</parameter>\n</function>"

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, { ...SHORT_BUDGETS, toolTextCheckDelayMs: REVERT_WINDOW_MS }]], logLevel: "DEBUG" })
  await warmUp(host, provider)
}, 90_000)

/** A turn that ends on a printed tool call; returns the session and its assistant message id once the turn is idle. */
async function printedCallTurn(): Promise<{ sessionID: string; assistantID: string; before: number }> {
  const sessionID = await createSession(host)
  const before = provider.requests.length
  provider.enqueue(text(PRINTED_CALL))
  provider.setFallback(text("Done."))
  await promptAsync(host, sessionID, "say hi with bash")
  await waitForIdle(host, sessionID, 30_000)
  const assistant = (await messages(host, sessionID)).reverse().find((m) => m.info.role === "assistant")
  expect(assistant).toBeDefined()
  return { sessionID, assistantID: String(assistant!.info.id), before }
}

describe("undo respected on OpenCode 1.18.33", () => {
  test(
    "a printed tool call the user reverts before the judge's second look gets no correction",
    async () => {
      const { sessionID, assistantID, before } = await printedCallTurn()
      const mark = host.events.mark()
      const reverted = await host.client.session.revert({ path: { id: sessionID }, body: { messageID: assistantID } })
      expect(reverted.error).toBeUndefined()
      // 1.18 marks the session reverted to the user message before the turn, and says so in session.updated.
      const userID = (await messages(host, sessionID)).find((m) => m.info.role === "user")!.info.id
      expect((reverted.data as { revert?: { messageID?: string } }).revert?.messageID).toBe(userID)
      await host.events.waitForEvent((e) => e?.type === "session.updated" && e.properties?.info?.id === sessionID && e.properties?.info?.revert?.messageID === userID, 5_000, mark)

      expect(await quiet(provider, WATCH_MS, 30_000)).toBe(true)
      expect(requestsWithUserText(provider, TOOL_TEXT_RECOVERY_PROMPT, before)).toHaveLength(0)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      const log = sessionLog(host, sessionID)
      expect(log.some((l) => new RegExp(`reverted the session to message ${userID}; standing down until the next user message`).test(l))).toBe(true)
      // The judgement that would have sent the correction found the session in the user's hands.
      expect(log.some((l) => /tool-text: .* -> send/.test(l))).toBe(false)
    },
    90_000,
  )

  test(
    "control: the same printed tool call without the revert gets one correction",
    async () => {
      const { sessionID, before } = await printedCallTurn()
      expect(await quiet(provider, WATCH_MS, 30_000)).toBe(true)
      expect(requestsWithUserText(provider, TOOL_TEXT_RECOVERY_PROMPT, before)).toHaveLength(1)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(sessionLog(host, sessionID).some((l) => /tool-text: tool call written as text \(.*\) -> send/.test(l))).toBe(true)
    },
    90_000,
  )

  test(
    "after the revert the user's next message is theirs: 1.18 removes the reverted messages first, and the plugin stands by that turn again",
    async () => {
      const { sessionID, assistantID, before } = await printedCallTurn()
      await host.client.session.revert({ path: { id: sessionID }, body: { messageID: assistantID } })
      const mark = host.events.mark()
      provider.enqueue(text(PRINTED_CALL))
      await promptAsync(host, sessionID, "say hi with bash, for real this time")
      await waitForIdle(host, sessionID, 30_000)
      // The host's order: the reverted messages go (message.removed) before the new user message.
      const seen = host.events.since(mark, sessionID).map((e) => (e.type === "message.updated" ? `message.updated(${e.properties?.info?.role})` : e.type))
      const removed = seen.indexOf("message.removed")
      expect(removed).toBeGreaterThanOrEqual(0)
      expect(removed).toBeLessThan(seen.indexOf("message.updated(user)"))
      // The new turn ends on a printed call too, and is judged again: the latch was the revert's, lifted by the user.
      expect(await quiet(provider, WATCH_MS, 30_000)).toBe(true)
      expect(requestsWithUserText(provider, TOOL_TEXT_RECOVERY_PROMPT, before)).toHaveLength(1)
    },
    90_000,
  )
})
