/** OpenCode 1.x event shapes (as observed on 1.18.33) -> core signals. */
import { describe, expect, test } from "bun:test"
import { MessageRoles, mapStreamingEvent } from "../../../src/host/v1/events.ts"
import { mapV1Event } from "../../support/map-events.ts"

const ev = (type: string, properties: unknown) => ({ type, properties })
const map = (event: unknown, roles = new MessageRoles()) => mapV1Event(event, roles, () => 0)

describe("mapV1Event", () => {
  test("session status drives busy/idle; retry is busy plus a host retry", () => {
    expect(map(ev("session.status", { sessionID: "s", status: { type: "busy" } }))).toEqual([{ type: "busy", sessionID: "s" }])
    expect(map(ev("session.status", { sessionID: "s", status: { type: "idle" } }))).toEqual([{ type: "idle", sessionID: "s" }])
    expect(map(ev("session.status", { sessionID: "s", status: { type: "retry", attempt: 1 } })).map((x) => x.type)).toEqual(["busy", "retryScheduled"])
    expect(map(ev("session.idle", { sessionID: "s" }))).toEqual([{ type: "idle", sessionID: "s" }])
  })

  test("MessageAbortedError is an interruption; other errors carry name, status and Retry-After", () => {
    expect(map(ev("session.error", { sessionID: "s", error: { name: "MessageAbortedError", data: { message: "x" } } }))).toEqual([
      { type: "interrupted", sessionID: "s" },
    ])
    const [err] = map(
      ev("session.error", {
        sessionID: "s",
        error: { name: "APIError", data: { message: "Rate limit exceeded", statusCode: 429, responseHeaders: { "Retry-After-Ms": "50" } } },
      }),
    )
    expect(err).toEqual({ type: "error", sessionID: "s", name: "APIError", message: "Rate limit exceeded", status: 429, retryAfterMs: 50 })
  })

  test("a Retry-After date is measured against the wall clock it is given, read only for errors", () => {
    const wall = Date.UTC(2026, 10, 29, 12, 0, 0)
    let reads = 0
    const wallNow = () => {
      reads++
      return wall
    }
    const headers = { "retry-after": new Date(wall + 60_000).toUTCString() }
    const [err] = mapV1Event(ev("session.error", { sessionID: "s", error: { name: "APIError", data: { statusCode: 429, responseHeaders: headers } } }), new MessageRoles(), wallNow)
    expect(err).toMatchObject({ type: "error", retryAfterMs: 60_000 })
    expect(reads).toBe(1)
    // Control: streaming events never read the wall clock.
    mapV1Event(ev("message.part.delta", { sessionID: "s", delta: "x" }), new MessageRoles(), wallNow)
    expect(reads).toBe(1)
  })

  test("assistant token totals become usage keyed by message; user messages are plain activity", () => {
    const roles = new MessageRoles()
    expect(map(ev("message.updated", { info: { id: "m1", sessionID: "s", role: "assistant", tokens: { output: 10, reasoning: 5 } } }), roles)).toEqual([
      { type: "usage", sessionID: "s", tokens: 15, messageID: "m1", contextTokens: 15 },
    ])
    const full = { input: 1000, output: 10, reasoning: 5, cache: { read: 200, write: 50 } }
    expect(map(ev("message.updated", { info: { id: "m2", sessionID: "s", role: "assistant", tokens: full } }), roles)[0]).toMatchObject({ contextTokens: 1265 })
    expect(map(ev("message.updated", { info: { id: "u1", sessionID: "s", role: "user" } }), roles)).toEqual([{ type: "activity", sessionID: "s", event: "message.updated" }])
    expect(roles.get("u1")).toBe("user")
  })

  test("text parts are model output only on assistant messages", () => {
    const roles = new MessageRoles()
    roles.set("a1", "assistant", "s")
    roles.set("u1", "user", "s")
    expect(map(ev("message.part.updated", { part: { type: "text", sessionID: "s", messageID: "a1" } }), roles)[0]?.type).toBe("modelOutput")
    expect(map(ev("message.part.updated", { part: { type: "text", sessionID: "s", messageID: "u1" } }), roles)[0]?.type).toBe("activity")
    expect(map(ev("message.part.delta", { sessionID: "s", messageID: "a1", delta: "x" }), roles)[0]?.type).toBe("modelOutput")
  })

  test("tool parts open and close tool calls by callID", () => {
    const part = (status: string) => ev("message.part.updated", { part: { type: "tool", sessionID: "s", callID: "c1", tool: "bash", state: { status } } })
    expect(map(part("running"))).toEqual([{ type: "toolStart", sessionID: "s", callID: "c1", tool: "bash" }])
    expect(map(part("completed"))).toEqual([{ type: "toolEnd", sessionID: "s", callID: "c1", tool: "bash", outcome: "ok" }])
    expect(map(part("error"))).toEqual([{ type: "toolEnd", sessionID: "s", callID: "c1", tool: "bash", outcome: "failed", error: "failed" }])
  })

  test("a tool call's end says how it ended: its error (one line, capped), a denial, a missing tool, a command's exit code", () => {
    const end = (tool: string, state: Record<string, unknown>) => map(ev("message.part.updated", { part: { type: "tool", sessionID: "s", callID: "c1", tool, state } }))[0]
    expect(end("read", { status: "error", error: "File not found: /w/src/a.ts\nDid you mean a.tsx?" })).toMatchObject({ outcome: "failed", error: "File not found: /w/src/a.ts Did you mean a.tsx?" })
    expect((end("read", { status: "error", error: "x".repeat(5000) }) as { error: string }).error.length).toBe(300)
    // 1.18's RejectedError, CorrectedError and DeniedError: the user's hand, never a failure.
    expect(end("read", { status: "error", error: "The user rejected permission to use this specific tool call." })).toMatchObject({ outcome: "denied" })
    expect(end("edit", { status: "error", error: "The user rejected permission to use this specific tool call with the following feedback: no" })).toMatchObject({ outcome: "denied" })
    expect(end("read", { status: "error", error: "The user has specified a rule which prevents you from using this specific tool call." })).toMatchObject({ outcome: "denied" })
    // A run stopped under the call (ESC, or our abort) is no verdict on the tool.
    expect(end("bash", { status: "error", error: "Tool execution aborted" })).toMatchObject({ outcome: "aborted" })
    // An OS error that says "permission denied" is a failure like any other.
    expect(end("bash", { status: "error", error: "EACCES: permission denied, open '/etc/shadow'" })).toMatchObject({ outcome: "failed" })
    expect(end("invalid", { status: "completed", input: { tool: "bassh" }, output: "Model tried to call unavailable tool 'bassh'." })).toMatchObject({ outcome: "unavailable" })
    expect(end("bash", { status: "completed", output: "make: *** No rule\nmake failed\n\n", metadata: { exit: 2 } })).toMatchObject({ outcome: "failed", error: "exit code 2: make failed" })
    expect(end("bash", { status: "completed", output: "", metadata: { exit: 0 } })).toMatchObject({ outcome: "ok" })
    expect(end("bash", { status: "completed", output: "done" })).toEqual({ type: "toolEnd", sessionID: "s", callID: "c1", tool: "bash", outcome: "ok" })
  })

  test("permissions and questions open and close an awaiting-user gate (both permission spellings)", () => {
    expect(map(ev("permission.asked", { id: "p1", sessionID: "s" }))).toEqual([{ type: "awaitingUser", sessionID: "s", key: "p1", open: true }])
    expect(map(ev("permission.updated", { id: "p1", sessionID: "s" }))[0]).toMatchObject({ open: true })
    expect(map(ev("permission.replied", { permissionID: "p1", sessionID: "s" }))).toEqual([{ type: "awaitingUser", sessionID: "s", key: "p1", open: false }])
  })

  test("session lifecycle: created with parent, deleted", () => {
    expect(map(ev("session.created", { info: { id: "c", parentID: "p" } }))).toEqual([{ type: "sessionCreated", sessionID: "c", parentID: "p" }])
    expect(map(ev("session.deleted", { info: { id: "c" } }))).toEqual([{ type: "sessionDeleted", sessionID: "c" }])
  })

  test("an event type we do not model is still liveness for its session", () => {
    expect(map(ev("session.diff", { sessionID: "s", diff: [] }))).toEqual([{ type: "activity", sessionID: "s", event: "session.diff" }])
    expect(map(ev("something.new.in.1.19", { sessionID: "s" }))).toEqual([{ type: "activity", sessionID: "s", event: "something.new.in.1.19" }])
  })

  test("malformed events are skipped, never thrown on", () => {
    for (const bad of [null, undefined, 42, "x", {}, { type: 5 }, { type: "session.idle" }, { type: "session.idle", properties: [] }, ev("session.status", {})]) {
      expect(() => map(bad)).not.toThrow()
      expect(map(bad)).toEqual([])
    }
  })

  test("the role memory is bounded, in messages and in sessions", () => {
    const roles = new MessageRoles()
    for (let i = 0; i < 5000; i++) roles.set(`m${i}`, "user", `s${i % 3}`)
    expect(roles.size).toBeLessThanOrEqual(2000)
    expect(roles.get("m4999")).toBe("user")
    expect(roles.get("m0")).toBeUndefined()
    const many = new MessageRoles()
    for (let i = 0; i < 5000; i++) many.set(`m${i}`, "user", `s${i}`)
    expect(many.size).toBeLessThanOrEqual(2000)
    expect(many.sessions).toBeLessThanOrEqual(2000)
    expect(many.get("m4999")).toBe("user")
  })

  test("a session keeps only its latest messages' roles", () => {
    const roles = new MessageRoles()
    for (let i = 0; i < 20; i++) roles.set(`m${i}`, "assistant", "s")
    expect(roles.get("m19")).toBe("assistant")
    expect(roles.get("m0")).toBeUndefined()
    expect(roles.size).toBe(8)
  })

  test("forgetting a session forgets its messages and only its messages", () => {
    const roles = new MessageRoles()
    roles.set("a1", "assistant", "s")
    roles.set("u1", "user", "s")
    roles.set("b1", "assistant", "t")
    roles.forgetSession("s")
    expect(roles.get("a1")).toBeUndefined()
    expect(roles.get("u1")).toBeUndefined()
    expect(roles.get("b1")).toBe("assistant")
    expect(roles.size).toBe(1)
    expect(roles.sessions).toBe(1)
    roles.forgetSession("unknown")
    expect(roles.size).toBe(1)
  })
})

