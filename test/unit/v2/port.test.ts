/** The 2.x Host port: channel choice and fallback, send spacing and de-duplication, reads, auth only toward the host. */
import { describe, expect, test } from "bun:test"
import { MissingMethodError } from "../../../src/host/v2/context.ts"
import { SendRefusedError } from "../../../src/host/send-log.ts"
import { flush, makeV2, SID, type RigOptions } from "./harness.ts"

const continueReq = (text = "continue — auto-resume: stalled") => ({ sessionID: SID, text, kind: "continue" as const })
const correctionReq = (text = "use the read tool, not cat") => ({ sessionID: SID, text, kind: "correction" as const })

function rig(opts: RigOptions = {}) {
  const r = makeV2(opts)
  r.instance.stop() // the port works on its own; no engine or pump in the way
  return r
}

describe("send: channel choice", () => {
  test("a continue is a visible prompt marked as ours", async () => {
    const r = rig()
    await r.instance.port.send(continueReq())
    expect(r.host.callsTo("session.synthetic")).toHaveLength(0)
    expect(r.host.callsTo("session.prompt").map((c) => c.args[0])).toEqual([
      { sessionID: SID, text: "continue — auto-resume: stalled", metadata: { autoResume: true, kind: "continue" } },
    ])
  })

  test("visibleContinue false (config or AUTO_RESUME_VISIBLE_CONTINUE=0) sends it through synthetic with resume", async () => {
    for (const opts of [{ options: { visibleContinue: false } }, { env: { AUTO_RESUME_VISIBLE_CONTINUE: "0" } }]) {
      const r = rig(opts)
      await r.instance.port.send(continueReq())
      expect(r.host.callsTo("session.prompt")).toHaveLength(0)
      expect(r.host.callsTo("session.synthetic")[0]?.args[0]).toMatchObject({ sessionID: SID, resume: true, metadata: { autoResume: true, kind: "continue" } })
    }
    const configWins = rig({ options: { visibleContinue: true }, env: { AUTO_RESUME_VISIBLE_CONTINUE: "false" } })
    await configWins.instance.port.send(continueReq())
    expect(configWins.host.callsTo("session.synthetic")).toHaveLength(0)
  })

  test("corrections go through synthetic while quietCorrections is on (the default), through prompt when off", async () => {
    const quiet = rig()
    await quiet.instance.port.send(correctionReq())
    expect(quiet.host.callsTo("session.synthetic")).toHaveLength(1)
    expect(quiet.host.callsTo("session.prompt")).toHaveLength(0)
    const loud = rig({ options: { quietCorrections: false } })
    await loud.instance.port.send(correctionReq())
    expect(loud.host.callsTo("session.synthetic")).toHaveLength(0)
    expect(loud.host.callsTo("session.prompt")).toHaveLength(1)
  })

  test("a synthetic that rejects, throws or is missing falls back to prompt, and the session stays on prompt", async () => {
    for (const knob of ["reject", "throw", "missing"] as const) {
      const r = rig({ options: { injectIntervalMs: 0 } })
      if (knob === "missing") r.host.remove("session.synthetic")
      else r.host.set("session.synthetic", knob)
      await r.instance.port.send(correctionReq("first"))
      expect(r.host.callsTo("session.prompt")).toHaveLength(1)
      await r.instance.port.send(correctionReq("second"))
      expect(r.host.callsTo("session.prompt")).toHaveLength(2)
      expect(r.host.callsTo("session.synthetic")).toHaveLength(knob === "missing" ? 0 : 1)
      if (knob !== "missing") expect(r.logged(/synthetic message refused/)).toBe(true)
    }
  })

  test("a synthetic that never settles does not fall back (it may still land): the send just hangs for the core to bound", async () => {
    const r = rig()
    r.host.set("session.synthetic", "hang")
    let settled = false
    void r.instance.port.send(correctionReq()).finally(() => (settled = true))
    await r.advance(60_000)
    expect(settled).toBe(false)
    expect(r.host.callsTo("session.prompt")).toHaveLength(0)
  })

  test("a failing prompt rejects (the core counts and reports it)", async () => {
    for (const knob of ["reject", "throw"] as const) {
      const r = rig()
      r.host.set("session.prompt", knob)
      await expect(r.instance.port.send(continueReq())).rejects.toThrow()
    }
  })
})

