/**
 * Pausing, proven inside a real OpenCode 1.18.33 server with a scripted fake provider:
 * `/auto-resume off|on|status` through `POST /session/{id}/command`, and the
 * `auto-resume-toggle` CLI run as a separate process (plain Node) against the same marker file.
 *
 * One server for the file, a new session per scenario. No timing assertions: the waits are
 * generous bounds, and "nothing happened" is judged once the watchdog has held the paused stall
 * (past the stall budget) and looked again several times, with the hung request still open.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { REPLY_PROVIDER_ID } from "../../src/host/v1/command-model.ts"
import { hangAfter, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { AFTER_HOLD_MS, PLUGIN_URL, SHORT_BUDGETS, STALL_ACT_MS, autoResumeLog, eventually, lastAssistantText, pluginPromptRequests, sleep } from "./support.ts"
const REPO = path.resolve(import.meta.dir, "..", "..")
const BIN = path.join(REPO, "bin", "auto-resume-toggle.mjs")

// Until src/host/v1/adapter.ts wires the pause store and the command hooks, load a fixture
// that adds exactly that wiring to the real adapter.
const PLUGIN = PLUGIN_URL

let provider: FakeProvider
let host: OpencodeHost
let pauseFile: string

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN, SHORT_BUDGETS]], logLevel: "DEBUG" })
  pauseFile = path.join(host.root, "config", "opencode", "auto-resume.paused")
}, 60_000)

type CommandResult = { status: number | undefined; data: any; error: any }

/** Runs `/auto-resume <args>` the way the TUI does, and waits for the session to settle. */
async function command(sessionID: string, args: string, waitIdle: boolean): Promise<CommandResult> {
  const mark = host.events.mark()
  const r = await host.client.session.command({ path: { id: sessionID }, body: { command: "auto-resume", arguments: args } as any })
  // The reply turn's session.idle can arrive just after the HTTP answer: wait for it, so that
  // it is not taken for the idle of the next prompt.
  if (waitIdle) await waitForIdle(host, sessionID, 15_000, mark)
  return { status: r.response?.status, data: r.data, error: r.error }
}

function replyText(result: CommandResult): string {
  return (result.data?.parts ?? []).filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
}

function toggle(...args: string[]) {
  return spawnSync("node", [BIN, ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? "", HOME: path.join(host.root, "home"), XDG_CONFIG_HOME: path.join(host.root, "config") },
  })
}

const heldLines = (sessionID: string) => autoResumeLog(host).filter((l) => l.includes(sessionID) && /stall recovery held: paused/.test(l)).length
const held = (sessionID: string) => heldLines(sessionID) > 0

