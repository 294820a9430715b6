/**
 * Rate limits, tool loops, unknown tools and subagents (issue 4), proven inside a real
 * OpenCode 1.18.33 server with the plugin loaded from this checkout and a scripted fake
 * provider on 127.0.0.1. One server for the file; a new session per scenario.
 *
 * Two providers point at the same fake endpoint: sessions on `fake` run with the default
 * options (apart from the short budgets below), sessions on `fakequick` with
 * `activeUserWindowMs: 0`. The unknown-tool suggestion is an idle rule that runs after the
 * finished-turn judge, and the judge stands the whole turn down while the user's prompt is
 * younger than that window (five minutes by default), so today the suggestion is only
 * observable on `fakequick` (reported as a plugin bug: a wrong tool name is a malfunction,
 * not a model that stopped by choice).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { httpError, startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { abortSession, createSession, messages, promptAsync, registerOpencodeCleanup, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import {
  SHORT_BUDGETS,
  eventually,
  lastAssistantText,
  pluginMessages,
  pluginPromptRequests,
  quiet,
  requestsWithUserText,
  sleep,
  toolParts,
  sessionLog,
  startTwinHost,
} from "./support.ts"

const QUICK = "fakequick"
const QUICK_MODEL = { providerID: QUICK, modelID: "fake-model" }
const COOLDOWN_MS = 1500
const SETTLE_MS = 300

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  const options = {
    ...SHORT_BUDGETS,
    toolTextCheckDelayMs: SETTLE_MS,
    // Two rungs, so "one continue per rung, then silence" fits in a few seconds.
    rateLimitCooldownsMs: [COOLDOWN_MS, COOLDOWN_MS],
    // The least gap between two plugin messages to one session (default 5 s) is longer than
    // these cooldowns: left at the default, it refuses the second rung's continue.
    injectIntervalMs: 0,
    // Short, so that a parent wrongly read as orphaned would be aborted while its child runs.
    subagentWaitMs: 1000,
    modelProfiles: { [QUICK]: { activeUserWindowMs: 0 } },
  }
  host = await startTwinHost(provider, QUICK, options)
}, 90_000)

const logOf = (sessionID: string) => sessionLog(host, sessionID)
const logged = (sessionID: string, re: RegExp) => logOf(sessionID).filter((l) => re.test(l)).length

/** Stops whatever a scenario may still have in flight, so nothing of it eats the next script. */
async function discard(sessionID: string): Promise<void> {
  provider.setFallback(text("discarded."))
  await host.client.session.delete({ path: { id: sessionID } })
  await quiet(provider, 800, 10_000)
}

function errorEvents(sessionID: string, since: number) {
  return host.events.since(since, sessionID).filter((e) => e.type === "session.error")
}

/** `/auto-resume status`, answered inside the plugin (no provider request). */
async function statusReport(sessionID: string): Promise<string> {
  const mark = host.events.mark()
  const r = await host.client.session.command({ path: { id: sessionID }, body: { command: "auto-resume", arguments: "status" } as any })
  await waitForIdle(host, sessionID, 15_000, mark)
  return ((r.data as any)?.parts ?? []).filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
}

