/** setup(ctx) on a 2.x host: startup, one live instance per location, shared watch state, cleanup, the event pump, task_complete. */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import plugin from "../../../src/index.ts"
import { INERT_OPTIONS } from "../../../src/options/inert.ts"
import { OPTION_DEFAULTS } from "../../../src/options/index.ts"
import { MAX_FRUITLESS } from "../../../src/host/v2/pump.ts"
import { FakeV2Host } from "../../support/fake-v2-host.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { BUDGET, flush, RECOVERED, freshScope, makeV2, sends, SID } from "./harness.ts"

const stateDir = mkdtempSync(join(tmpdir(), "auto-resume-state-"))
afterAll(() => rmSync(stateDir, { recursive: true, force: true }))

describe("the universal entry on 2.x", () => {
  test("setup() on a real 2.x ctx starts, logs one startup line to the state file, and cleans up", async () => {
    const previous = process.env.XDG_STATE_HOME
    const previousConfig = process.env.XDG_CONFIG_HOME
    process.env.XDG_STATE_HOME = stateDir
    // The plugin resets the pause marker file at start: keep it out of the real home.
    process.env.XDG_CONFIG_HOME = stateDir
    try {
      const host = new FakeV2Host({ options: { registryScope: freshScope(), chunkTimeoutMs: 60_000 } })
      const cleanup = plugin.setup(host.ctx)
      expect(typeof cleanup).toBe("function")
      await flush()
      expect(host.openSubscriptions).toBe(1)
      expect(host.registeredTools.map((t) => t.name)).toEqual(["task_complete"])
      expect(host.registeredCommands.map((c) => c.name)).toEqual(["auto-resume"])
      cleanup!()
      await flush()
      expect(host.openSubscriptions).toBe(0)
      expect(host.registeredTools).toHaveLength(0)
      expect(host.registeredCommands).toHaveLength(0)
      // The log file is written asynchronously: wait for its startup line (bounded) rather than
      // a fixed 50 ms, which a loaded machine can outlast before the write lands.
      const startupLines = () => {
        try {
          const log = readFileSync(join(stateDir, "opencode-auto-resume", "auto-resume.log"), "utf8")
          return log.split("\n").filter((l) => l.includes("opencode-auto-resume ") && l.includes("host=v2"))
        } catch {
          return []
        }
      }
      for (const deadline = Date.now() + 10_000; startupLines().length === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20))
      const startup = startupLines()
      expect(startup).toHaveLength(1)
      expect(startup[0]).toContain("chunkTimeoutMs=60000")
    } finally {
      if (previous === undefined) delete process.env.XDG_STATE_HOME
      else process.env.XDG_STATE_HOME = previous
      if (previousConfig === undefined) delete process.env.XDG_CONFIG_HOME
      else process.env.XDG_CONFIG_HOME = previousConfig
    }
  })

  test("accepted-but-inert on v2 names only the toasts (2.x has no toast API): every option in the spec is read and applied", () => {
    const r = makeV2()
    const line = r.logs.find((l) => l.message.includes("host=v2"))!.message
    const inert = /accepted-but-inert=([^;]*)/.exec(line)![1]!
    expect(inert.split(",").filter(Boolean)).toEqual([...INERT_OPTIONS.v2])
    expect(inert).toBe("toasts")
    // No option among them: a behaviour of 1.x the host cannot carry, not a setting ignored.
    expect(INERT_OPTIONS.v2.filter((name) => Object.hasOwn(OPTION_DEFAULTS, name))).toEqual([])
    for (const name of ["visibleContinue", "quietCorrections", "injectIntervalMs", "shareWatchState", "registryScope"]) {
      expect(INERT_OPTIONS.v2).not.toContain(name)
    }
    r.instance.stop()
  })

  test("setup() on the 1.18 preview ctx, or on anything that is not a 2.x host, does nothing", () => {
    const previewCtx = { options: {}, agent: {}, aisdk: {}, catalog: {}, command: {}, integration: {}, plugin: {}, reference: {}, skill: {} }
    expect(plugin.setup(previewCtx)).toBeUndefined()
    expect(plugin.setup({ app: { version: "2.0.22" }, session: {} })).toBeUndefined()
    expect(plugin.setup(undefined)).toBeUndefined()
  })
})

