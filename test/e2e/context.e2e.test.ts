/**
 * A full context window on the real OpenCode 1.18.33 (issue 29 part 1), with the plugin loaded
 * from this checkout and a scripted fake provider on 127.0.0.1. The provider's 400 "maximum
 * context length" is the host's `ContextOverflowError`: 1.18 compacts the session by itself
 * and continues it (HOST-NOTES.md, "A context overflow"). One server for the file; a new
 * session per scenario.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { hangAfter, httpError, startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { abortSession, createSession, promptAsync, registerOpencodeCleanup, type OpencodeHost } from "./harness/opencode-host.ts"
import { TOOL_TEXT_RECOVERY_PROMPT } from "../../src/paths/judge/prompts.ts"
import { AFTER_HOLD_MS, SHORT_BUDGETS, STALL_ACT_MS, eventually, lastAssistantText, pluginPromptRequests, quiet, requestsWithUserText, sessionLog, sleep, startTwinHost } from "./support.ts"

/** What OpenAI answers for a prompt past the window; 1.18 reads it as ContextOverflowError. */
const OVERFLOW = httpError(400, {
  body: {
    error: {
      message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      type: "invalid_request_error",
      code: "context_length_exceeded",
    },
  },
})
const PRINTED_CALL = "<function=bash>\n<parameter=command>echo hi</parameter>\n</function>"
const SETTLE_MS = 300
const QUIET_MS = 6 * SETTLE_MS
/** The request of 1.18's compaction: its summary prompt. */
const SUMMARY_REQUEST = "Create a new anchored summary"

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startTwinHost(provider, "fakequick", { ...SHORT_BUDGETS, toolTextCheckDelayMs: SETTLE_MS })
}, 90_000)

const logOf = (sessionID: string) => sessionLog(host, sessionID)

describe("a full context on OpenCode 1.18.33", () => {
  test(
    "overflow -> the host's compaction -> the next turn's printed tool call is corrected",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      // The overflow, the host's summary, its continue answered with a printed call, then the
      // real call after our correction and its follow-up.
      provider.enqueue(OVERFLOW, text("Summary: the user asked for hi."), text(PRINTED_CALL), toolCall("bash", { command: "echo hi", description: "x" }), text("done."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "say hi with bash")

      expect(await eventually(async () => (await lastAssistantText(host, sessionID)) === "done.", 30_000, 250)).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)
      const seen = provider.requests.slice(before)
      expect(seen.map((r) => r.step.kind)).toEqual(["httpError", "text", "text", "toolCall", "text"])
      expect(seen[1]!.lastUserText).toContain(SUMMARY_REQUEST)
      // The correction went out after the host's compaction: the latch had ended.
      expect(requestsWithUserText(provider, TOOL_TEXT_RECOVERY_PROMPT, before)).toHaveLength(2)
      const log = logOf(sessionID)
      expect(log.some((l) => /context window full/.test(l))).toBe(true)
      expect(log.some((l) => /context window has room again \(the host compacted the context\)/.test(l))).toBe(true)
      // Nothing of ours was asked of the host: it compacted by itself.
      expect(log.some((l) => /asking the host to compact/.test(l))).toBe(false)
    },
    60_000,
  )

  test(
    "control: while the host's compaction has not ended, the latch holds",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      // The host's summary request hangs, and hangs again when the host retries it.
      provider.enqueue(OVERFLOW)
      provider.setFallback(hangAfter("Summary: "))
      await promptAsync(host, sessionID, "say hi with bash")
      expect(await eventually(() => provider.requests.slice(before).some((r) => r.lastUserText.includes(SUMMARY_REQUEST)), 20_000)).toBe(true)
      // Past the stall budget: the watchdog looked and held; no prompt of ours went out.
      await sleep(STALL_ACT_MS + AFTER_HOLD_MS)
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(logOf(sessionID).some((l) => /held: the context window is full; waiting for its compaction/.test(l))).toBe(true)
      provider.setFallback(text("ok"))
      await abortSession(host, sessionID)
      provider.releaseHangs("destroy")
      await quiet(provider, QUIET_MS, 15_000)
    },
    60_000,
  )

  test(
    "the host's compaction fails: ours once (summarize), then one continue that says so",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      // The overflow, the host's compaction overflowing too, our compaction, our continue.
      provider.enqueue(OVERFLOW, OVERFLOW, text("Summary: the user asked for hi."), text("continued after the compaction"))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "say hi with bash")

      expect(await eventually(async () => (await lastAssistantText(host, sessionID)) === "continued after the compaction", 30_000, 250)).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)
      const seen = provider.requests.slice(before)
      expect(seen.map((r) => r.step.kind)).toEqual(["httpError", "httpError", "text", "text"])
      expect(seen[2]!.lastUserText).toContain(SUMMARY_REQUEST)
      expect(seen[3]!.lastUserText).toContain("compacted into a summary")
      const log = logOf(sessionID)
      expect(log.filter((l) => /asking the host to compact it/.test(l))).toHaveLength(1)
      expect(log.some((l) => /the context was compacted; one continue/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "our compaction overflows too: one stand-down, nothing more until the user writes",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.setFallback(OVERFLOW)
      await promptAsync(host, sessionID, "say hi with bash")
      expect(await eventually(() => logOf(sessionID).some((l) => /context recovery stands down/.test(l)), 30_000, 250)).toBe(true)
      await quiet(provider, QUIET_MS, 15_000)
      // The user's turn, the host's compaction, ours: three requests, no continue of ours.
      expect(provider.requests.length - before).toBe(3)
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(logOf(sessionID).filter((l) => /stands down/.test(l))).toHaveLength(1)
      provider.setFallback(text("ok"))
    },
    60_000,
  )
})
