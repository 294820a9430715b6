/**
 * The orphan parent inside a real OpenCode 1.18.33 server, with the plugin from this checkout
 * and a scripted fake provider on 127.0.0.1: a parent whose `task` call waits on a subagent
 * that went silent past `subagentDeadMs` is aborted (the one open call the guard lets an abort
 * end) and resumed. The control, a parent waiting on a subagent that is working, is the
 * subagent test in failures.e2e.test.ts: left alone, and it picks the result up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { hangAfter, startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, type OpencodeHost } from "./harness/opencode-host.ts"
import { SHORT_BUDGETS, eventually, lastAssistantText, pluginMessages, quiet, sessionLog, startTwinHost, toolParts } from "./support.ts"

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  const options = {
    ...SHORT_BUDGETS,
    // The child's own stall recovery would revive it: here it must stay silent, so that only
    // the subagent path acts. (The parent is never stall-recovered while its task call is open.)
    busyStallStrategy: "off",
    // Read a silent child as dead as soon as it counts as stuck (60 s without output).
    subagentDeadMs: 10_000,
    injectIntervalMs: 0,
  }
  // (The twin provider goes unused: startTwinHost is the one-server helper of these files.)
  host = await startTwinHost(provider, "fakeother", options)
}, 90_000)

describe("orphan parent on OpenCode 1.18.33", () => {
  test(
    "a subagent silent past subagentDeadMs: the parent's open task call is aborted and the parent resumed",
    async () => {
      const parentID = await createSession(host)
      provider.enqueue(
        // parent: delegate
        toolCall("task", { description: "sub", prompt: "do x", subagent_type: "general" }),
        // child: starts answering, then the stream hangs for good
        hangAfter("Looking into it"),
        // parent: the turn our continue starts
        text("Parent resumed after the subagent died."),
      )
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, parentID, "delegate x to a subagent")

      const resumed = await eventually(async () => (await lastAssistantText(host, parentID)) === "Parent resumed after the subagent died.", 100_000, 500)
      expect(resumed).toBe(true)
      await quiet(provider, 1500, 10_000)

      const log = sessionLog(host, parentID)
      expect(log.some((l) => /orphan parent \(subagent \S+ silent for \d+s \(past subagentDeadMs\)\); abort \+ resume/.test(l))).toBe(true)
      expect(log.some((l) => /aborted the run \(send orphan-parent continue\)/.test(l))).toBe(true)
      expect(log.some((l) => /not done: tool "task" is running/.test(l))).toBe(false)
      const task = (await toolParts(host, parentID)).find((p) => p.tool === "task")
      expect(task?.state?.status).not.toBe("running")
      // One plugin message in the parent: the continue after the abort.
      expect(await pluginMessages(host, parentID)).toHaveLength(1)
      provider.releaseHangs("destroy")
    },
    150_000,
  )
})
