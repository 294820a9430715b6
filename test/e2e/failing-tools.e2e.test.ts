/**
 * Tools that keep failing (issue 29 part 2), inside a real OpenCode 1.18.33 server with the
 * plugin from this checkout and the scripted fake provider on 127.0.0.1. The scripted model
 * calls `read` on three different paths that do not exist (1.18 really fails each call), then
 * ends its turn: one quiet correction names `read`, its error and what to do instead, and reaches
 * the provider. Its controls: two failed reads, three failures of three different tools, and
 * three reads the user's own permission rule denies, each get nothing.
 *
 * The permission rule: `read` of any path with "forbidden" in it is denied by the config
 * (1.18: DeniedError, "The user has specified a rule which prevents you ..."), the way a user
 * keeps the model out of a folder.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { startFakeProvider, text, toolCall, type FakeProvider } from "./harness/fake-provider.ts"
import { completedTool, failedTool } from "../../src/host/signals.ts"
import { abortSession, createSession, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { PLUGIN_URL, SHORT_BUDGETS, eventually, lastAssistantText, pluginMessages, pluginPromptRequests, quiet, sessionLog, toolParts, warmUp } from "./support.ts"

const SETTLE_MS = 300

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({
    providerUrl: provider.url,
    plugins: [[PLUGIN_URL, { ...SHORT_BUDGETS, toolTextCheckDelayMs: SETTLE_MS }]],
    configExtra: { permission: { "*": "allow", read: { "*": "allow", "*forbidden*": "deny" } } },
    logLevel: "DEBUG",
  })
  await warmUp(host, provider)
}, 90_000)

const read = (path: string) => toolCall("read", { filePath: path })
const logged = (sessionID: string, re: RegExp) => sessionLog(host, sessionID).filter((l) => re.test(l)).length

/** Runs one scripted turn to its end and waits until the plugin has had its look at it. */
async function turn(steps: Parameters<FakeProvider["enqueue"]>, prompt: string): Promise<{ sessionID: string; before: number }> {
  const sessionID = await createSession(host)
  const before = provider.requests.length
  provider.enqueue(...steps)
  provider.setFallback(text("I will look for the right path first."))
  await promptAsync(host, sessionID, prompt)
  await waitForIdle(host, sessionID, 30_000)
  return { sessionID, before }
}

