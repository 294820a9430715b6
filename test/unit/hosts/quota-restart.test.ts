/**
 * Rate-limit waits kept in the wait file, through each adapter (1.x hooks, 2.x on the fake
 * host) with a real temp folder: a 429 the host gave up on lands in the file, the host disposing
 * the plugin takes it out (a replaced instance does not), and a starting plugin resumes a wait a
 * dead process left for its folder, while a live process's wait is left alone.
 */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { CarriedWait } from "../../../src/core/carried-waits.ts"
import { startV1 } from "../../../src/host/v1/adapter.ts"
import { replyFromPromptText } from "../../../src/host/v1/command-model.ts"
import { processStartedAt, selfOwner } from "../../../src/stores/wait-file.ts"
import type { PauseSource } from "../../../src/core/pauses.ts"
import { FakePauses } from "../pause/helpers.ts"
import { FakeV1Host, SID as V1_SID, flush } from "../v1/rig.ts"
import { makeV2, SID as V2_SID, sends } from "../v2/harness.ts"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function stateDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quota-restart-"))
  dirs.push(dir)
  const file = path.join(dir, "opencode", "auto-resume.rate-waits.json")
  return {
    env: { XDG_CONFIG_HOME: dir },
    file,
    waits: (): CarriedWait[] => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")).waits : []),
    write(waits: CarriedWait[]) {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, JSON.stringify({ waits }), { mode: 0o600 })
    },
  }
}

/** A process that is gone: a pid far above any in use. */
const deadOwner = { pid: 4_000_000 + (process.pid % 1000), startedAt: 1, host: selfOwner().host }
/** A process that runs: pid 1, with its real start. */
const liveOwner = { pid: 1, startedAt: processStartedAt(1) ?? 0, host: selfOwner().host }
const OPTIONS = { rateLimitCooldownsMs: [60_000], injectIntervalMs: 0 }

function v1(env: Record<string, string>, host = new FakeV1Host(), pauses: PauseSource = host.pauses) {
  const plugin = startV1({ client: host.client, directory: host.directory }, OPTIONS, env, { time: host.time, pauses, rateWaitFile: true })
  host.plugins.push(plugin)
  return { host, plugin }
}

function v1RateLimited(host: FakeV1Host) {
  host.userTurn(V1_SID)
  host.event("session.error", { sessionID: V1_SID, error: { name: "APIError", data: { message: "Rate limit exceeded", statusCode: 429 } } })
  host.endRun(V1_SID)
}

const continues = (host: FakeV1Host) => host.prompts.filter((p) => JSON.stringify(p.parts).includes("rate limit was hit"))

