/**
 * Pausing on 2.x, through startV2 on the fake host with the production pause store (the
 * marker file under a scratch XDG_CONFIG_HOME): `/auto-resume` registered through
 * ctx.command.transform, answered without a model turn; `auto-resume-toggle <ses> off`
 * honoured at the next check interval; an injected store still works.
 */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { main as toggle } from "../../../src/cli/auto-resume-toggle.ts"
import { PAUSE_REPLY_KIND } from "../../../src/host/v2/command.ts"
import { classifyInboxItem, OwnSends, SeenMessages } from "../../../src/host/v2/user-turns.ts"
import type { FilePauses } from "../../../src/stores/file-pauses.ts"
import type { FakeV2Host } from "../../support/fake-v2-host.ts"
import { FakePauses } from "../pause/helpers.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { BUDGET, RECOVERED, flush, makeV2, SID, type V2Rig } from "./harness.ts"

/** The default checkIntervalMs: how often the watchdog looks, and so re-reads the marker file. */
const CHECK_MS = 5_000

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/** A 2.x instance whose pauses live in a marker file of its own, as in production. */
async function withMarkerFile(): Promise<V2Rig & { env: Record<string, string>; file: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-v2-pause-"))
  dirs.push(dir)
  const env = { XDG_CONFIG_HOME: dir, HOME: dir }
  const r = makeV2({ env, deps: { pauses: undefined } })
  await (r.instance.pauses as FilePauses).settled() // the reset at start
  await r.instance.commandRegistered
  return { ...r, env, file: path.join(dir, "opencode", "auto-resume.paused") }
}

/** What the plugin sent to recover (prompts and synthetic turns), leaving out the command's replies. */
function recoveries(host: FakeV2Host): number {
  const replies = host.callsTo("session.synthetic").filter((c) => (c.args[0] as { metadata?: { kind?: string } }).metadata?.kind === PAUSE_REPLY_KIND)
  return host.callsTo("session.prompt").length + host.callsTo("session.synthetic").length - replies.length
}

function replies(host: FakeV2Host): { text: string; resume?: boolean }[] {
  return host
    .callsTo("session.synthetic")
    .map((c) => c.args[0] as { text: string; resume?: boolean; metadata?: { kind?: string } })
    .filter((a) => a.metadata?.kind === PAUSE_REPLY_KIND)
}

async function runCli(env: Record<string, string>, ...argv: string[]): Promise<void> {
  const err: string[] = []
  const code = await toggle(argv, { stdout: () => undefined, stderr: (l) => void err.push(l), env })
  if (code !== 0) throw new Error(`auto-resume-toggle ${argv.join(" ")} exited ${code}: ${err.join("\n")}`)
}