describe("tools that keep failing, on OpenCode 1.18.33", () => {
  test(
    "three reads of paths that do not exist: one correction names read, its error and what to do instead",
    async () => {
      const { sessionID, before } = await turn(
        [read("src/missing-parser-1.ts"), read("src/missing-parser-2.ts"), read("src/missing-parser-3.ts"), text("I could not find the parser file.")],
        "fix the parser",
      )
      const corrected = await eventually(async () => (await lastAssistantText(host, sessionID)) === "I will look for the right path first.", 20_000, 250)
      expect(corrected).toBe(true)
      await quiet(provider, 6 * SETTLE_MS, 10_000)

      // 1.18 failed each read (an error part), so the plugin saw three failures, not a loop.
      const reads = (await toolParts(host, sessionID)).filter((p) => p.tool === "read")
      expect(reads.map((p) => p.state.status)).toEqual(["error", "error", "error"])
      const asked = pluginPromptRequests(provider, before)
      expect(asked).toHaveLength(1)
      expect(asked[0]!.lastUserText).toContain("`read` has failed 3 times in a row; last error:")
      expect(asked[0]!.lastUserText).toContain("missing-parser-3.ts")
      expect(asked[0]!.lastUserText).toContain("List the folder")
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      expect(logged(sessionID, /failing-tool: read failed 3x in a row .* -> send/)).toBe(1)
      expect(logged(sessionID, /tool loop/)).toBe(0)
      expect(provider.requests.length).toBe(before + 5)
    },
    60_000,
  )

  test(
    "control: two failed reads get nothing",
    async () => {
      const { sessionID, before } = await turn([read("src/missing-a.ts"), read("src/missing-b.ts"), text("I could not find the file.")], "read the file")
      await quiet(provider, 6 * SETTLE_MS + 4_000, 15_000)
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logged(sessionID, /failing-tool/)).toBe(0)
      expect(provider.requests.length).toBe(before + 3)
    },
    60_000,
  )

  test(
    "control: a failed read, a failed edit and a failed command, one each, get nothing",
    async () => {
      const { sessionID, before } = await turn(
        [
          read("src/missing-c.ts"),
          toolCall("edit", { filePath: "src/missing-d.ts", oldString: "a", newString: "b" }),
          toolCall("bash", { command: "test -f src/missing-e.ts", description: "check" }),
          text("None of that worked."),
        ],
        "change the file",
      )
      await quiet(provider, 6 * SETTLE_MS + 4_000, 15_000)
      const statuses = (await toolParts(host, sessionID)).map((p) => `${p.tool}:${p.state.status}:${p.state.metadata?.exit ?? ""}`)
      // 1.18 fails the read and the edit; the command completes with its exit code in the metadata.
      expect(statuses).toEqual(["read:error:", "edit:error:", "bash:completed:1"])
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logged(sessionID, /failing-tool/)).toBe(0)
    },
    60_000,
  )

  test(
    "control: three reads the user's permission rule denies are the user's hand, not failures: nothing",
    async () => {
      const { sessionID, before } = await turn(
        [read("forbidden/one.ts"), read("forbidden/two.ts"), read("forbidden/three.ts"), text("I am not allowed to read those files.")],
        "read the forbidden files",
      )
      await quiet(provider, 6 * SETTLE_MS + 4_000, 15_000)
      const reads = (await toolParts(host, sessionID)).filter((p) => p.tool === "read")
      // 1.18 goes on after a rule denies a call: the model made all three, and each was denied.
      expect(reads).toHaveLength(3)
      for (const p of reads) {
        expect(p.state.status).toBe("error")
        expect(p.state.error).toContain("The user has specified a rule which prevents you")
      }
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(await pluginMessages(host, sessionID)).toHaveLength(0)
      expect(logged(sessionID, /failing-tool/)).toBe(0)
    },
    60_000,
  )

  test(
    "a command the user stops (ESC) is never read as the tool failing: 1.18 ends it completed with no exit code, or as an aborted error",
    async () => {
      const sessionID = await createSession(host)
      provider.enqueue(toolCall("bash", { command: "sleep 30", description: "long" }))
      provider.setFallback(text("unexpected extra turn"))
      await promptAsync(host, sessionID, "run the long command")
      expect(await eventually(async () => (await toolParts(host, sessionID)).some((p) => p.state.status === "running"), 20_000, 100)).toBe(true)
      await abortSession(host, sessionID)
      await waitForIdle(host, sessionID, 15_000)
      const ended = await eventually(async () => (await toolParts(host, sessionID)).some((p) => p.state.status === "completed" || p.state.status === "error"), 10_000, 100)
      expect(ended).toBe(true)
      const { state } = (await toolParts(host, sessionID)).find((p) => p.tool === "bash")
      // Two endings race on 1.18.33: the bash tool's own ("User aborted the command", exit null)
      // and the run's ("Tool execution aborted"-style error). Both read as no failure.
      const ending = state.status === "error" ? failedTool(String(state.error)) : completedTool(state.metadata, state.output)
      expect(["ok", "aborted"]).toContain(ending.outcome)
    },
    60_000,
  )

  test(
    "a command that exits non-zero the same way three times, with different arguments: one correction names bash",
    async () => {
      const { sessionID, before } = await turn(
        [
          toolCall("bash", { command: "test -f src/gen-1.ts", description: "check" }),
          toolCall("bash", { command: "test -f src/gen-2.ts", description: "check" }),
          toolCall("bash", { command: "test -f src/gen-3.ts", description: "check" }),
          text("The generated files are not there."),
        ],
        "check the generated files",
      )
      const corrected = await eventually(async () => (await lastAssistantText(host, sessionID)) === "I will look for the right path first.", 20_000, 250)
      expect(corrected).toBe(true)
      await quiet(provider, 6 * SETTLE_MS, 10_000)
      const asked = pluginPromptRequests(provider, before)
      expect(asked).toHaveLength(1)
      expect(asked[0]!.lastUserText).toContain("`bash` has failed 3 times in a row; last error: \"exit code 1: (no output)\"")
      expect(asked[0]!.lastUserText).toContain("change approach")
      expect(await pluginMessages(host, sessionID)).toHaveLength(1)
    },
    60_000,
  )
})