describe("send: never twice", () => {
  test("injectIntervalMs spaces sends per session; other sessions are not held up", async () => {
    const r = rig()
    await r.instance.port.send(continueReq("one"))
    await r.advance(4_000)
    await expect(r.instance.port.send(continueReq("two"))).rejects.toBeInstanceOf(SendRefusedError)
    await r.instance.port.send({ ...continueReq("other"), sessionID: "ses_other" })
    await r.advance(1_000)
    await r.instance.port.send(continueReq("three"))
    expect(r.host.callsTo("session.prompt").map((c) => (c.args[0] as { text: string }).text)).toEqual(["one", "other", "three"])
  })

  test("the spacing holds across instances of the same slot (a reload racing its predecessor)", async () => {
    const r = makeV2()
    const second = r.restart()
    await r.instance.port.send(continueReq("from the old instance"))
    await expect(second.port.send(continueReq("from the new instance"))).rejects.toBeInstanceOf(SendRefusedError)
    expect(r.host.callsTo("session.prompt")).toHaveLength(1)
    second.stop()
  })

  test("the same recovery still waiting in the session is not sent again; once answered or ended, it may be", async () => {
    const r = rig({ options: { injectIntervalMs: 0 } })
    const text = "continue — auto-resume: stalled"
    r.host.history.set(SID, [{ id: "u1", type: "user", text: "task" }, { id: "m9", type: "user", text, metadata: { autoResume: true } }])
    await r.instance.port.send(continueReq(text))
    expect(r.host.callsTo("session.prompt")).toHaveLength(0)
    expect(r.logged(/already waiting/)).toBe(true)
    r.host.history.get(SID)!.push({ id: "i1", type: "idle", outcome: "interrupted" })
    await r.instance.port.send(continueReq(text))
    expect(r.host.callsTo("session.prompt")).toHaveLength(1)
  })

  test("negative control: a different text, or the same text from the user, is sent", async () => {
    const r = rig({ options: { injectIntervalMs: 0 } })
    r.host.history.set(SID, [{ id: "m9", type: "user", text: "continue — attempt 1", metadata: { autoResume: true } }])
    await r.instance.port.send(continueReq("continue — attempt 2"))
    expect(r.host.callsTo("session.prompt")).toHaveLength(1)
  })

  test("an unreadable history does not block a send", async () => {
    const r = rig()
    r.host.set("session.context", "reject")
    await r.instance.port.send(continueReq())
    expect(r.host.callsTo("session.prompt")).toHaveLength(1)
  })
})

describe("acting", () => {
  test("abort is session.interrupt; compact is session.compact; commands go through session.command", async () => {
    const r = rig()
    // Nothing is running in this session: the host answers { interrupted: false }.
    await expect(r.instance.port.abort(SID)).rejects.toThrow(/found no run to stop/)
    await r.instance.port.compact(SID)
    await r.instance.port.command(SID, "ctx-wrapup", "now")
    expect(r.host.callsTo("session.interrupt")[0]?.args[0]).toEqual({ sessionID: SID })
    expect(r.host.callsTo("session.compact")[0]?.args[0]).toEqual({ sessionID: SID })
    expect(r.host.callsTo("session.command")[0]?.args[0]).toEqual({ sessionID: SID, name: "ctx-wrapup", text: "now" })
  })

  test("on 2.0.16 (no session.compact) compaction is refused without calling anything", async () => {
    const r = rig({ host: { version: "2.0.16" } })
    await expect(r.instance.port.compact(SID)).rejects.toBeInstanceOf(MissingMethodError)
    expect(r.host.callsTo("session.compact")).toHaveLength(0)
  })
})