describe("cleanup", () => {
  test("stops every timer, the subscription and the tool registration; later events do nothing", async () => {
    const r = makeV2()
    await r.instance.registered
    r.host.userTurn(SID)
    await r.advance(BUDGET - 10_000)
    expect(r.time.pending).toBeGreaterThan(0)
    r.instance.stop()
    await flush()
    expect(r.time.pending).toBe(0)
    expect(r.host.openSubscriptions).toBe(0)
    expect(r.host.toolDisposals).toEqual([1])
    r.host.userTurn("ses_other")
    await r.advance(30 * 60_000, 10_000)
    expect(sends(r.host)).toBe(0)
    expect(r.time.pending).toBe(0)
  })

  test("negative control: without cleanup the same timeline recovers", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })
})

describe("one live instance per location (the same one, reloaded)", () => {
  test("a re-run setup supersedes the old instance: two setups, one stall, exactly one continue", async () => {
    const r = makeV2()
    const second = r.restart()
    expect(r.instance.stopped).toBe(true)
    expect(r.host.openSubscriptions).toBe(1)
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    second.stop()
  })

  test("also when the reload hands over a new ctx and the host never disposes the old one", async () => {
    const r = makeV2()
    const newHost = new FakeV2Host({ now: () => r.time.now(), options: (r.host.ctx as { options: unknown }).options })
    const second = r.restart({}, newHost)
    // Both hosts broadcast the same session's events, as one process bus would.
    r.host.userTurn(SID)
    newHost.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host) + sends(newHost)).toBe(1)
    second.stop()
  })

  test("negative control: instances in different slots each act (which is why the slot matters)", async () => {
    const r = makeV2()
    const other = r.restart({ registryScope: freshScope() })
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    // Both act on the live run: each aborts it (the second finds nothing left to stop, which
    // 2.x answers with interrupted: false). One slot would have let only one of them act.
    expect(r.host.callsTo("session.interrupt")).toHaveLength(2)
    expect(sends(r.host)).toBeGreaterThanOrEqual(1)
    r.instance.stop()
    other.stop()
  })
})

describe("shareWatchState", () => {
  test("carries stall memory across a reload: the silence before it still counts", async () => {
    const r = makeV2({ options: { shareWatchState: true } })
    r.host.userTurn(SID)
    r.host.textDelta(SID)
    await r.advance(100_000)
    const second = r.restart()
    expect(second.engine.status(SID)?.busy).toBe(true)
    await r.advance(BUDGET - 100_000 - 5_000)
    expect(r.host.callsTo("session.interrupt")).toHaveLength(0)
    await r.advance(7_000)
    // On the original deadline the live run is aborted; its one continue follows the pause.
    expect(r.host.callsTo("session.interrupt")).toHaveLength(1)
    await r.advance(ABORT_CONTINUE_DELAY_MS)
    expect(sends(r.host)).toBe(1)
    expect(r.logged(/took over 1 session/)).toBe(true)
    second.stop()
  })

  test("negative control: without it the new instance starts blind and sends nothing in that time", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    await r.advance(100_000)
    const second = r.restart()
    await r.advance(BUDGET - 100_000 + 2000)
    expect(sends(r.host)).toBe(0)
    second.stop()
  })

  test("carries an ESC latch: a reload does not turn the plugin back on for a session the user stopped", async () => {
    const r = makeV2({ options: { shareWatchState: true } })
    r.host.userTurn(SID)
    await r.advance(1000)
    r.host.userEsc(SID)
    await r.advance(1000)
    const second = r.restart()
    r.host.startRun(SID)
    await r.advance(BUDGET * 2)
    expect(sends(r.host)).toBe(0)
    expect(second.engine.status(SID)?.cancelledByUser).toBe(true)
    second.stop()
  })

  test("a stale snapshot (the host moved on) is not taken", async () => {
    const r = makeV2({ options: { shareWatchState: true } })
    r.host.userTurn(SID)
    await r.advance(1000)
    r.instance.stop()
    await r.advance(5 * 60_000, 10_000)
    const second = r.restart()
    expect(second.engine.status(SID)).toBeUndefined()
    second.stop()
  })
})

