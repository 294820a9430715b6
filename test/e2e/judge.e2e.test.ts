/**
 * Judging a finished turn (issue 3), proven inside a real OpenCode 1.18.33 server with the
 * plugin loaded from this checkout and a scripted fake provider on 127.0.0.1. One server for
 * the file; a new session per scenario, each with a negative control.
 *
 * Two providers point at the same fake endpoint: sessions on `fake` run with the default
 * `activeUserWindowMs` (5 min), sessions on `fakequick` with `activeUserWindowMs: 0`. The
 * window holds the nudges for a model that stopped by choice (todo reminder, done claim,
 * ready, action intent) right after a genuine user message, and every scenario here starts
 * with one, so those nudges are only observable on `fakequick`. Malfunction recoveries (a tool
 * call printed as text, a dead stream) are not held by it, so they run on `fake`, which also
 * proves that they are not held.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { reasoningOnly, startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { DEAD_STREAM_PROMPT, TOOL_TEXT_RECOVERY_PROMPT } from "../../src/paths/judge/prompts.ts"
import {
  SHORT_BUDGETS,
  eventually,
  lastAssistantText,
  pluginMessages,
  quiet,
  requestsWithUserText,
  toolParts,
  sessionLog,
  startTwinHost,
} from "./support.ts"

const QUICK = "fakequick"
const QUICK_MODEL = { providerID: QUICK, modelID: "fake-model" }
/** Pause before the text detectors run; short so a scenario settles in well under a second. */
const SETTLE_MS = 300
/** "Nothing is sent": several settle delays with no new request. */
const QUIET_MS = 6 * SETTLE_MS

const PRINTED_CALL = "<function=bash>\n<parameter=command>echo hi</parameter>\n</function>"

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  const options = {
    ...SHORT_BUDGETS,
    toolTextCheckDelayMs: SETTLE_MS,
    // Sessions on the twin provider judge a "stopped by choice" turn right after the user's
    // prompt; sessions on `fake` keep the default five-minute window.
    modelProfiles: { [QUICK]: { activeUserWindowMs: 0 } },
  }
  host = await startTwinHost(provider, QUICK, options)
}, 90_000)

const logOf = (sessionID: string) => sessionLog(host, sessionID)

/** The turn ran, settled, and the provider then stayed quiet for QUIET_MS. */
async function settled(sessionID: string, timeoutMs = 20_000): Promise<void> {
  await waitForIdle(host, sessionID, timeoutMs)
  expect(await quiet(provider, QUIET_MS, 15_000)).toBe(true)
}