describe("reading", () => {
  const history = () => [
    { id: "u1", type: "user", text: "go", time: { created: 1 } },
    { id: "a1", type: "assistant", content: [{ type: "text", text: "ok" }], time: { created: 2 } },
    { id: "i1", type: "idle", outcome: "succeeded" },
    { id: "u2", type: "user", text: "more", time: { created: 3 } },
    { id: "a2", type: "assistant", content: [{ type: "tool", id: "c", name: "todowrite", state: { status: "completed", input: { todos: [{ content: "x", status: "pending" }] }, content: "ok" } }], time: { created: 4 } },
  ]

  test("readMessages uses session.context: the newest N, oldest first, normalized", async () => {
    const r = rig()
    r.host.history.set(SID, history())
    const got = await r.instance.port.readMessages(SID, 2)
    expect(got.map((m) => [m.id, m.role])).toEqual([
      ["u2", "user"],
      ["a2", "assistant"],
    ])
    expect(r.host.httpRequests).toHaveLength(0)
    expect(await r.instance.port.readTodos(SID)).toEqual([{ content: "x", status: "pending" }])
  })

  test("readTodos: no todowrite call is no list; a malformed one is an error (never read as empty)", async () => {
    const r = rig()
    r.host.history.set(SID, [{ id: "a1", type: "assistant", content: [{ type: "text", text: "hi" }] }])
    expect(await r.instance.port.readTodos(SID)).toBeUndefined()
    r.host.history.get(SID)!.push({ id: "a2", type: "assistant", content: [{ type: "tool", id: "c", name: "todowrite", state: { status: "completed", input: { todos: "junk" }, content: "ok" } }] })
    await expect(r.instance.port.readTodos(SID)).rejects.toThrow(/todo list/)
  })

  test("without session.context it reads the HTTP message route at the host's URL, with Basic auth, newest-first page reordered", async () => {
    const r = rig()
    r.host.remove("session.context")
    r.host.history.set(SID, history())
    // The limit counts every message, the idle marker included.
    const got = await r.instance.port.readMessages(SID, 4)
    expect(got.map((m) => m.id)).toEqual(["a1", "u2", "a2"])
    const [req] = r.host.httpRequests
    // The order asked for outright (2026-12-03 item 6), the limit within 1-200.
    expect(req?.url).toBe(`http://127.0.0.1:4123/api/session/${SID}/message?order=desc&limit=4`)
    expect(req?.headers.authorization).toBe(`Basic ${Buffer.from("opencode:s3cret").toString("base64")}`)
    await r.instance.port.readMessages(SID, 1000)
    expect(r.host.httpRequests[1]?.url).toEndWith("limit=200")
  })

  test("no password, no credentials; no server URL, no request at all (never a guessed port)", async () => {
    const open = rig({ host: { server: { url: "http://127.0.0.1:4555/base" } } })
    open.host.remove("session.context")
    await open.instance.port.readMessages(SID, 5)
    expect(open.host.httpRequests[0]?.url).toStartWith("http://127.0.0.1:4555/base/api/session/")
    expect(open.host.httpRequests[0]?.headers.authorization).toBeUndefined()

    const old = rig({ host: { version: "2.0.16" } })
    old.host.remove("session.context")
    await expect(old.instance.port.readMessages(SID, 5)).rejects.toThrow()
    await expect(old.instance.port.listBusySessions()).rejects.toThrow(/no server URL/)
    expect(old.host.httpRequests).toHaveLength(0)
  })

  test("listBusySessions asks the host's active-session route, authenticated", async () => {
    const r = rig()
    r.host.startRun("ses_a")
    r.host.startRun("ses_b")
    expect((await r.instance.port.listBusySessions()).sort()).toEqual(["ses_a", "ses_b"])
    expect(r.host.httpRequests.every((q) => q.url.startsWith("http://127.0.0.1:4123/") && q.headers.authorization?.startsWith("Basic "))).toBe(true)
  })

  test("an active-session answer that is no listing is an error, not an empty listing", async () => {
    const junk = makeV2({ deps: { fetch: async () => ({ ok: true, status: 200, json: async () => ({ data: "nope" }) }) } })
    junk.instance.stop()
    await expect(junk.instance.port.listBusySessions()).rejects.toThrow(/not an object/)
    const empty = makeV2({ deps: { fetch: async () => ({ ok: true, status: 200, json: async () => ({ data: {} }) }) } })
    empty.instance.stop()
    expect(await empty.instance.port.listBusySessions()).toEqual([])
  })

  test("a wrong password is an error, not an empty answer", async () => {
    const r = rig()
    ;(r.host.ctx.app as { server: { password: string } }).server = { ...r.host.server!, password: "wrong" } as never
    await expect(r.instance.port.listBusySessions()).rejects.toThrow(/401/)
  })

  test("an HTTP read that hangs is cancelled after sendTimeoutMs on the injected clock", async () => {
    let aborted = false
    const hanging = makeV2({ options: { sendTimeoutMs: 5_000 }, deps: { fetch: (_url, init) => new Promise((_, reject) => init.signal.addEventListener("abort", () => ((aborted = true), reject(new Error("aborted"))))) } })
    hanging.instance.stop()
    // (Bun's expect(...).rejects waits for the promise itself, which would never settle here.)
    let failure: unknown
    const outcome = hanging.instance.port.listBusySessions().catch((error) => (failure = error))
    await hanging.advance(4_000)
    expect(aborted).toBe(false)
    await hanging.advance(1_000)
    await outcome
    expect(aborted).toBe(true)
    expect(String(failure)).toContain("aborted")
  })

  test("tool names as the model must call them: code-mode tools left out, namespaces applied", async () => {
    const r = rig()
    r.host.toolList = {
      location: {},
      data: ["glob", { name: "bash" }, { name: "lookup", options: { namespace: "docs", codemode: false } }, { name: "hidden", options: { codemode: true } }, { id: "edit" }],
    }
    expect(await r.instance.port.toolNames()).toEqual(["glob", "bash", "docs_lookup", "edit"])
    r.host.toolList = [{ name: "bare-array" }]
    expect(await r.instance.port.toolNames()).toEqual(["bare-array"])
  })

  test("plugin names from plugin.list (ids and package names); model limits from model.list", async () => {
    const r = rig()
    r.host.pluginList = { location: {}, data: [{ id: "magic-context", source: { type: "package", package: "@x/magic-context" } }, { source: { type: "local", path: "./p" } }] }
    expect(await r.instance.port.pluginNames()).toEqual(["magic-context", "@x/magic-context", "./p"])
    expect(await r.instance.port.modelLimits({ providerID: "openai", modelID: "gpt-x" })).toEqual({ context: 200_000, output: 32_000 })
    expect(await r.instance.port.modelLimits({ providerID: "openai", modelID: "nope" })).toBeUndefined()
  })

  test("log lines go to the writer, never throwing", async () => {
    const r = makeV2({ deps: { writeLog: () => { throw new Error("disk full") } } })
    expect(() => r.instance.port.log("info", "x")).not.toThrow()
    await flush()
    r.instance.stop()
  })
})

