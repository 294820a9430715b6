/**
 * One live engine per (registry scope, directory) on v1: the plugin listed twice, a re-created
 * instance, the `dispose` hook, and shareWatchState.
 */
import { describe, expect, test } from "bun:test"
import { FakePauses } from "../pause/helpers.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { BUDGET, FakeV1Host, freshDirectory, SID } from "./rig.ts"

/** A user turn that starts streaming, then goes silent. */
function stallingTurn(host: FakeV1Host, sessionID = SID): void {
  host.userTurn(sessionID)
  host.delta(sessionID)
}

/**
 * A host whose listing shows no run: each live engine then sends a plain continue of its own,
 * so two engines are two prompts. (With the run listed, the first engine's abort ends the run
 * and the second has nothing left to do, which would hide a duplicate instance.)
 */
const STALE = { discoveryDelayMs: 24 * 60 * 60_000 }

describe("the plugin listed twice (two server() calls for one directory)", () => {
  test("one stall gets exactly one continue", async () => {
    const host = new FakeV1Host()
    host.listsRuns = false
    const first = host.start(STALE)
    const second = host.start(STALE)
    stallingTurn(host)
    await host.advance(BUDGET + 10_000)
    expect(host.prompts).toHaveLength(1)
    expect(first.stopped).toBe(true)
    expect(second.stopped).toBe(false)
    expect(host.logged(new RegExp(`instance #${first.serial} stopped \\(superseded by instance #${second.serial}\\)`))).toBe(true)
    host.stopAll()
  })

  test("negative control: two directories are two live engines, and the same events give two continues", async () => {
    const host = new FakeV1Host()
    host.listsRuns = false
    host.start(STALE, freshDirectory())
    host.start(STALE, freshDirectory())
    stallingTurn(host)
    await host.advance(BUDGET + 10_000)
    expect(host.prompts).toHaveLength(2)
    host.stopAll()
  })

  test("negative control: so are two registry scopes in one directory", async () => {
    const host = new FakeV1Host()
    host.listsRuns = false
    host.start({ ...STALE, registryScope: `a-${host.directory}` })
    host.start({ ...STALE, registryScope: `b-${host.directory}` })
    stallingTurn(host)
    await host.advance(BUDGET + 10_000)
    expect(host.prompts).toHaveLength(2)
    host.stopAll()
  })

  test("an input without a directory is never matched with another instance", async () => {
    const host = new FakeV1Host()
    const a = host.start({}, null)
    const b = host.start({}, null)
    expect(a.stopped || b.stopped).toBe(false)
    host.stopAll()
  })

  test("the superseded instance's hooks do nothing and its engine is disposed", async () => {
    const host = new FakeV1Host()
    const first = host.start()
    host.start()
    stallingTurn(host)
    await host.advance(10)
    expect(first.engine.trackedSessions).toBe(0)
    expect(first.engine.status(SID)).toBeUndefined()
    // Its hooks still resolve (the host awaits them) and still never throw.
    for (const [name, hook] of Object.entries(first.hooks)) {
      if (typeof hook === "function" && name !== "dispose") await expect((hook as (...a: unknown[]) => Promise<unknown>)({}, { parts: [] })).resolves.toBeUndefined()
    }
    host.stopAll()
  })

  test("the superseded instance leaves the config and the /auto-resume command to the live one", async () => {
    const host = new FakeV1Host()
    const first = host.start({}, host.directory, new FakePauses())
    const second = host.start({}, host.directory, new FakePauses())
    const config: Record<string, unknown> = {}
    await first.hooks.config!(config as never)
    expect(config).toEqual({})
    await second.hooks.config!(config as never)
    expect(Object.keys(config.command as object)).toContain("auto-resume")

    const command = async (hooks: typeof first.hooks) => {
      const output = { parts: [{ type: "text", text: "/auto-resume off" }] }
      await hooks["command.execute.before"]!({ command: "auto-resume", sessionID: SID, arguments: "off" }, output as never)
      return output.parts
    }
    expect(await command(first.hooks)).toEqual([{ type: "text", text: "/auto-resume off" }])
    // Negative control: the live instance does answer the same call.
    const answered = (await command(second.hooks)) as Record<string, unknown>[]
    expect(answered[0]!.metadata).toMatchObject({ autoResume: true })
    host.stopAll()
  })

  test("task_complete on the superseded instance's tool is answered by the live engine", async () => {
    const host = new FakeV1Host()
    const first = host.start()
    const second = host.start()
    host.userTurn()
    host.finishRun(SID, { text: "All done." })
    await host.advance(10)
    const tool = (first.hooks.tool as Record<string, { execute(args: unknown, ctx: unknown): Promise<string> }>).task_complete!
    await tool.execute({}, { sessionID: SID })
    expect(second.engine.status(SID)!.completed).toBe(true)
    host.stopAll()
  })
})