describe("judging a finished turn on OpenCode 1.18.33", () => {
  test(
    "a tool call printed as text gets the tool-text prompt, and the next turn makes the real call",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text(PRINTED_CALL), toolCall("bash", { command: "echo hi", description: "x" }), text("done."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "say hi with bash")

      const done = await eventually(async () => (await lastAssistantText(host, sessionID)) === "done.", 30_000, 250)
      expect(done).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)

      // The recovery prompt reached the provider right after the printed call; the turn it
      // started is the real call and its follow-up (both requests end on that prompt).
      expect(provider.requests.slice(before).map((r) => r.step.kind)).toEqual(["text", "toolCall", "text"])
      expect(provider.requests[before]!.lastUserText).toBe("say hi with bash")
      expect(requestsWithUserText(provider, TOOL_TEXT_RECOVERY_PROMPT, before).map((r) => r.index)).toEqual([
        provider.requests[before + 1]!.index,
        provider.requests[before + 2]!.index,
      ])
      // ...and the turn it started made the call for real.
      const bash = (await toolParts(host, sessionID)).filter((p) => p.tool === "bash")
      expect(bash).toHaveLength(1)
      expect(bash[0].state.status).toBe("completed")
      expect(String(bash[0].state.output)).toContain("hi")
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      // Held by nothing, although the user had just written (default activeUserWindowMs).
      expect(logOf(sessionID).some((l) => /tool-text: tool call written as text \(.*\) -> send/.test(l))).toBe(true)
      // "done." after a turn that ran a tool asks for no report (the call is the report); right
      // after the user's message it is not even judged before the active-user window is over.
      expect(logOf(sessionID).some((l) => /done-claim: .* -> send/.test(l))).toBe(false)
    },
    60_000,
  )

  test(
    "control: the same call shown inside a fenced code block is not a printed call",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text(`To run it yourself, the format looks like this:\n\n\`\`\`\n${PRINTED_CALL}\n\`\`\`\n\nThat is the whole format.`))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "show me the call format", { model: QUICK_MODEL })
      await settled(sessionID)

      expect(provider.requests.length).toBe(before + 1)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logOf(sessionID).some((l) => /tool-text/.test(l))).toBe(false)
    },
    60_000,
  )

  test(
    "a reasoning-only answer with 300 output tokens gets the dead-stream prompt",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(reasoningOnly("The user wants a summary. I should read the notes and then write it up.", 300), text("Here is the summary."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "summarise the notes")

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "Here is the summary.", 30_000, 250)
      expect(answered).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)

      expect(provider.requests.length).toBe(before + 2)
      expect(provider.requests[before + 1]!.lastUserText).toBe(DEAD_STREAM_PROMPT)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logOf(sessionID).some((l) => /dead-stream: silent dead stream \(finish stop, 300 tokens, no text or tool call\) -> send/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "control: a short reasoning-only answer (50 tokens, under silentDeadStreamMinTokens) gets nothing",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(reasoningOnly("Nothing to add.", 50))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "anything to add?", { model: QUICK_MODEL })
      await settled(sessionID)

      expect(provider.requests.length).toBe(before + 1)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logOf(sessionID).some((l) => /dead-stream/.test(l))).toBe(false)
    },
    60_000,
  )

  test(
    "todowrite with open items, then 'All done! 🎉': the reminder names every open item",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(
        toolCall("todowrite", {
          todos: [
            { content: "write tests", status: "pending", priority: "high" },
            { content: "ship", status: "in_progress", priority: "low" },
          ],
        }),
        text("All done! 🎉"),
        // The reminded model closes its items: a turn that stopped with todos still open
        // would get the open-todo reminder again (issue 18).
        toolCall("todowrite", {
          todos: [
            { content: "write tests", status: "completed", priority: "high" },
            { content: "ship", status: "completed", priority: "low" },
          ],
        }),
        text("Both items are finished now."),
      )
      provider.setFallback(text("unexpected extra turn"))
      // On the twin provider: the reminder is a nudge for a model that stopped by choice, which
      // the default activeUserWindowMs would hold for five minutes after this prompt.
      await promptAsync(host, sessionID, "plan the release", { model: QUICK_MODEL })

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "Both items are finished now.", 30_000, 250)
      expect(answered).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)

      const todo = (await toolParts(host, sessionID)).find((p) => p.tool === "todowrite")
      expect(todo?.state?.status).toBe("completed")
      // One reminder, answered in two model steps (the todowrite, then the text): both
      // requests carry it as their last user message.
      const reminders = requestsWithUserText(provider, "Your todo list still has 2 open items", before)
      expect(reminders).toHaveLength(2)
      expect(reminders[0]!.lastUserText).toContain("1. [pending] write tests")
      expect(reminders[0]!.lastUserText).toContain("2. [in_progress] ship")
      expect(provider.requests.length).toBe(before + 4)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logOf(sessionID).some((l) => /todo-reminder: ends with 🎉 with 2 open todo\(s\) -> send/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "todowrite with open items, then a plain stop: the open-todo reminder names them (issue 18)",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(
        toolCall("todowrite", {
          todos: [
            { content: "find the bug", status: "completed", priority: "high" },
            { content: "fix the bug", status: "pending", priority: "high" },
          ],
        }),
        text("The bug is in the tokenizer: it drops the last quote."),
        toolCall("todowrite", {
          todos: [
            { content: "find the bug", status: "completed", priority: "high" },
            { content: "fix the bug", status: "completed", priority: "high" },
          ],
        }),
        text("Fixed the bug."),
      )
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "fix the parser bug", { model: QUICK_MODEL })

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "Fixed the bug.", 30_000, 250)
      expect(answered).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)

      // One reminder, answered in two model steps (the todowrite, then the text).
      const reminders = requestsWithUserText(provider, "Your todo list still has 1 open item", before)
      expect(reminders).toHaveLength(2)
      expect(reminders[0]!.lastUserText).toContain("[pending] fix the bug")
      expect(provider.requests.length).toBe(before + 4)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logOf(sessionID).some((l) => /todo-reminder: the turn stopped with 1 open todo\(s\) and no other signal -> send/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "control: the same 🎉 with every todo completed latches completion and sends nothing",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(
        toolCall("todowrite", {
          todos: [
            { content: "write tests", status: "completed", priority: "high" },
            { content: "ship", status: "completed", priority: "low" },
          ],
        }),
        text("All done! 🎉"),
      )
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "finish the release", { model: QUICK_MODEL })
      await settled(sessionID)

      expect(provider.requests.length).toBe(before + 2)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logOf(sessionID).some((l) => /task complete \(ends with 🎉\)/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "'ready to continue' and a stop gets a plain continue, and the model carries on",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text("The schema is written. Ready to continue with the next step."), text("Writing the migration now."))
      provider.setFallback(text("unexpected extra turn"))
      // On the twin provider: ready-to-continue is a nudge for a model that stopped by choice.
      await promptAsync(host, sessionID, "set up the schema", { model: QUICK_MODEL })

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "Writing the migration now.", 30_000, 250)
      expect(answered).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)

      expect(provider.requests.length).toBe(before + 2)
      expect(provider.requests[before + 1]!.lastUserText).toBe("continue")
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logOf(sessionID).some((l) => /ready-to-continue: announced it is ready to continue and stopped -> send/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "a question to the user gets nothing, even with activeUserWindowMs 0",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text("Which database should I use?"))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "set up persistence", { model: QUICK_MODEL })
      await settled(sessionID)

      expect(provider.requests.length).toBe(before + 1)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logOf(sessionID).some((l) => /hand-off: the reply waits on the user \(the last sentence is a question\)/.test(l))).toBe(true)
    },
    60_000,
  )
})
