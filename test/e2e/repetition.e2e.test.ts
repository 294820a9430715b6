/**
 * A model that repeats itself while streaming (issue 17, part 1), inside a real OpenCode 1.18.33
 * server with the plugin from this checkout and the scripted fake provider on 127.0.0.1. Every
 * delta re-arms the stall budget, so only the repetition detector can see that this stream is
 * going nowhere: the run is aborted mid-stream and the repetition prompt is sent, once. The
 * control streams as long and as slowly, with sentences that are alike but not the same (a
 * numbered list of steps), and runs to its end untouched.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, type OpencodeHost } from "./harness/opencode-host.ts"
import { SHORT_BUDGETS, eventually, lastAssistantText, pluginMessages, quiet, sessionLog, startTwinHost } from "./support.ts"

const SENTENCE = "The build step failed again, so I will run the build step once more to be sure. "
const COPIES = 160
const DELAY_MS = 20 // 160 chunks x 20 ms: about 3 s of stream, far longer than the detector needs (about 1 KB)

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startTwinHost(provider, "fakequick", SHORT_BUDGETS)
}, 90_000)

describe("a stream that repeats itself, on OpenCode 1.18.33", () => {
  test(
    "the same sentence streamed again and again: the run is aborted mid-stream and the repetition prompt sent once",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(text(SENTENCE.repeat(COPIES), { chunks: COPIES, delayMs: DELAY_MS }), text("I stopped repeating myself: the build passes now."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "fix the build")

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)).includes("the build passes now"), 40_000, 250)
      expect(answered).toBe(true)
      await quiet(provider, 2000, 15_000)

      expect(provider.requests.length).toBe(before + 2)
      expect(provider.requests[before + 1]!.lastUserText).toContain("repeated the same passage")
      expect(provider.requests[before + 1]!.lastUserText).toContain("The build step failed again")
      // The repeating stream was cut by the abort, not run to its end.
      expect(provider.requests[before]!.outcome).toBe("clientAborted")
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(sessionLog(host, sessionID).some((l) => /streamed output repeats itself: repetition/.test(l))).toBe(true)
    },
    60_000,
  )

  test(
    "control: as long a stream of alike but different steps runs to its end, with no abort and no prompt",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      const steps = Array.from({ length: COPIES }, (_, i) => `Step ${i + 1}: run the build for package ${i + 1} and note its result. `).join("")
      provider.enqueue(text(steps, { chunks: COPIES, delayMs: DELAY_MS }))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "list the build steps")

      const answered = await eventually(async () => (await lastAssistantText(host, sessionID)).includes(`Step ${COPIES}:`), 40_000, 250)
      expect(answered).toBe(true)
      await quiet(provider, 3000, 15_000)

      expect(provider.requests.length).toBe(before + 1)
      expect(provider.requests[before]!.outcome).toBe("completed")
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(sessionLog(host, sessionID).some((l) => /repeats itself/.test(l))).toBe(false)
    },
    60_000,
  )
})
