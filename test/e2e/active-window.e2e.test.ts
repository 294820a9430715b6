/**
 * A nudge held by `activeUserWindowMs` is held, not dropped, inside a real OpenCode 1.18.33
 * server with the plugin from this checkout and a scripted fake provider on 127.0.0.1.
 *
 * Sessions here run on a twin provider whose window is a few seconds long (modelProfiles), so
 * a turn that ends with 🎉 over open todos right after the user's prompt is held, and then
 * reminded once the window is over. The control writes again inside the window: the old turn
 * gets nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, type OpencodeHost } from "./harness/opencode-host.ts"
import { SHORT_BUDGETS, eventually, lastAssistantText, pluginMessages, quiet, requestsWithUserText, sessionLog, startTwinHost } from "./support.ts"

const WINDOWED = "fakewindow"
const MODEL = { providerID: WINDOWED, modelID: "fake-model" }
/**
 * The active-user window on the twin provider: long enough to see the hold, short for a test.
 * The control's second prompt must land inside the first window: it goes out as soon as the
 * judge has held the 🎉 turn (about 1.5 s after the prompt here), which leaves 3 s to spare.
 */
const WINDOW_MS = 4_500
const REMINDER = "Your todo list still has 2 open items"
const OPEN_TODOS = toolCall("todowrite", {
  todos: [
    { content: "write tests", status: "pending", priority: "high" },
    { content: "ship", status: "in_progress", priority: "low" },
  ],
})

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  const options = { ...SHORT_BUDGETS, toolTextCheckDelayMs: 300, modelProfiles: { [WINDOWED]: { activeUserWindowMs: WINDOW_MS } } }
  host = await startTwinHost(provider, WINDOWED, options)
}, 90_000)

const logOf = (sessionID: string) => sessionLog(host, sessionID)

describe("a nudge held by the active-user window on OpenCode 1.18.33", () => {
  // The control runs first: it consumes its whole script, so whatever the other test leaves
  // behind when it fails cannot reach it.
  test(
    "control: the user writes again inside the window: the old turn gets no reminder (the newer turn, still over open todos, gets its own once its window is over)",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(OPEN_TODOS, text("All done! 🎉"), text("Sure, I will wait."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "plan the release", { model: MODEL })
      const celebrated = await eventually(async () => (await lastAssistantText(host, sessionID)) === "All done! 🎉", 20_000, 100)
      expect(celebrated).toBe(true)
      // The user writes once the judge has held the 🎉 turn's reminder for the window.
      const heldForWindow = await eventually(() => logOf(sessionID).some((l) => /judging the turn again in \d+s/.test(l)), 15_000, 50)
      expect(heldForWindow).toBe(true)
      const secondAt = Date.now()
      await promptAsync(host, sessionID, "thanks, hold on a moment", { model: MODEL })

      // Past the first window's end, and the second turn's too: the second turn's reminder comes
      // after its own window, by which time the first window (which ended earlier) has been
      // judged again; then no further request for 2 s.
      await eventually(() => requestsWithUserText(provider, REMINDER, before).length > 0, WINDOW_MS + 15_000, 100)
      await quiet(provider, 2_000, 15_000)
      // The 🎉 turn's held reminder was voided by the user's message. "Sure, I will wait." stops
      // with the todos still open: the open-todo reminder, held for the second window only.
      const reminders = requestsWithUserText(provider, REMINDER, before)
      expect(reminders).toHaveLength(1)
      expect(reminders[0]!.at).toBeGreaterThanOrEqual(secondAt + WINDOW_MS)
      expect(logOf(sessionID).some((l) => /todo-reminder: ends with 🎉/.test(l))).toBe(false)
      expect(logOf(sessionID).some((l) => /todo-reminder: the turn stopped with 2 open todo\(s\) and no other signal -> send/.test(l))).toBe(true)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
    },
    90_000,
  )

  test(
    "🎉 over open todos right after the user's prompt: held, then reminded once the window is over",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(OPEN_TODOS, text("All done! 🎉"), text("Working on the open items now."))
      provider.setFallback(text("unexpected extra turn"))
      const promptedAt = Date.now()
      await promptAsync(host, sessionID, "plan the release", { model: MODEL })

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "Working on the open items now.", WINDOW_MS + 30_000, 100)
      expect(answered).toBe(true)
      await quiet(provider, 2_000, 15_000)

      const reminders = requestsWithUserText(provider, REMINDER, before)
      expect(reminders).toHaveLength(1)
      // Held for the window: the plugin cannot have sent it before the window after the prompt ended.
      expect(reminders[0]!.at).toBeGreaterThanOrEqual(promptedAt + WINDOW_MS)
      expect(provider.requests.length).toBe(before + 3)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logOf(sessionID).some((l) => /judging the turn again in \d+s/.test(l))).toBe(true)
      expect(logOf(sessionID).some((l) => /todo-reminder: ends with 🎉 with 2 open todo\(s\) -> send/.test(l))).toBe(true)
    },
    90_000,
  )
})