describe("1.x: the wait file through the adapter", () => {
  test("a 429 the host gave up on is in the file; the dispose hook (a clean exit) takes it out", async () => {
    const s = stateDir()
    const { host, plugin } = v1(s.env)
    v1RateLimited(host)
    await host.advance(1000)
    expect(s.waits()).toMatchObject([{ sessionID: V1_SID, rung: 1, agent: "build", directory: host.directory, owner: { pid: process.pid } }])
    expect(fs.statSync(s.file).mode & 0o777).toBe(0o600)
    await plugin.hooks.dispose?.()
    expect(s.waits()).toEqual([])
  })

  test("negative control: an instance replaced by another of the same process leaves its wait in the file, and the new one resumes it", async () => {
    const s = stateDir()
    const { host } = v1(s.env)
    v1RateLimited(host)
    await host.advance(1000)
    v1(s.env, host)
    await host.advance(1000)
    expect(s.waits()).toHaveLength(1)
    await host.advance(60_000)
    expect(continues(host)).toHaveLength(1)
  })

  test("a dead process's wait for this folder resumes with its remaining time: one continue with its agent and model", async () => {
    const s = stateDir()
    const host = new FakeV1Host()
    const now = host.time.now()
    s.write([{ sessionID: V1_SID, rung: 1, until: now + 30_000, since: now - 30_000, directory: host.directory, agent: "plan", model: { providerID: "openai", modelID: "gpt-y" }, owner: deadOwner }])
    v1(s.env, host)
    await host.advance(1000)
    expect(host.logged(/rate-limit wait carried over from a restart \(hit 1\); until .* left/)).toBe(true)
    expect(s.waits()[0]).toMatchObject({ owner: { pid: process.pid }, carriedOver: true })
    await host.advance(27_000)
    expect(continues(host)).toHaveLength(0)
    await host.advance(3000)
    expect(continues(host)).toHaveLength(1)
    expect(continues(host)[0]!.body).toMatchObject({ agent: "plan", model: { providerID: "openai", modelID: "gpt-y" } })
    await host.advance(120_000)
    expect(continues(host)).toHaveLength(1)
    expect(s.waits()).toEqual([])
  })

  test("/auto-resume status through the plugin's hooks says the wait was carried over from a restart", async () => {
    const s = stateDir()
    const host = new FakeV1Host()
    const now = host.time.now()
    s.write([{ sessionID: V1_SID, rung: 1, until: now + 600_000, directory: host.directory, owner: deadOwner }])
    // A store the slash command can write to, so the plugin registers it.
    const { plugin } = v1(s.env, host, new FakePauses())
    await host.advance(1000)
    const hooks = plugin.hooks as Record<string, (...args: unknown[]) => Promise<void>>
    await hooks.config!({ enabled_providers: ["fake"], provider: { fake: {} } })
    const output = { parts: [{ type: "text", text: "/auto-resume status" }] as { type: string; text: string }[] }
    await hooks["command.execute.before"]!({ command: "auto-resume", sessionID: V1_SID, arguments: "status" }, output)
    expect(replyFromPromptText(output.parts[0]!.text)).toMatch(/Waiting for the rate limit \(carried over from a restart\) until .* \(hit 1\)/)
    plugin.stop("test over")
  })

  test("negative control: a live process's wait, or another folder's, is left alone", async () => {
    const s = stateDir()
    const host = new FakeV1Host()
    const now = host.time.now()
    s.write([
      { sessionID: V1_SID, rung: 1, until: now + 1000, directory: host.directory, owner: liveOwner },
      { sessionID: "ses_other", rung: 1, until: now + 1000, directory: "/somewhere/else", owner: deadOwner },
    ])
    v1(s.env, host)
    await host.advance(120_000)
    expect(continues(host)).toHaveLength(0)
    expect(s.waits().map((w) => w.owner.pid)).toEqual([liveOwner.pid, deadOwner.pid])
  })
})

describe("2.x: the wait file through the adapter", () => {
  const rig = (env: Record<string, string>) => makeV2({ env, options: OPTIONS, deps: { rateWaitFile: true } })

  test("a provider.rate-limit failure is in the file; the setup's cleanup (a clean exit) takes it out", async () => {
    const s = stateDir()
    const r = rig(s.env)
    r.host.userTurn(V2_SID)
    r.host.textDelta(V2_SID)
    r.host.failRun(V2_SID, { type: "provider.rate-limit", message: "429", status: 429 })
    await r.advance(2000)
    expect(s.waits()).toMatchObject([{ sessionID: V2_SID, rung: 1, directory: "/work/project" }])
    r.instance.stop("cleanup")
    expect(s.waits()).toEqual([])
  })

  test("a dead process's wait resumes: one continue after the remaining time; negative control: none before", async () => {
    const s = stateDir()
    // The rig's simulated clock starts here; the fake host runs in /work/project.
    const start = Date.UTC(2026, 0, 1, 12)
    s.write([{ sessionID: V2_SID, rung: 1, until: start + 30_000, directory: "/work/project", owner: deadOwner }])
    const r = rig(s.env)
    await r.advance(28_000)
    expect(r.logged(/rate-limit wait carried over from a restart/)).toBe(true)
    expect(sends(r.host)).toBe(0)
    await r.advance(5000)
    expect(sends(r.host)).toBe(1)
    await r.advance(120_000, 10_000)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })
})