describe("mapStreamingEvent (the event hook's first try)", () => {
  const roles = new MessageRoles()
  roles.set("a1", "assistant", "s")

  test("model output goes to the sink with no signal (null); a tool part update gives its one signal; both as mapV1Event maps them", () => {
    const delta = ev("message.part.delta", { sessionID: "s", messageID: "a1", partID: "p1", field: "text", delta: "x" })
    const part = ev("message.part.updated", { part: { id: "p2", type: "text", sessionID: "s", messageID: "a1", text: "xy" } })
    const tool = ev("message.part.updated", { part: { type: "tool", callID: "c1", tool: "bash", sessionID: "s", state: { status: "running" } } })
    const sunk: unknown[][] = []
    const sink = (...args: unknown[]) => void sunk.push(args)
    expect(mapStreamingEvent(delta, roles, sink)).toBeNull()
    expect(mapStreamingEvent(part, roles, sink)).toBeNull()
    expect(sunk).toEqual([
      ["s", "p1", "x"],
      ["s", "p2", undefined, "xy"],
    ])
    expect(mapV1Event(delta, roles, () => 0)).toEqual([{ type: "modelOutput", sessionID: "s", part: "p1", delta: "x" }])
    expect(mapStreamingEvent(tool, roles, sink)).toMatchObject({ type: "toolStart", callID: "c1" })
    expect([mapStreamingEvent(tool, roles, sink)]).toEqual([...mapV1Event(tool, roles, () => 0)])
    expect(sunk).toHaveLength(2)
  })

  test("a streaming event with no session is null and reaches no sink, and mapV1Event gives no signal for it", () => {
    const orphan = ev("message.part.delta", { messageID: "a1", delta: "x" })
    const sunk: unknown[] = []
    expect(mapStreamingEvent(orphan, roles, (...args) => void sunk.push(args))).toBeNull()
    expect(sunk).toEqual([])
    expect(mapV1Event(orphan, roles, () => 0)).toEqual([])
  })

  test("every other event is undefined: the hook hands it to mapV1Event", () => {
    const sunk: unknown[] = []
    for (const e of [ev("session.status", { sessionID: "s", status: { type: "busy" } }), ev("session.idle", { sessionID: "s" }), { type: "message.part.delta" }, null, "x"]) {
      expect(mapStreamingEvent(e, roles, (...args) => void sunk.push(args))).toBeUndefined()
    }
    expect(sunk).toEqual([])
  })
})