describe("rate limits on OpenCode 1.18.33", () => {
  test(
    "429 forever: OpenCode's retries run out, the plugin waits each rung, sends one continue per rung without spending budget, then stays silent",
    async () => {
      const sessionID = await createSession(host)
      const mark = host.events.mark()
      provider.setFallback(httpError(429, { retryAfterMs: 50 }))
      await promptAsync(host, sessionID, "hello")

      const pastLadder = await eventually(() => logged(sessionID, /rate limited past the cooldown ladder; silent until the user writes/) > 0, 45_000, 200)
      expect(pastLadder).toBe(true)
      const atLadderEnd = provider.requests.length
      await sleep(COOLDOWN_MS + 1000)

      // OpenCode retried by itself and gave up three times: the user's turn and one per rung.
      const errors = errorEvents(sessionID, mark)
      expect(errors).toHaveLength(3)
      for (const e of errors) {
        expect(e.properties.error.name).toBe("APIError")
        expect(e.properties.error.data.statusCode).toBe(429)
      }
      const retries = host.events.since(mark, sessionID).filter((e) => e.type === "session.status" && e.properties.status?.type === "retry")
      expect(retries.length).toBeGreaterThanOrEqual(3)

      // Exactly one continue per rung, each sent after its wait.
      const own = await pluginMessages(host, sessionID)
      const ownText = own.map((m) => m.parts.map((p: any) => p.text ?? "").join(""))
      expect(ownText).toHaveLength(2)
      expect(ownText[0]).toContain("rate limit was hit once")
      expect(ownText[1]).toContain("rate limit was hit 2 times")
      expect(logged(sessionID, /rate limited \(HTTP 429\); hit 1, waiting until/)).toBe(1)
      expect(logged(sessionID, /rate-limit wait over \(hit 1\); one continue/)).toBe(1)
      expect(logged(sessionID, /rate limited \(HTTP 429\); hit 2, waiting until/)).toBe(1)
      expect(logged(sessionID, /rate-limit wait over \(hit 2\); one continue/)).toBe(1)
      // In this order: each continue only after its wait, silence only after the last rung.
      const lines = logOf(sessionID)
      const at = (re: RegExp) => lines.findIndex((l) => re.test(l))
      const order = [/hit 1, waiting until/, /wait over \(hit 1\)/, /hit 2, waiting until/, /wait over \(hit 2\)/, /past the cooldown ladder/].map(at)
      expect(order).toEqual([...order].sort((a, b) => a - b))
      // Not treated as a broken stream (APIError is a streaming name) and not as a stall.
      expect(logged(sessionID, /streaming failure|continue sent/)).toBe(0)

      // No continue budget spent: each continue says so, and so does the status report.
      for (const t of ownText) expect(t).toContain("not counted against the continue budget")
      // Past the ladder: nothing more.
      expect(provider.requests.length).toBe(atLadderEnd)
      const before = provider.requests.length
      const report = await statusReport(sessionID)
      expect(report).toMatch(/Budgets spent: retries 0\/\d+ in this stall; continues 0\/\d+ in the loop window; 0\/\d+ since the last user message/)
      expect(provider.requests.length).toBe(before)
      await discard(sessionID)
    },
    60_000,
  )

  // What 1.18.33 reports for this ESC depends on the instant (measured): during its retry sleep
  // the assistant message completes with neither finish nor error, then a plain idle (no
  // MessageAbortedError, so the plugin cannot tell it from any other end of a turn); with a
  // request in flight, session.error MessageAbortedError. Either way the ladder only moves on
  // a 429 the host gave up on, so no further continue may follow.
  test(
    "ESC while OpenCode retries the first rung's continue: nothing at the end of the next cooldown",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      // The user's turn fails fast (OpenCode tries 6 times: measured); the continue's retries
      // are slower, which leaves room to press ESC while OpenCode is still retrying.
      for (let i = 0; i < 6; i++) provider.enqueue(httpError(429, { retryAfterMs: 50 }))
      provider.setFallback(httpError(429, { retryAfterMs: 400 }))
      await promptAsync(host, sessionID, "hello again")

      const rung = await eventually(() => requestsWithUserText(provider, "rate limit was hit once", before).length > 0, 30_000, 25)
      expect(rung).toBe(true)
      const mark = host.events.mark()
      await abortSession(host, sessionID)
      await waitForIdle(host, sessionID, 10_000, mark)
      await quiet(provider, 500, 5_000)
      const afterEsc = provider.requests.length
      await sleep(COOLDOWN_MS + 1000)

      expect(provider.requests.length).toBe(afterEsc)
      // The rung's continue is the only thing the plugin sent; OpenCode never gave up on it.
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      const after = errorEvents(sessionID, mark).map((e) => e.properties.error?.name)
      expect(after.filter((name) => name !== "MessageAbortedError")).toEqual([])
      expect(logged(sessionID, /hit 2|wait over \(hit 2\)|streaming failure|continue sent/)).toBe(0)
      await discard(sessionID)
    },
    60_000,
  )

  // FAILS TODAY (kept as a marker, see the report): during the plugin's own cooldown the
  // session is idle. OpenCode 1.18.33 answers an abort of an idle session with a bare
  // `session.status idle` + `session.idle` and no MessageAbortedError, so the plugin never
  // learns of it and sends the rung's continue anyway. (The TUI disables ESC while idle.)
  test.failing(
    "ESC (session.abort) while the plugin's cooldown runs on the idle session: nothing at the end of the cooldown",
    async () => {
      const sessionID = await createSession(host)
      try {
        provider.setFallback(httpError(429, { retryAfterMs: 50 }))
        await promptAsync(host, sessionID, "hello once more")
        expect(await eventually(() => logged(sessionID, /hit 1, waiting until/) > 0, 30_000, 50)).toBe(true)
        await abortSession(host, sessionID)
        await sleep(COOLDOWN_MS + 1000)
        expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      } finally {
        await discard(sessionID)
      }
    },
    60_000,
  )
})

