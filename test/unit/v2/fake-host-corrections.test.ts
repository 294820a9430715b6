/**
 * The fake 2.x host against the corrections of shared/host/v2-opencode-2.x.md: each test is
 * about the fake's own behaviour (no plugin loaded), so that a plugin mistake of the kind the
 * real host refuses fails a test here before it fails a user there. One describe per item of
 * "Corrections of 2026-12-03", then the items of 2026-12-01 the fake holds.
 */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { ConflictError, FakeV2Host, HOST_RETRY_BUDGET, SESSION_HOOK_NAMES, ToolDefect, type FakeV2Options } from "../../support/fake-v2-host.ts"
import { flush } from "./harness.ts"

const SID = "ses_fake"

function host(opts: FakeV2Options = {}) {
  const time = new SimulatedTime()
  const h = new FakeV2Host({ now: () => time.now(), schedule: (ms, fn) => void time.schedule(ms, fn), ...opts })
  return { h, time }
}

type Session = Record<string, (...a: unknown[]) => Promise<any>>
const session = (h: FakeV2Host, ctx = h.ctx) => ctx.session as Session

/** Reads what one subscription gets until `count` events or nothing more is queued. */
async function collect(iterable: AsyncIterable<unknown>, count: number): Promise<string[]> {
  const it = iterable[Symbol.asyncIterator]()
  const types: string[] = []
  for (let i = 0; i < count; i++) {
    const next = await Promise.race([it.next(), flush().then(() => undefined)])
    if (!next || next.done) break
    types.push((next.value as { type: string }).type)
  }
  return types
}

async function addTool(h: FakeV2Host, tool: Record<string, unknown>) {
  await (h.ctx.tool as Session).transform!((editor: any) => editor.add({ name: "t", description: "d", input: { type: "object" }, ...tool }))
}

describe("2026-12-03 item 1: output only with an output schema", () => {
  test("a result carrying `output` from a tool with no output schema kills the call", async () => {
    const { h } = host()
    await addTool(h, { execute: async () => ({ content: "ok", output: "ok" }) })
    await expect(h.runTool("t", {})).rejects.toBeInstanceOf(ToolDefect)
    await expect(h.runTool("t", {})).rejects.toThrow("Tool result declared output without an output schema")
  })

  test("even `output: undefined` is the key, and kills the call", async () => {
    const { h } = host()
    await addTool(h, { execute: async () => ({ content: "ok", output: undefined }) })
    await expect(h.runTool("t", {})).rejects.toBeInstanceOf(ToolDefect)
  })

  test("control: `{ content, metadata }` is read as content; a declared schema takes `output`", async () => {
    const { h } = host()
    await addTool(h, { execute: async () => ({ content: "done", metadata: { a: 1 } }) })
    expect(await h.runTool("t", {})).toEqual({ content: [{ type: "text", text: "done" }], metadata: { a: 1 } })
    const other = host().h
    await addTool(other, { output: { type: "string" }, execute: async () => ({ output: "v" }) })
    expect((await other.runTool("t", {})).content).toEqual([{ type: "text", text: '"v"' }])
  })

  test("a declared schema with no `output` is a failure the model reads; a throw is a failure too", async () => {
    const { h } = host()
    await addTool(h, { output: { type: "string" }, execute: async () => ({ content: "x" }) })
    expect((await h.runTool("t", {})).failed).toBe("Tool did not return its declared output")
    const other = host().h
    await addTool(other, { execute: async () => Promise.reject(new Error("nope")) })
    expect((await other.runTool("t", {})).failed).toBe("nope")
  })
})

