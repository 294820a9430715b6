/**
 * An answer cut off at the output limit (issue 17, part 2), proven inside a real OpenCode
 * 1.18.33 server with the plugin loaded from this checkout and the scripted fake provider on
 * 127.0.0.1: a stream that ends with finish_reason "length" gets one continue that says so;
 * a tool call whose arguments were cut is answered by 1.18.33 itself (see that test), so the
 * plugin stays out of it there;
 * the same answer ending with finish_reason "stop" gets nothing. Every session runs on `fake`,
 * with the default activeUserWindowMs: a cut-off answer is a malfunction, not held by it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, messages, promptAsync, registerOpencodeCleanup, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { CUT_OFF_PROMPT } from "../../src/paths/judge/prompts.ts"
import { SHORT_BUDGETS, eventually, lastAssistantText, pluginMessages, quiet, sessionLog, startTwinHost, toolParts } from "./support.ts"

const SETTLE_MS = 300
const QUIET_MS = 6 * SETTLE_MS
const HALF_ANSWER = "Here is the first half of the migration guide. Step 1: back up the database. Step 2: run"

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startTwinHost(provider, "fakequick", { ...SHORT_BUDGETS, toolTextCheckDelayMs: SETTLE_MS })
}, 90_000)

const logOf = (sessionID: string) => sessionLog(host, sessionID)

describe("an answer cut off at the output limit, on OpenCode 1.18.33", () => {
  test(
    "a text answer ended by finish length gets one continue saying it was cut off",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text(HALF_ANSWER, { finish: "length", completionTokens: 4096 }), text("the migration script. That completes the guide."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "write the migration guide")

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "the migration script. That completes the guide.", 30_000, 250)
      expect(answered).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)

      expect(provider.requests.length).toBe(before + 2)
      expect(provider.requests[before + 1]!.lastUserText).toBe(CUT_OFF_PROMPT)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logOf(sessionID).some((l) => /cut-off: cut off at the output limit -> send/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "a tool call cut inside its arguments: 1.18.33 answers it itself (an invalid call the model reads), and the plugin adds nothing",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(
        toolCall("write", { filePath: "notes/guide.md", content: "# Migration guide\n\nStep 1: back up the database." }, { cutAt: 30 }),
        text("I will write it in two smaller parts instead."),
      )
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "save the guide to notes/guide.md")

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "I will write it in two smaller parts instead.", 30_000, 250)
      const history = await messages(host, sessionID)
      if (process.env.CUT_OFF_DEBUG) console.log(JSON.stringify({ history, requests: provider.requests.slice(before).map((r) => r.body.messages) }, null, 1))
      expect(answered).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)

      // The host records the cut call as an \`invalid\` part and runs it: the model's next step
      // reads that the arguments were invalid, in the same run, with no prompt from anyone.
      const cut = (await toolParts(host, sessionID)).find((p) => p.tool === "invalid")
      expect(cut?.state?.input?.tool).toBe("write")
      expect(provider.requests.length).toBe(before + 2)
      expect(provider.requests[before + 1]!.lastUserText).toBe("save the guide to notes/guide.md")
      expect(JSON.stringify(provider.requests[before + 1]!.body.messages)).toContain("The arguments provided to the tool are invalid")
      // So the turn judged at idle is the model's answer to that, which finished normally.
      const assistants = history.filter((m) => m.info.role === "assistant")
      expect(assistants.at(-1)?.info.finish).toBe("stop")
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logOf(sessionID).some((l) => /cut-off/.test(l))).toBe(false)
    },
    60_000,
  )

  test(
    "control: the same answer ended by finish stop gets nothing",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text(HALF_ANSWER, { completionTokens: 4096 }))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "write the migration guide")
      await waitForIdle(host, sessionID, 20_000)
      expect(await quiet(provider, QUIET_MS, 15_000)).toBe(true)

      expect(provider.requests.length).toBe(before + 1)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logOf(sessionID).some((l) => /cut-off/.test(l))).toBe(false)
    },
    60_000,
  )
})