describe("the event pump", () => {
  test("a stream that ends is subscribed again after a backoff, and recovery keeps working", async () => {
    const r = makeV2()
    await flush()
    r.host.endStreams()
    await flush()
    expect(r.host.openSubscriptions).toBe(0)
    await r.advance(1000)
    expect(r.host.openSubscriptions).toBe(1)
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("a stream that throws is subscribed again; the fault is logged once", async () => {
    const r = makeV2()
    await flush()
    for (let i = 0; i < 3; i++) {
      r.host.failStreams()
      await r.advance(2000)
    }
    // Nothing was delivered in between, so the third retry waits 4 s.
    await r.advance(4000)
    expect(r.host.openSubscriptions).toBe(1)
    expect(r.logs.filter((l) => l.level === "warn" && /event stream failed/.test(l.message))).toHaveLength(1)
    r.instance.stop()
  })

  test("a subscribe that keeps failing is retried with a growing delay, then given up on, never thrown", async () => {
    const r = makeV2({ deps: {} })
    r.instance.stop()
    const host = r.host
    host.subscribeBehaviour = "throw"
    const again = r.restart()
    await r.advance(10_000)
    const early = host.callsTo("event.subscribe").length
    expect(early).toBeGreaterThan(2)
    expect(early).toBeLessThan(8)
    await r.advance(2 * 60 * 60_000, 30_000)
    expect(host.callsTo("event.subscribe").length).toBe(1 + MAX_FRUITLESS)
    expect(r.logged(/stops listening/)).toBe(true)
    again.stop()
  })

  test("a malformed or hostile event is skipped and the pump carries on", async () => {
    const r = makeV2()
    await flush()
    const hostile = Object.defineProperty({}, "type", {
      get() {
        throw new Error("gotcha")
      },
    })
    for (const bad of [null, 42, "x", hostile, { type: "session.execution.started", data: null }]) r.host.emitRaw(bad)
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("events from another location are ignored", async () => {
    const r = makeV2()
    await flush()
    r.host.emit("session.execution.started", { sessionID: "elsewhere" }, { location: { directory: "/some/other/project" } })
    await r.advance(RECOVERED)
    expect(r.instance.engine.status("elsewhere")).toBeUndefined()
    expect(sends(r.host)).toBe(0)
    r.host.startRun("here")
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })
})

describe("task_complete", () => {
  test("registered through tool.transform as a direct tool (codemode false) with a JSON Schema input", async () => {
    const r = makeV2()
    await r.instance.registered
    const tool = r.host.registeredTools[0] as { name: string; options: unknown; input: { type: string }; execute: Function }
    expect(tool.name).toBe("task_complete")
    expect(tool.options).toEqual({ codemode: false })
    expect(tool.input.type).toBe("object")
    const result = await tool.execute({ summary: "all done" }, { sessionID: SID, agent: "build", messageID: "m", id: "c", signal: new AbortController().signal, progress() {} })
    expect(typeof result.content).toBe("string")
    expect(result.metadata).toEqual({ autoResume: true })
    r.instance.stop()
  })

  test("a registry that is missing, throws, rejects or refuses the tool is logged and skipped; recovery still works", async () => {
    for (const knob of ["missing", "throw", "reject", "duplicate"] as const) {
      const r = makeV2()
      r.instance.stop()
      if (knob === "missing") r.host.remove("tool.transform")
      else if (knob === "duplicate") r.host.registeredTools.push({ name: "task_complete" })
      else r.host.set("tool.transform", knob)
      const live = r.restart()
      expect(await live.registered).toBeUndefined()
      expect(r.logged(/task_complete/)).toBe(true)
      r.host.userTurn(SID)
      await r.advance(RECOVERED)
      expect(sends(r.host)).toBe(1)
      live.stop()
    }
  })
})