describe("pausing on OpenCode 1.18.33", () => {
  test("the plugin wrote its lease into the pause file when it started", () => {
    const file = JSON.parse(fs.readFileSync(pauseFile, "utf8"))
    expect(file).toMatchObject({ version: 1, all: false, sessions: [] })
    expect(file.leases).toEqual([expect.objectContaining({ pid: host.pid, ttlMs: 3000 })])
    expect(fs.statSync(pauseFile).mode & 0o777).toBe(0o600)
  })

  test(
    "/auto-resume off, a hung stream gets no continue; /auto-resume on, it is recovered; /auto-resume status shows the counters",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      const titlesBefore = provider.titleRequests.length

      // off, on an idle session: answered by the plugin's local reply model, nothing reaches the provider.
      const off = await command(sessionID, "off", true)
      expect(off.status).toBe(200)
      expect(off.data.info.providerID).toBe(REPLY_PROVIDER_ID)
      expect(off.data.info.cost).toBe(0)
      expect(replyText(off)).toContain("auto-resume is paused for this session")
      expect(provider.requests.length).toBe(before)
      expect(provider.titleRequests.length).toBe(titlesBefore)
      expect(JSON.parse(fs.readFileSync(pauseFile, "utf8")).sessions).toContain(sessionID)

      // A hung stream while paused: no continue.
      const heldBefore = heldLines(sessionID)
      provider.enqueue(hangAfter("Working on it"))
      provider.setFallback(text("Recovered after the resume."))
      await promptAsync(host, sessionID, "do the long thing")
      await provider.waitForRequests(before + 1, 15_000)
      // The command exchange is not part of what the real model is sent.
      const sent = JSON.stringify(provider.requests[before]!.body.messages)
      expect(sent).not.toContain("is paused for this session")
      // The stall is due after STALL_ACT_MS; the held line is the look that would have acted.
      await eventually(() => heldLines(sessionID) > heldBefore, STALL_ACT_MS + 15_000, 100)
      await sleep(AFTER_HOLD_MS)
      expect(provider.requests.length).toBe(before + 1)
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      // Not aborted either (an abort's continue would only come 5 s later).
      expect(provider.requests[before]!.outcome).toBe("pending")
      expect(held(sessionID)).toBe(true)

      // on, while the turn is still hung (busy): applied at once, shown as a toast, no message queued.
      const toastMark = host.events.mark()
      const on = await command(sessionID, "on", false)
      expect(on.status).toBe(500) // the hook stopped the command on purpose
      const toast = await host.events.waitForEvent((e) => e?.type === "tui.toast.show", 5_000, toastMark)
      expect(toast.properties.message).toContain("auto-resume is active again")
      // The stall that is still going on is now recovered.
      const recovered = await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered after the resume"), 30_000, 100)
      expect(recovered).toBe(true)
      expect(pluginPromptRequests(provider, before).length).toBeGreaterThanOrEqual(1)
      await eventually(async () => !(await host.client.session.status()).data?.[sessionID], 15_000, 200)

      // status: answered locally, with the counters of the recovery that just happened.
      const requestsBeforeStatus = provider.requests.length
      const status = await command(sessionID, "status", true)
      expect(status.status).toBe(200)
      const report = replyText(status)
      expect(report).toContain(`auto-resume for session ${sessionID}: active`)
      expect(report).toContain("State: idle; open tools: none")
      expect(report).toMatch(/Budgets spent: retries \d+\/\d+ in this stall; continues [1-9]\d*\/\d+ in the loop window; [1-9]\d*\/\d+ since the last user message/)
      expect(report).toMatch(/Profile: (fast|slow)/)
      expect(report).toMatch(/Last recovery: (continue|abort\+continue), .* ago .*because /)
      expect(provider.requests.length).toBe(requestsBeforeStatus)

      // An unknown argument answers with the usage line, no error in the host.
      const usage = await command(sessionID, "sideways", true)
      expect(usage.status).toBe(200)
      expect(replyText(usage)).toContain("Usage: /auto-resume")
      expect(provider.requests.length).toBe(requestsBeforeStatus)
    },
    120_000,
  )

  test(
    "the CLI, run as a separate process, pauses a live session and the plugin honours it",
    async () => {
      const sessionID = await createSession(host)
      provider.enqueue(text("Hello there."))
      await promptAsync(host, sessionID, "hello")
      await waitForIdle(host, sessionID, 20_000)

      const off = toggle(sessionID, "off")
      expect(off.stderr).toBe("")
      expect(off.status).toBe(0)
      expect(off.stdout.trim()).toBe(`${sessionID}: paused`)

      const before = provider.requests.length
      const heldBefore = heldLines(sessionID)
      provider.enqueue(hangAfter("Thinking hard"))
      provider.setFallback(text("Recovered once the CLI resumed."))
      await promptAsync(host, sessionID, "now the long part")
      await provider.waitForRequests(before + 1, 15_000)
      await eventually(() => heldLines(sessionID) > heldBefore, STALL_ACT_MS + 15_000, 100)
      await sleep(AFTER_HOLD_MS)
      expect(provider.requests.length).toBe(before + 1)
      expect(provider.requests[before]!.outcome).toBe("pending")
      expect(held(sessionID)).toBe(true)

      const on = toggle(sessionID, "on")
      expect(on.status).toBe(0)
      expect(on.stdout.trim()).toBe(`${sessionID}: not paused`)
      const recovered = await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered once the CLI resumed"), 30_000, 100)
      expect(recovered).toBe(true)
      expect(pluginPromptRequests(provider, before).length).toBeGreaterThanOrEqual(1)

      const bad = toggle(sessionID, "sometimes")
      expect(bad.status).toBe(2)
      expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    },
    120_000,
  )
})