describe("2026-12-03 item 2: session hooks", () => {
  test("hook(name, cb, { providerID? }) takes the nine names and resolves to { dispose }", async () => {
    const { h } = host()
    for (const name of SESSION_HOOK_NAMES) {
      const registration = await session(h).hook!(name, () => undefined, { providerID: "openai" })
      expect(typeof registration.dispose).toBe("function")
    }
    expect(SESSION_HOOK_NAMES.size).toBe(9)
    await expect(session(h).hook!("session.retry", () => undefined)).rejects.toThrow("unknown hook")
    await expect(session(h).hook!("retry", "not a function")).rejects.toThrow("callback")
  })

  test("retry: the host proposes 2 s doubling, the hook hears { sessionID, agent, model, error, attempt, decision } and may re-time it", async () => {
    const { h, time } = host()
    const heard: any[] = []
    await session(h).hook!("retry", (e: any) => {
      heard.push(structuredClone(e))
      if (e.attempt === 2) e.decision = { retry: true, delay: 60_000 }
    })
    h.userTurn(SID)
    const done = h.providerFails(SID, { type: "provider.rate-limit", message: "429", status: 429 }, { times: 2 })
    await flush()
    expect(heard).toHaveLength(1)
    expect(Object.keys(heard[0]).sort()).toEqual(["agent", "attempt", "decision", "error", "model", "sessionID"])
    expect(heard[0].decision).toEqual({ retry: true, delay: 2_000 })
    // Re-timed: nothing before the minute the hook asked for.
    time.advance(59_999)
    await flush()
    expect(heard).toHaveLength(1)
    time.advance(1)
    await flush()
    expect(heard[1].decision).toEqual({ retry: true, delay: 4_000 })
    time.advance(4_000)
    expect((await done).decisions).toEqual([{ retry: true, delay: 60_000 }, { retry: true, delay: 4_000 }])
    expect(h.isBusy(SID)).toBe(false)
  })

  test("retry: `{ retry: false }` from the hook ends the run at once with the error", async () => {
    const { h } = host()
    await session(h).hook!("retry", (e: any) => void (e.decision = { retry: false }))
    h.userTurn(SID)
    const runs: string[] = []
    const sub = (h.ctx.event as Session).subscribe!({ types: ["session.execution.failed", "session.retry.scheduled"] })
    await h.providerFails(SID, { type: "provider.rate-limit", message: "429", status: 429 })
    runs.push(...(await collect(await sub, 5)))
    expect(runs).toEqual(["session.execution.failed"])
  })

  test("retry: once the budget is spent the hook is not called and the run fails", async () => {
    const { h, time } = host()
    let calls = 0
    await session(h).hook!("retry", () => void calls++)
    h.userTurn(SID)
    const done = h.providerFails(SID, { type: "provider.transport", message: "reset" })
    for (let i = 0; i < 10; i++) {
      time.advance(60_000)
      await flush()
    }
    await done
    expect(calls).toBe(HOST_RETRY_BUDGET)
    expect(h.isBusy(SID)).toBe(false)
  })

  test("http.response carries status and Retry-After; the error object carries only response.body", async () => {
    const { h } = host()
    const responses: Response[] = []
    const errors: any[] = []
    await session(h).hook!("http.response", (e: any) => void responses.push(e.response))
    await session(h).hook!("retry", (e: any) => {
      errors.push(e.error)
      e.decision = { retry: false }
    })
    h.userTurn(SID)
    await h.providerFails(SID, { type: "provider.rate-limit", message: "429", status: 429 }, { retryAfterMs: 120_000 })
    expect(responses[0]!.status).toBe(429)
    expect(responses[0]!.headers.get("retry-after")).toBe("120")
    expect(errors[0].response).toEqual({ body: "{}" })
    expect(errors[0].headers).toBeUndefined()
  })

  test("a disposed hook is not called; a provider-bound hook hears only its provider", async () => {
    const { h } = host()
    let calls = 0
    const registration = await session(h).hook!("retry", () => void calls++)
    await session(h).hook!("retry", () => void calls++, { providerID: "anthropic" })
    await registration.dispose()
    h.userTurn(SID)
    await h.providerFails(SID, { type: "provider.auth", message: "bad key", status: 401 }, { retryable: false })
    expect(calls).toBe(0)
  })
})

describe("2026-12-03 item 3: session members, idempotent sends, interrupt", () => {
  test("the newest members; no summarize, active or subscribeGlobal; 2.0.16 lacks compact and remove", () => {
    const newest = ["hook", "create", "get", "remove", "switchAgent", "switchModel", "prompt", "generate", "command", "compact", "synthetic", "interrupt", "update", "move", "wait", "context"]
    expect(Object.keys(host().h.ctx.session as object).sort()).toEqual([...newest].sort())
    const ctx = host().h.ctx as Record<string, any>
    expect(ctx.session.summarize).toBeUndefined()
    expect(ctx.session.active).toBeUndefined()
    expect(ctx.event.subscribeGlobal).toBeUndefined()
    const old = host({ version: "2.0.16" }).h.ctx as Record<string, any>
    expect(old.session.compact).toBeUndefined()
    expect(old.session.remove).toBeUndefined()
  })

  test("a second prompt or synthetic with an id already used is refused with a ConflictError, from any instance", async () => {
    const { h } = host()
    await session(h).prompt!({ sessionID: SID, id: "msg_auto_1", text: "continue" })
    await expect(session(h).prompt!({ sessionID: SID, id: "msg_auto_1", text: "continue" })).rejects.toBeInstanceOf(ConflictError)
    await expect(session(h).synthetic!({ sessionID: SID, id: "msg_auto_1", text: "continue" })).rejects.toThrow("already exists")
    const other = h.anotherCtx({})
    await expect(session(h, other).prompt!({ sessionID: SID, id: "msg_auto_1", text: "continue" })).rejects.toBeInstanceOf(ConflictError)
    // Control: another id, or none, is admitted.
    await expect(session(h).prompt!({ sessionID: SID, id: "msg_auto_2", text: "continue" })).resolves.toMatchObject({ id: "msg_auto_2" })
    await expect(session(h).prompt!({ sessionID: SID, text: "continue" })).resolves.toBeDefined()
    // The id is a Session.Message.ID: `msg_` first, or the host's schema refuses it.
    await expect(session(h).prompt!({ sessionID: SID, id: "auto_1", text: "continue" })).rejects.toThrow("msg_")
    expect(h.history.get(SID)!.filter((m) => m.id === "msg_auto_1")).toHaveLength(1)
  })

  test("interrupt({ sessionID }) answers { interrupted }", async () => {
    const { h } = host()
    h.userTurn(SID)
    expect(await session(h).interrupt!({ sessionID: SID })).toEqual({ interrupted: true })
    expect(await session(h).interrupt!({ sessionID: SID })).toEqual({ interrupted: false })
  })
})

