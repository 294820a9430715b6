/**
 * One pause file, several real OpenCode 1.18.33 servers (`opencode serve`, each its own process
 * and project folder, one shared XDG_CONFIG_HOME), each with the plugin from this checkout and
 * a short check interval (so a lease lapses in about 3 s):
 *
 * 1. A pause made in the first server survives a second server starting: the paused session's
 *    hung stream gets nothing. Restarting the first server (same data and config) lifts it.
 * 2. The first server killed with SIGKILL (no chance to clean up): the pause stays while its
 *    lease is valid and is dropped by the second server once the lease lapsed, not before.
 *
 * No timing assertions: the waits are generous bounds. Test 2 samples the file while waiting
 * and checks every sample against the lease's own validity; the figures are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { hangAfter, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { AFTER_HOLD_MS, PLUGIN_URL, SHORT_BUDGETS, STALL_ACT_MS, autoResumeLog, eventually, pluginPromptRequests, sleep, warmUp } from "./support.ts"
const REPO = path.resolve(import.meta.dir, "..", "..")
const BIN = path.join(REPO, "bin", "auto-resume-toggle.mjs")

let provider: FakeProvider
const keptRoots: string[] = []

registerOpencodeCleanup(afterAll, () => {
  provider?.stop()
  for (const root of keptRoots) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 })
})

beforeAll(async () => {
  provider = await startFakeProvider()
}, 30_000)

type Lease = { id: string; pid?: number; at: number; ttlMs: number }
type PauseFile = { sessions: string[]; holds?: Array<{ session: string; by?: string; at: number }>; leases?: Lease[] }

/** A server whose config folder (and so pause file) is `config`, or its own when undefined. */
async function server(config?: string, data?: string): Promise<OpencodeHost> {
  const env: Record<string, string> = {}
  if (config) env.XDG_CONFIG_HOME = config
  if (data) env.XDG_DATA_HOME = data
  const host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, SHORT_BUDGETS]], logLevel: "DEBUG", env, keepTemp: true })
  keptRoots.push(host.root)
  // The plugin is loaded with the instance (the harness's event stream boots it); wait for its first line.
  const started = await eventually(() => autoResumeLog(host).some((l) => /instance #\d+/.test(l)), 20_000, 100)
  if (!started) throw new Error(`the plugin did not start in ${host.directory}:\n${host.logs().slice(-30).join("\n")}`)
  return host
}

const readFile = (config: string): PauseFile => JSON.parse(fs.readFileSync(path.join(config, "opencode", "auto-resume.paused"), "utf8"))
const leaseOf = (file: PauseFile, pid: number) => file.leases?.find((l) => l.pid === pid)

function toggle(config: string, ...args: string[]) {
  return spawnSync("node", [BIN, ...args], { encoding: "utf8", timeout: 30_000, env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: config } })
}

/** `/auto-resume off` the way the TUI sends it; waits for the local reply turn to settle. */
async function pauseFromChat(host: OpencodeHost, sessionID: string): Promise<void> {
  const mark = host.events.mark()
  const r = await host.client.session.command({ path: { id: sessionID }, body: { command: "auto-resume", arguments: "off" } as any })
  expect(r.response?.status).toBe(200)
  await waitForIdle(host, sessionID, 15_000, mark)
}

/**
 * A session with one finished turn. The server is warmed up first: a fresh server's first
 * prompt takes seconds before its request (more on a loaded machine), past SHORT_BUDGETS' stall
 * budget, and the watchdog then aborts it and queues a continue (seen: "stall detected
 * phase=idle silent=4s"), so the session would be busy again when `/auto-resume off` comes.
 */
async function idleSession(host: OpencodeHost): Promise<string> {
  await warmUp(host, provider)
  const sessionID = await createSession(host)
  provider.enqueue(text("Hello there."))
  await promptAsync(host, sessionID, "hello")
  await waitForIdle(host, sessionID, 30_000)
  return sessionID
}