describe("smaller 2.x shapes (2026-12-03 items 3, 5, 6)", () => {
  test("plugin.list: a newer build's source.target names the package, as an older build's source.package does", async () => {
    const r = makeV2()
    r.host.pluginList = { location: {}, data: [{ id: "mc", source: { type: "package", target: "@cortexkit/opencode-magic-context", version: "1.2.0" } }] }
    expect(await r.instance.port.pluginNames()).toContain("@cortexkit/opencode-magic-context")
    r.host.pluginList = { location: {}, data: [{ id: "mc", source: { type: "package", package: "@cortexkit/opencode-magic-context" } }] }
    expect(await r.instance.port.pluginNames()).toContain("@cortexkit/opencode-magic-context")
    r.instance.stop()
  })

  test("the message route is asked within 1-200 whatever the caller wants, and the fake's 400 beyond it is never met", async () => {
    const r = makeV2()
    r.host.remove("session.context")
    r.host.userTurn(SID)
    await r.instance.port.readMessages(SID, 500)
    const limits = r.host.httpRequests.map((q) => Number(new URL(q.url).searchParams.get("limit")))
    expect(limits).toContain(200)
    expect(limits.every((n) => n >= 1 && n <= 200)).toBe(true)
    r.instance.stop()
  })

  test("no session.compact (older builds): compaction is refused and the log says so once", async () => {
    const r = makeV2({ host: { version: "2.0.16" } })
    await expect(r.instance.port.compact(SID)).rejects.toThrow("session.compact")
    await expect(r.instance.port.compact(SID)).rejects.toThrow("session.compact")
    expect(r.logs.filter((l) => l.message.includes("session.compact is missing"))).toHaveLength(1)
    // Control: a build with it compacts, and says nothing of the kind.
    const newer = makeV2()
    await newer.instance.port.compact(SID)
    expect(newer.host.callsTo("session.compact")).toHaveLength(1)
    expect(newer.logs.some((l) => l.message.includes("session.compact is missing"))).toBe(false)
    r.instance.stop()
    newer.instance.stop()
  })
})