describe("2026-12-03 item 4: events", () => {
  test("subscribe({ signal, types }) delivers only the types asked for; the signal ends it", async () => {
    const { h } = host()
    const controller = new AbortController()
    const sub = (h.ctx.event as Record<string, any>).subscribe({ signal: controller.signal, types: ["session.execution.started"] })
    h.userTurn(SID)
    expect(await collect(sub, 5)).toEqual(["session.execution.started"])
    controller.abort()
    expect(h.openSubscriptions).toBe(0)
  })

  test("an intermediate build takes subscribe(types) and refuses an options object", () => {
    const { h } = host({ subscribeForm: "types" })
    const subscribe = (h.ctx.event as Record<string, any>).subscribe
    expect(() => subscribe({ types: ["session.execution.started"] })).toThrow(TypeError)
    expect(() => subscribe(["session.execution.started"])).not.toThrow()
  })

  test("a build that ignores the filter delivers everything", async () => {
    const { h } = host({ subscribeForm: "unfiltered" })
    const sub = (h.ctx.event as Record<string, any>).subscribe({ types: ["session.execution.started"] })
    h.userTurn(SID)
    expect(await collect(sub, 10)).toContain("session.step.started")
  })

  test("tool lifecycle: input.started { id, name }, called { id, input, executed }, success { id, content }, failed { id, error }", async () => {
    const { h } = host()
    const events: any[] = []
    const sub = (h.ctx.event as Record<string, any>).subscribe({ types: ["session.tool.input.started", "session.tool.called", "session.tool.success", "session.tool.failed"] })
    h.userTurn(SID)
    h.toolStart(SID, "call_1", "bash", { command: "ls" })
    h.toolEnd(SID, "call_1", "a b")
    h.toolStart(SID, "call_2", "bash")
    h.toolFailed(SID, "call_2", "exit 1")
    const it = sub[Symbol.asyncIterator]()
    for (let i = 0; i < 6; i++) events.push((await it.next()).value)
    expect(events.map((e) => e.type)).toEqual(["session.tool.input.started", "session.tool.called", "session.tool.success", "session.tool.input.started", "session.tool.called", "session.tool.failed"])
    expect(events[0].data).toMatchObject({ id: "call_1", name: "bash" })
    expect(events[1].data).toMatchObject({ id: "call_1", input: { command: "ls" }, executed: false })
    expect(events[2].data).toMatchObject({ id: "call_1", content: [{ type: "text", text: "a b" }] })
    expect(events[5].data).toMatchObject({ id: "call_2", error: { message: "exit 1" } })
  })

  test("execution.interrupted carries its reason: user for ESC, the host's own otherwise; step.failed { error, finish }", async () => {
    const { h } = host()
    const sub = (h.ctx.event as Record<string, any>).subscribe({ types: ["session.execution.interrupted", "session.step.failed"] })
    const it = sub[Symbol.asyncIterator]()
    h.userTurn(SID)
    h.userEsc(SID)
    const reasons: unknown[] = []
    const steps: unknown[] = []
    for (const reason of ["superseded", "inactivity", "shutdown"] as const) {
      h.userTurn(SID)
      h.hostInterrupts(SID, reason)
    }
    for (let i = 0; i < 8; i++) {
      const e = (await it.next()).value
      if (e.type === "session.step.failed") steps.push(e.data.error)
      else reasons.push(e.data.reason)
    }
    expect(reasons).toEqual(["user", "superseded", "inactivity", "shutdown"])
    expect(steps[0]).toEqual({ type: "aborted", message: "Aborted" })
    h.userTurn(SID)
    h.failRun(SID, { type: "provider.transport", message: "reset" })
    expect(h.history.get(SID)!.at(-2)!.error).toEqual({ type: "provider.transport", message: "reset" })
  })

  test("session.status and session.idle are never emitted: the fake refuses to send them", () => {
    const { h } = host()
    expect(() => h.emit("session.status", { sessionID: SID, status: { type: "busy" } })).toThrow("never emitted")
    expect(() => h.emit("session.idle", { sessionID: SID })).toThrow("never emitted")
    expect(() => h.emit("session.execution.succeeded", { sessionID: SID })).not.toThrow()
  })
})