describe("/auto-resume on 2.x", () => {
  test("is registered through command.transform when the instance starts, and removed when it stops", async () => {
    const r = await withMarkerFile()
    expect(r.host.callsTo("command.transform")).toHaveLength(1)
    expect(r.host.registeredCommands.map((c) => c.name)).toEqual(["auto-resume"])
    expect(String(r.host.registeredCommands[0]!.description)).toContain("off pauses")
    r.instance.stop()
    expect(r.host.registeredCommands).toHaveLength(0)
  })

  test("a re-run setup leaves exactly one /auto-resume, the live instance's", async () => {
    const r = await withMarkerFile()
    const second = r.restart()
    await second.commandRegistered
    expect(r.host.registeredCommands.map((c) => c.name)).toEqual(["auto-resume"])
    second.stop()
  })

  test("off pauses the session without a model turn: the stall then gets nothing", async () => {
    const r = await withMarkerFile()
    r.host.userTurn(SID)
    await r.advance(10_000)
    const result = await r.host.runCommand(SID, "auto-resume", "off")
    expect(result).toBeUndefined() // immediate: the command ends, no model turn
    expect(replies(r.host)).toEqual([expect.objectContaining({ text: expect.stringContaining("is paused"), resume: false })])
    expect(JSON.parse(fs.readFileSync(r.file, "utf8")).sessions).toEqual([SID])
    await r.advance(BUDGET * 3, 5_000)
    expect(recoveries(r.host)).toBe(0)
    expect(r.instance.engine.status(SID)?.paused).toBe(true)
    r.instance.stop()
  })

  test("on resumes it: the session, still silent, is recovered again", async () => {
    const r = await withMarkerFile()
    r.host.userTurn(SID)
    await r.host.runCommand(SID, "auto-resume", "off")
    await r.advance(BUDGET * 2, 5_000)
    expect(recoveries(r.host)).toBe(0)
    await r.host.runCommand(SID, "auto-resume", "on")
    expect(replies(r.host)[1]!.text).toContain("active again")
    // The reply's admission into the live run is a host event, so the silence counts from it.
    // A live run: aborted first, the continue after the abort pause.
    await r.advance(BUDGET + CHECK_MS + ABORT_CONTINUE_DELAY_MS)
    expect(recoveries(r.host)).toBe(1)
    r.instance.stop()
  })

  test("status answers without pausing; an idle session is not woken by the reply", async () => {
    const r = await withMarkerFile()
    expect(await r.host.runCommand("ses_idle", "auto-resume", "")).toBeUndefined()
    expect(replies(r.host)[0]!.text).toContain("auto-resume for session ses_idle: active")
    await flush()
    expect(r.host.isBusy("ses_idle")).toBe(false)
    expect(r.instance.pauses.isPaused("ses_idle")).toBe(false)
    r.instance.stop()
  })

  test("negative control: without the command the same stall gets its continue", async () => {
    const r = await withMarkerFile()
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    expect(recoveries(r.host)).toBe(1)
    r.instance.stop()
  })

  test("negative control: off for another session leaves this one recovered", async () => {
    const r = await withMarkerFile()
    r.host.userTurn(SID)
    await r.host.runCommand("ses_other", "auto-resume", "off")
    await r.advance(RECOVERED)
    expect(recoveries(r.host)).toBe(1)
    r.instance.stop()
  })

  test("the reply is no sighting of a recovery prompt of ours, nor a user turn", () => {
    const own = new OwnSends()
    const item = (kind?: string) => ({ item: { id: `i_${kind}`, type: "synthetic", payload: { text: "auto-resume is paused", metadata: { autoResume: true, kind } } } })
    expect(classifyInboxItem(own, new SeenMessages(), SID, item(PAUSE_REPLY_KIND), 0)).toBeUndefined()
    // Negative control: another synthetic of ours is one.
    expect(classifyInboxItem(own, new SeenMessages(), SID, item("continue"), 0)).toBe("own")
  })
})

describe("auto-resume-toggle on 2.x", () => {
  test("a pause the CLI writes for a session is honoured at the next check interval", async () => {
    const r = await withMarkerFile()
    r.host.userTurn(SID)
    await r.advance(BUDGET - 20_000)
    expect(r.instance.pauses.isPaused(SID)).toBe(false)
    await runCli(r.env, SID, "off")
    await r.advance(CHECK_MS)
    expect(r.instance.pauses.isPaused(SID)).toBe(true)
    await r.advance(BUDGET * 3, 5_000)
    expect(recoveries(r.host)).toBe(0)
    r.instance.stop()
  })

  test("and `on` lifts it: the still silent session is recovered", async () => {
    const r = await withMarkerFile()
    r.host.userTurn(SID)
    await runCli(r.env, SID, "off")
    await r.advance(BUDGET * 2, 5_000)
    expect(recoveries(r.host)).toBe(0)
    await runCli(r.env, SID, "on")
    await r.advance(CHECK_MS * 2 + ABORT_CONTINUE_DELAY_MS)
    expect(recoveries(r.host)).toBe(1)
    r.instance.stop()
  })

  test("negative control: a CLI pause of another session changes nothing here", async () => {
    const r = await withMarkerFile()
    r.host.userTurn(SID)
    await runCli(r.env, "ses_other", "off")
    await r.advance(RECOVERED)
    expect(recoveries(r.host)).toBe(1)
    r.instance.stop()
  })
})

describe("an injected pause store (tests)", () => {
  test("a read-only one is used by the engine, and no command is registered", async () => {
    const r = makeV2()
    expect(await r.instance.commandRegistered).toBeUndefined()
    expect(r.host.registeredCommands).toHaveLength(0)
    r.pauses.pause(SID)
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    expect(recoveries(r.host)).toBe(0)
    r.instance.stop()
  })

  test("one that can pause and resume gets the command, which writes to it", async () => {
    const pauses = new FakePauses()
    const r = makeV2({ deps: { pauses } })
    await r.instance.commandRegistered
    await r.host.runCommand(SID, "auto-resume", "off")
    expect(pauses.isPaused(SID)).toBe(true)
    r.instance.stop()
  })
})