describe("streamed text for the repetition detector", () => {
  const roles = new MessageRoles()
  roles.set("a1", "assistant", "s")
  roles.set("u1", "user", "s")

  test("a text delta carries its part and new text; an assistant part update its whole text", () => {
    expect(map(ev("message.part.delta", { sessionID: "s", messageID: "a1", partID: "p1", field: "text", delta: "Hello. " }), roles)).toEqual([
      { type: "modelOutput", sessionID: "s", part: "p1", delta: "Hello. " },
    ])
    expect(map(ev("message.part.updated", { part: { id: "p2", type: "reasoning", sessionID: "s", messageID: "a1", text: "Thinking." } }), roles)).toEqual([
      { type: "modelOutput", sessionID: "s", part: "p2", text: "Thinking." },
    ])
  })

  test("controls: the user's own part, a delta of another field or with no part carry no text", () => {
    expect(map(ev("message.part.updated", { part: { id: "p3", type: "text", sessionID: "s", messageID: "u1", text: "go" } }), roles)).toEqual([{ type: "activity", sessionID: "s" }])
    expect(map(ev("message.part.delta", { sessionID: "s", messageID: "a1", partID: "p1", field: "input", delta: "{" }), roles)[0]).not.toHaveProperty("part", "p1")
    expect(map(ev("message.part.delta", { sessionID: "s", messageID: "a1", delta: "x" }), roles)[0]).not.toHaveProperty("part", expect.anything())
  })
})