describe("2026-12-03 items 5 and 6: plugin source, message route", () => {
  test("plugin.list names the package as source.target in newer builds, source.package in older ones", async () => {
    const newer = (await ((host().h.ctx.plugin as Session).list!())) as { data: any[] }
    expect(newer.data[0].source).toEqual({ type: "package", target: "opencode-auto-resume", version: "0.0.0" })
    const older = (await ((host({ version: "2.0.16" }).h.ctx.plugin as Session).list!())) as { data: any[] }
    expect(older.data[0].source).toEqual({ type: "package", package: "opencode-auto-resume" })
  })

  test("the message route takes order=asc|desc and a limit of 1-200; anything else is a 400", async () => {
    const { h } = host()
    h.userTurn(SID, "first")
    h.finishRun(SID)
    const get = async (query: string) => {
      const r = await h.fetch(`${h.server!.url}/api/session/${SID}/message?${query}`, { method: "GET", headers: { authorization: `Basic ${Buffer.from("opencode:s3cret").toString("base64")}` }, signal: new AbortController().signal })
      return { status: r.status, body: (await r.json()) as { data?: any[] } }
    }
    const desc = await get("order=desc&limit=2")
    const asc = await get("order=asc&limit=2")
    expect(desc.body.data!.map((m) => m.type)).toEqual(["idle", "assistant"])
    expect(asc.body.data!.map((m) => m.type)).toEqual(["user", "assistant"])
    for (const bad of ["limit=0", "limit=201", "limit=2.5", "order=newest&limit=5"]) expect((await get(bad)).status).toBe(400)
    expect((await get("limit=200")).status).toBe(200)
  })
})

describe("2026-12-01: what the fake holds", () => {
  test("item 5: a failed run's error is { type, message, status? }, never a 1.x name", async () => {
    const { h } = host()
    const sub = (h.ctx.event as Record<string, any>).subscribe({ types: ["session.execution.failed"] })
    h.userTurn(SID)
    h.failRun(SID, { type: "provider.rate-limit", message: "429", status: 429 })
    const e = (await sub[Symbol.asyncIterator]().next()).value
    expect(e.data.error).toEqual({ type: "provider.rate-limit", message: "429", status: 429 })
    expect(e.data.error.name).toBeUndefined()
  })

  test("item 3: form.created is ephemeral with the session inside the form; the reply names only the form", async () => {
    const { h } = host()
    const it = (h.ctx.event as Record<string, any>).subscribe({ types: ["form.created", "form.replied"] })[Symbol.asyncIterator]()
    h.askForm(SID, "frm_1")
    h.replyForm("frm_1")
    const created = (await it.next()).value
    const replied = (await it.next()).value
    expect(created.durable).toBeUndefined()
    expect(created.data.form.sessionID).toBe(SID)
    expect(created.data.sessionID).toBeUndefined()
    expect(replied.data).toEqual({ id: "frm_1", values: { choice: "a" } })
  })

  test("items 2 and 8: the subagent tool is `subagent`; a call cut off mid-input is a `streaming` part", () => {
    const { h } = host()
    h.userTurn(SID)
    h.subagentCall(SID, "call_s", "ses_child")
    h.toolInputStreaming(SID, "call_x", "bash")
    const parts = (h.history.get(SID)!.find((m) => m.type === "assistant")!.content as any[]).map((p) => [p.name, p.state.status])
    expect(parts).toEqual([["subagent", "running"], ["bash", "streaming"]])
  })

  test("item 6: each instance has its location; a second ctx on the same host shares the sessions", () => {
    const { h } = host({ directory: "/a", workspaceID: "wrk_1" })
    expect(h.ctx.location).toEqual({ directory: "/a", workspaceID: "wrk_1" })
    h.userTurn(SID)
    expect(h.anotherCtx({}).location).toEqual({ directory: "/a", workspaceID: "wrk_1" })
  })
})