describe("one pause file shared by several OpenCode 1.18.33 servers", () => {
  test(
    "a pause survives another server starting (the paused session gets nothing) and a restart of its own server lifts it",
    async () => {
      const first = await server()
      const config = path.join(first.root, "config")
      const sessionID = await idleSession(first)
      await pauseFromChat(first, sessionID)
      const held = readFile(config)
      expect(held.sessions).toEqual([sessionID])
      const holder = leaseOf(held, first.pid)
      expect(holder).toBeDefined()
      expect(held.holds).toEqual([expect.objectContaining({ session: sessionID, by: holder!.id })])

      // Another OpenCode starts in another project with the same config folder.
      const second = await server(config)
      await eventually(() => leaseOf(readFile(config), second.pid) !== undefined, 10_000, 100)
      expect(readFile(config).sessions).toEqual([sessionID])
      expect(autoResumeLog(second).some((l) => l.includes(sessionID))).toBe(false)

      // The paused session's stream hangs: nothing is sent to it while the second server runs.
      // Judged once the first server's watchdog held the stall (past its budget) and looked
      // again a few times (AFTER_HOLD_MS), with the hung request still open: not aborted either.
      const heldLines = () => autoResumeLog(first).filter((l) => l.includes(sessionID) && /stall recovery held: paused/.test(l)).length
      const heldBefore = heldLines()
      const before = provider.requests.length
      provider.enqueue(hangAfter("Working on it"))
      provider.setFallback(text("Recovered."))
      await promptAsync(first, sessionID, "do the long thing")
      await provider.waitForRequests(before + 1, 15_000)
      await eventually(() => heldLines() > heldBefore, STALL_ACT_MS + 15_000, 100)
      await sleep(AFTER_HOLD_MS)
      expect(provider.requests.length).toBe(before + 1)
      expect(pluginPromptRequests(provider, before)).toHaveLength(0)
      expect(provider.requests[before]!.outcome).toBe("pending")
      expect(autoResumeLog(first).some((l) => l.includes(sessionID) && /stall recovery held: paused/.test(l))).toBe(true)
      expect(readFile(config).sessions).toEqual([sessionID])

      // The CLI says who holds it.
      const status = toggle(config, sessionID, "status")
      expect(status.status).toBe(0)
      expect(status.stdout).toContain(`${sessionID}: paused`)
      expect(status.stdout).toContain(`held by the OpenCode process pid ${first.pid}`)

      // Restart the first server (same data and config); the second is gone first, so only the
      // restarted server can be what lifts the pause.
      await second.stop()
      await first.stop()
      expect(readFile(config).sessions).toEqual([sessionID])
      // Informational: whether the stopped server removed its lease at exit, or left it to lapse.
      console.log(`[pause-shared] after SIGTERM the first server's lease is ${leaseOf(readFile(config), first.pid) ? "still in the file (it lapses)" : "removed (normal exit)"}`)
      const restarted = await server(config, path.join(first.root, "data"))
      const lifted = await eventually(() => readFile(config).sessions.length === 0, 20_000, 100)
      expect(lifted).toBe(true)
      expect(toggle(config, sessionID, "status").stdout.trim()).toBe(`${sessionID}: not paused`)
      const dropLine = (l: string) => l.includes(`dropped the pause of session ${sessionID}`)
      expect(await eventually(() => autoResumeLog(restarted).some(dropLine), 10_000, 100)).toBe(true)
      console.log(`[pause-shared] restarted server: ${autoResumeLog(restarted).find(dropLine)}`)
      await restarted.stop()
    },
    180_000,
  )

  test(
    "the first server killed with SIGKILL: its pause is dropped once its lease lapsed, not before",
    async () => {
      const first = await server()
      const config = path.join(first.root, "config")
      const second = await server(config)
      const sessionID = await idleSession(first)
      await pauseFromChat(first, sessionID)
      await eventually(() => leaseOf(readFile(config), second.pid) !== undefined, 10_000, 100)

      process.kill(-first.pid, "SIGKILL")
      await eventually(() => first.exited(), 10_000, 20)
      const killedAt = Date.now()
      // Nothing removed the lease: the process had no chance to.
      const lease = leaseOf(readFile(config), first.pid)
      expect(lease).toBeDefined()
      const lapsesAt = lease!.at + lease!.ttlMs

      // Sample the file until the pause is gone; every sample taken while the lease was still
      // valid must show the pause.
      const samples: Array<{ at: number; paused: boolean }> = []
      const deadline = Date.now() + 30_000
      while (Date.now() < deadline) {
        const paused = readFile(config).sessions.includes(sessionID)
        samples.push({ at: Date.now(), paused })
        if (!paused) break
        await sleep(50)
      }
      const goneAt = samples.at(-1)!
      expect(goneAt.paused).toBe(false)
      const early = samples.filter((s) => s.at < lapsesAt && !s.paused)
      expect(early).toEqual([])
      expect(samples.filter((s) => s.at < lapsesAt).length).toBeGreaterThan(0)
      // The log line travels through the host's log API: it may land just after the file changed.
      const dropLine = (l: string) => l.includes(`dropped the pause of session ${sessionID}`) && l.includes(`pid ${first.pid}`)
      expect(await eventually(() => autoResumeLog(second).some(dropLine), 10_000, 100)).toBe(true)
      console.log(`[pause-shared] ${autoResumeLog(second).find(dropLine)}`)
      console.log(
        `[pause-shared] SIGKILL at +0 ms; lease last refreshed ${killedAt - lease!.at} ms before, valid ${lease!.ttlMs} ms; ` +
          `lapsed at +${lapsesAt - killedAt} ms; pause seen gone at +${goneAt.at - killedAt} ms; ${samples.length} samples`,
      )
      await second.stop()
      await first.stop()
    },
    180_000,
  )
})