describe("tool misuse on OpenCode 1.18.33", () => {
  test(
    "the same call again and again: the live tracker aborts the turn and the tool-loop prompt reaches the provider",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      const same = { command: "sleep 0.3 && echo same", description: "x" }
      for (let i = 0; i < 8; i++) provider.enqueue(toolCall("bash", same))
      provider.setFallback(text("I will take a different approach."))
      await promptAsync(host, sessionID, "loop please")

      const recovered = await eventually(async () => (await lastAssistantText(host, sessionID)) === "I will take a different approach.", 45_000, 250)
      expect(recovered).toBe(true)
      await quiet(provider, 1000, 10_000)

      expect(logged(sessionID, /live tool loop: 6 calls repeating bash; aborting before the next call/)).toBe(1)
      expect(logged(sessionID, /aborted the run \(send tool-loop recovery\)/)).toBe(1)
      // The user's turn was cut short of the eight calls the model would have made...
      const userTurn = provider.requests.slice(before).filter((r) => r.lastUserText === "loop please")
      expect(userTurn.length).toBeLessThan(8)
      const history = await messages(host, sessionID)
      expect(history.some((m) => m.info.role === "assistant" && m.info.error?.name === "MessageAbortedError")).toBe(true)
      // ...and the next turn started from the plugin's tool-loop prompt.
      const loopPrompt = pluginPromptRequests(provider, before).filter((r) => r.lastUserText.includes("you have called the `bash` tool 6 times in a row"))
      expect(loopPrompt.length).toBeGreaterThanOrEqual(1)
      // One prompt for one loop: the idle scan must not prompt again over the calls the live
      // tracker already handled. (Today this holds only because the user-window stand-down
      // keeps the idle tool-loop rule from running at all; see the report.)
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      // The abort was the plugin's own: never mistaken for the user's ESC.
      expect(logged(sessionID, /cancelled by the user/)).toBe(0)
      await discard(sessionID)
    },
    60_000,
  )

  test(
    "a tool that does not exist, called twice: the suggestion names bash, and the model then uses it",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(
        toolCall("bassh", { command: "echo hi" }),
        toolCall("bassh", { command: "echo hi" }),
        text("That tool did not work."),
        toolCall("bash", { command: "echo hi", description: "x" }),
        text("The command printed hi."),
      )
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "run echo hi", { model: QUICK_MODEL })

      const fixed = await eventually(async () => (await lastAssistantText(host, sessionID)) === "The command printed hi.", 30_000, 250)
      expect(fixed).toBe(true)
      await quiet(provider, 6 * SETTLE_MS, 10_000)

      const asked = pluginPromptRequests(provider, before).filter((r) => r.lastUserText.includes("there is no tool called `bassh`"))
      expect(asked.length).toBeGreaterThanOrEqual(1)
      expect(asked[0]!.lastUserText).toContain("you have tried it 2 times")
      expect(asked[0]!.lastUserText).toContain("Did you mean `bash`?")
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logged(sessionID, /unknown-tool: called missing tool "bassh" 2 times; closest: bash -> send/)).toBe(1)
      const bash = (await toolParts(host, sessionID)).filter((p) => p.tool === "bash")
      expect(bash.map((p) => p.state.status)).toEqual(["completed"])
      expect(provider.requests.length).toBe(before + 5)
    },
    60_000,
  )

  test(
    "control: one call to a tool that does not exist gets no suggestion",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(toolCall("bassh", { command: "echo hi" }), text("That tool did not work."))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "run echo hi once", { model: QUICK_MODEL })
      await waitForIdle(host, sessionID, 20_000)
      await quiet(provider, 6 * SETTLE_MS, 10_000)

      expect(provider.requests.length).toBe(before + 2)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logged(sessionID, /unknown-tool/)).toBe(0)
    },
    60_000,
  )
})

describe("subagents on OpenCode 1.18.33", () => {
  test(
    "a parent waiting on a running subagent (task tool) is not interrupted, and picks up the child's result",
    async () => {
      const parentID = await createSession(host)
      const before = provider.requests.length
      provider.enqueue(
        // parent: delegate
        toolCall("task", { description: "sub", prompt: "do x", subagent_type: "general" }),
        // child: a command that keeps it busy for longer than the parent's stall budget
        toolCall("bash", { command: "sleep 4 && echo child-slept", description: "wait" }),
        // child: its answer, which becomes the task result
        text("Child finished: child-slept."),
        // parent: after the task returned
        text("Parent done."),
      )
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, parentID, "delegate x to a subagent")

      const done = await eventually(async () => (await lastAssistantText(host, parentID)) === "Parent done.", 45_000, 250)
      expect(done).toBe(true)
      await quiet(provider, 1000, 10_000)

      const task = (await toolParts(host, parentID)).find((p) => p.tool === "task")
      expect(task?.state?.status).toBe("completed")
      expect(String(task?.state?.output)).toContain("Child finished: child-slept.")
      const childID: string = task?.state?.metadata?.sessionId
      expect(childID).toBeString()
      const child = await host.client.session.get({ path: { id: childID } })
      expect((child.data as any)?.parentID).toBe(parentID)
      const childBash = (await toolParts(host, childID)).find((p) => p.tool === "bash")
      expect(childBash?.state?.status).toBe("completed")

      // The plugin saw the parent go quiet while the child worked, and left it alone.
      expect(logged(parentID, /stall recovery held: tool phase: tool "task"/)).toBeGreaterThanOrEqual(1)
      expect(logged(parentID, /orphan parent|abort \+ resume|continue sent/)).toBe(0)
      expect(logged(childID, /continue sent|nudging the subagent/)).toBe(0)
      // Nothing from the plugin reached either session or the provider.
      expect(await pluginMessages(host, parentID)).toHaveLength(0)
      expect(await pluginMessages(host, childID)).toHaveLength(0)
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(provider.requests.length).toBe(before + 4)
    },
    60_000,
  )
})