describe("the dispose hook", () => {
  test("stops the engine and frees the slot: nothing is sent afterwards, and the next instance starts alone", async () => {
    const host = new FakeV1Host()
    const first = host.start()
    stallingTurn(host)
    await host.advance(60_000)
    await first.hooks.dispose!()
    expect(first.stopped).toBe(true)
    expect(first.slot.holder).toBeUndefined()
    expect(host.logged(/instance #\d+ stopped \(disposed by the host\)/)).toBe(true)
    await host.advance(BUDGET)
    expect(host.prompts).toHaveLength(0)
    const next = host.start()
    expect(next.slot).toBe(first.slot)
    expect(next.slot.holder?.serial).toBe(next.serial)
    host.stopAll()
  })

  test("negative control: without dispose the same timeline recovers", async () => {
    const host = new FakeV1Host()
    host.start()
    stallingTurn(host)
    await host.advance(60_000)
    await host.advance(BUDGET)
    expect(host.prompts).toHaveLength(1)
    host.stopAll()
  })

  test("a late dispose of a superseded instance leaves its successor running", async () => {
    const host = new FakeV1Host()
    const first = host.start()
    const second = host.start()
    await first.hooks.dispose!()
    expect(second.slot.holder?.serial).toBe(second.serial)
    stallingTurn(host)
    await host.advance(BUDGET + 10_000)
    expect(host.prompts).toHaveLength(1)
    host.stopAll()
  })
})

describe("shareWatchState", () => {
  /** 100 s into a silent stream, the instance is re-created (the old hook set goes away). */
  async function reloadMidStall(options: Record<string, unknown>) {
    const host = new FakeV1Host()
    const first = host.start(options)
    stallingTurn(host)
    await host.advance(100_000)
    host.plugins.splice(0, 1) // the host drops the old hooks with the old instance
    const second = host.start(options)
    expect(first.stopped).toBe(true)
    return { host, second }
  }

  test("the new engine takes over the silence so far: the continue comes on the original deadline", async () => {
    const { host, second } = await reloadMidStall({ shareWatchState: true, discoveryDelayMs: 60_000 })
    expect(host.logged(/shareWatchState: took over 1 session/)).toBe(true)
    expect(second.engine.status(SID)?.busy).toBe(true)
    await host.advance(BUDGET - 100_000 + 2_000)
    // On the original deadline the live run is aborted; its one continue follows the pause.
    expect(host.aborts).toBe(1)
    await host.advance(ABORT_CONTINUE_DELAY_MS)
    expect(host.prompts).toHaveLength(1)
    host.stopAll()
  })

  test("negative control: without it the new engine starts blind and sends nothing by then", async () => {
    const { host, second } = await reloadMidStall({ shareWatchState: false, discoveryDelayMs: 60_000 })
    expect(second.engine.status(SID)).toBeUndefined()
    await host.advance(BUDGET - 100_000 + 2_000)
    expect(host.prompts).toHaveLength(0)
    host.stopAll()
  })

  test("the latches come along: a session the user cancelled stays left alone", async () => {
    const host = new FakeV1Host()
    const options = { shareWatchState: true }
    host.start(options)
    stallingTurn(host)
    host.event("session.error", { sessionID: SID, error: { name: "MessageAbortedError", data: { message: "Aborted" } } })
    host.plugins.splice(0, 1)
    const second = host.start(options)
    expect(second.engine.status(SID)?.cancelledByUser).toBe(true)
    host.stopAll()
  })
})
