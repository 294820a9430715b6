/** OpenCode 2.x event shapes (per the host document) -> core signals, both spellings of every renamed field. */
import { describe, expect, test } from "bun:test"
import { belongsHere, decodeV2Event, interruptedByUser, SUBSCRIBED_TYPES, ToolNamesByCall } from "../../../src/host/v2/events.ts"
import { mapV2Event } from "../../support/map-events.ts"
import { RunMemory } from "../../../src/host/v2/run-memory.ts"

const ev = (type: string, data: unknown, extra: Record<string, unknown> = {}) => ({ id: "evt_1", created: 1, type, data, ...extra })
const map = (event: unknown, tools = new ToolNamesByCall(), now = 0) => mapV2Event(event, tools, () => now)
const types = (event: unknown, tools?: ToolNamesByCall) => map(event, tools).map((s) => s.type)

describe("run lifecycle", () => {
  test("busy and idle come from session.execution.*", () => {
    expect(map(ev("session.execution.started", { sessionID: "s" }))).toEqual([{ type: "busy", sessionID: "s" }])
    expect(map(ev("session.execution.succeeded", { sessionID: "s" }))).toEqual([{ type: "idle", sessionID: "s" }])
  })

  test("a failed run reports its error (type as the name, message, status) and goes idle", () => {
    const signals = map(
      ev("session.execution.failed", { sessionID: "s", error: { type: "provider.rate-limit", message: "429", status: 429, response: { headers: { "retry-after": "7" } } } }),
    )
    expect(signals).toEqual([
      { type: "error", sessionID: "s", name: "provider.rate-limit", message: "429", status: 429, retryAfterMs: 7000 },
      { type: "idle", sessionID: "s" },
    ])
  })

  test("an aborted step or run is an interruption, never an error to recover", () => {
    expect(types(ev("session.step.failed", { sessionID: "s", error: { type: "aborted", message: "Aborted" } }))).toEqual(["activity"])
    expect(map(ev("session.execution.failed", { sessionID: "s", error: { type: "aborted", message: "Aborted" } }))).toEqual([
      { type: "interrupted", sessionID: "s" },
      { type: "idle", sessionID: "s" },
    ])
    // Negative control: any other type is an error.
    expect(types(ev("session.execution.failed", { sessionID: "s", error: { type: "provider.transport", message: "socket closed" } }))).toEqual(["error", "idle"])
  })

  test("error fields under their other spellings: name, statusCode, data.message, response.status, retry-after-ms", () => {
    const [err] = map(ev("session.execution.failed", { sessionID: "s", error: { name: "ProviderError", data: { message: "boom" }, statusCode: 503 } }))
    expect(err).toEqual({ type: "error", sessionID: "s", name: "ProviderError", message: "boom", status: 503 })
    const [err2] = map(ev("session.execution.failed", { sessionID: "s", error: { type: "x", message: "m", response: { status: 500, headers: { "Retry-After-Ms": "250" } } } }))
    expect(err2).toMatchObject({ status: 500, retryAfterMs: 250 })
    const [bare] = map(ev("session.execution.failed", { sessionID: "s", error: "socket hang up" }))
    expect(bare).toEqual({ type: "error", sessionID: "s", name: "UnknownError", message: "socket hang up" })
  })

  test("a step failure is not the end of the run: its error reaches the core once, when the run fails", () => {
    const memory = new RunMemory()
    const tools = new ToolNamesByCall()
    const step = (type: string, data: unknown) => mapV2Event(ev(type, data), tools, () => 0, memory).map((s) => s.type)
    const error = { type: "provider.rate-limit", message: "429", status: 429 }
    expect(step("session.step.failed", { sessionID: "s", error })).toEqual(["activity"])
    expect(step("session.execution.failed", { sessionID: "s", error })).toEqual(["error", "idle"])
    // A run whose end carries no error still reports its step's.
    step("session.execution.started", { sessionID: "s" })
    step("session.step.failed", { sessionID: "s", error })
    expect(mapV2Event(ev("session.execution.failed", { sessionID: "s" }), tools, () => 0, memory)[0]).toMatchObject({ type: "error", name: "provider.rate-limit", status: 429 })
    // Negative control: a step the host retried and a run that then succeeded report nothing.
    step("session.execution.started", { sessionID: "s" })
    step("session.step.failed", { sessionID: "s", error })
    expect(step("session.retry.scheduled", { sessionID: "s", attempt: 1 })).toEqual(["retryScheduled"])
    expect(step("session.execution.succeeded", { sessionID: "s" })).toEqual(["idle"])
    expect(memory.keptErrors).toBe(0)
  })

  test("interrupted is always terminal; only reason user (or none) can be a user stop", () => {
    expect(map(ev("session.execution.interrupted", { sessionID: "s", reason: "user" }))).toEqual([
      { type: "interrupted", sessionID: "s", byUser: undefined },
      { type: "idle", sessionID: "s" },
    ])
    for (const reason of ["shutdown", "superseded", "inactivity"]) {
      const [interrupted, idle] = map(ev("session.execution.interrupted", { sessionID: "s", reason }))
      expect(interrupted).toEqual({ type: "interrupted", sessionID: "s", byUser: false })
      expect(idle).toEqual({ type: "idle", sessionID: "s" })
    }
    expect(interruptedByUser({ type: "user" })).toBeUndefined()
    expect(interruptedByUser({ type: "shutdown" })).toBe(false)
    expect(interruptedByUser(undefined)).toBeUndefined()
  })

  test("session.status / session.idle (declared, not emitted by 2.x) are mere activity: busy and idle come from execution.* only", () => {
    expect(types(ev("session.status", { sessionID: "s", status: { type: "busy" } }))).toEqual(["activity"])
    expect(types(ev("session.status", { sessionID: "s", status: "idle" }))).toEqual(["activity"])
    expect(types(ev("session.idle", { sessionID: "s" }))).toEqual(["activity"])
  })

  test("a retry scheduled far ahead carries how far and the failure's type, status and message", () => {
    const error = { type: "provider.rate-limit", message: "insufficient_quota", status: 429 }
    expect(map(ev("session.retry.scheduled", { sessionID: "s", attempt: 1, at: 3_601_000, error }), undefined, 1_000)).toEqual([
      { type: "retryScheduled", sessionID: "s", retryInMs: 3_600_000, name: "provider.rate-limit", message: "insufficient_quota", status: 429 },
    ])
  })

  test("retries scheduled by the host are not stalls", () => {
    expect(map(ev("session.retry.scheduled", { sessionID: "s", attempt: 2, at: 5, error: {} }))).toEqual([{ type: "retryScheduled", sessionID: "s", retryInMs: 5 }])
  })
})

describe("session id and location", () => {
  test("data.sessionID first, durable.aggregateID as the fallback", () => {
    expect(map(ev("session.execution.started", {}, { durable: { aggregateID: "agg", seq: 1, version: 1 } }))).toEqual([{ type: "busy", sessionID: "agg" }])
    expect(map(ev("session.execution.started", { sessionID: "s" }, { durable: { aggregateID: "agg", seq: 1, version: 1 } }))).toEqual([
      { type: "busy", sessionID: "s" },
    ])
  })

  test("events are kept only when their location matches the host's (trailing slash ignored), or either is unknown", () => {
    const here = decodeV2Event(ev("x", { sessionID: "s" }, { location: { directory: "/p/a/" } }))!
    expect(belongsHere(here, "/p/a")).toBe(true)
    expect(belongsHere(here, "/p/b")).toBe(false)
    expect(belongsHere(here, undefined)).toBe(true)
    expect(belongsHere(decodeV2Event(ev("x", { sessionID: "s" }))!, "/p/b")).toBe(true)
  })

  test("malformed events are skipped, never thrown on", () => {
    const bad = [null, undefined, 42, "x", {}, { type: 5 }, { type: "session.execution.started" }, ev("session.execution.started", []), ev("session.execution.started", {}), { type: "session.idle", properties: { sessionID: "s" } }]
    for (const event of bad) {
      expect(() => map(event)).not.toThrow()
      expect(map(event)).toEqual([])
    }
  })

  test("events without a session (plugin.added, catalog updates) map to nothing", () => {
    expect(map(ev("plugin.added", { id: "x" }))).toEqual([])
  })
})

describe("liveness and output", () => {
  test("text and reasoning deltas are model output", () => {
    for (const type of ["session.text.started", "session.text.delta", "session.text.ended", "session.reasoning.delta"]) {
      expect(types(ev(type, { sessionID: "s", assistantMessageID: "a", delta: "x" }))).toEqual(["modelOutput"])
    }
  })

  test("tool progress is a heartbeat (activity), as is every event we do not model", () => {
    expect(types(ev("session.tool.progress", { sessionID: "s", id: "c", metadata: {} }))).toEqual(["activity"])
    for (const type of ["session.step.started", "session.compaction.delta", "session.inbox.enqueued", "session.shell.started", "session.brand.new"]) {
      expect(types(ev(type, { sessionID: "s" }))).toEqual(["activity"])
    }
  })

  test("usage carries output + reasoning tokens keyed by the assistant message (the core counts growth only)", () => {
    expect(map(ev("session.usage.updated", { sessionID: "s", assistantMessageID: "a", cost: 0, tokens: { input: 900, output: 10, reasoning: 5, cache: { read: 0, write: 0 } } }))).toEqual([
      { type: "usage", sessionID: "s", tokens: 15, messageID: "a", contextTokens: 915 },
    ])
    expect(map(ev("session.usage.updated", { sessionID: "s", tokens: 42 }))).toEqual([{ type: "usage", sessionID: "s", tokens: 42 }])
  })

  test("a step's end carries its context size: input + output + reasoning + cache read + cache write", () => {
    const tokens = { input: 150_000, output: 2_000, reasoning: 500, cache: { read: 20_000, write: 1_000 } }
    expect(map(ev("session.step.ended", { sessionID: "s", assistantMessageID: "a", finish: "stop", cost: 0.1, tokens }))).toEqual([
      { type: "usage", sessionID: "s", tokens: 2_500, messageID: "a", contextTokens: 173_500 },
    ])
    // Negative control: a step end without token figures is only a sign of life.
    expect(types(ev("session.step.ended", { sessionID: "s", assistantMessageID: "a", finish: "stop" }))).toEqual(["activity"])
  })
})

describe("tools", () => {
  test("the name from input.started joins the call from tool.called (id spelling), with its input as args", () => {
    const tools = new ToolNamesByCall()
    expect(types(ev("session.tool.input.started", { sessionID: "s", assistantMessageID: "a", id: "c1", name: "bash" }), tools)).toEqual(["modelOutput"])
    expect(types(ev("session.tool.input.delta", { sessionID: "s", id: "c1", delta: "{" }), tools)).toEqual(["modelOutput"])
    expect(map(ev("session.tool.called", { sessionID: "s", id: "c1", input: { command: "ls" }, executed: false }), tools)).toEqual([
      { type: "toolStart", sessionID: "s", callID: "c1", tool: "bash", args: { command: "ls" } },
    ])
    expect(map(ev("session.tool.success", { sessionID: "s", id: "c1", content: [], executed: true }), tools)).toEqual([{ type: "toolEnd", sessionID: "s", callID: "c1", tool: "bash", outcome: "ok" }])
    expect(tools.size).toBe(0)
  })

  test("the older callID spelling, and a failed tool", () => {
    const tools = new ToolNamesByCall()
    map(ev("session.tool.input.started", { sessionID: "s", callID: "c2", name: "read" }), tools)
    expect(map(ev("session.tool.called", { sessionID: "s", callID: "c2", input: {} }), tools)[0]).toMatchObject({ type: "toolStart", callID: "c2", tool: "read" })
    expect(map(ev("session.tool.failed", { sessionID: "s", callID: "c2", error: "x" }), tools)).toEqual([{ type: "toolEnd", sessionID: "s", callID: "c2", tool: "read", outcome: "failed", error: "x" }])
  })

  test("a tool call's end says how it ended: its error, a permission refused, a missing tool, a command's exit code", () => {
    const end = (type: string, data: Record<string, unknown>) => {
      const tools = new ToolNamesByCall()
      map(ev("session.tool.input.started", { sessionID: "s", id: "c1", name: "shell" }), tools)
      return map(ev(type, { sessionID: "s", id: "c1", ...data }), tools)[0]
    }
    expect(end("session.tool.failed", { error: { type: "tool.execution", message: "oldString not found in content" } })).toEqual({
      type: "toolEnd",
      sessionID: "s",
      callID: "c1",
      tool: "shell",
      outcome: "failed",
      error: "oldString not found in content",
    })
    expect(end("session.tool.failed", { error: { type: "permission.rejected", message: "declined" } })).toMatchObject({ outcome: "denied" })
    expect(end("session.tool.failed", { error: { message: "The user rejected permission to use this specific tool call." } })).toMatchObject({ outcome: "denied" })
    expect(end("session.tool.failed", { error: { type: "aborted", message: "interrupted" } })).toMatchObject({ outcome: "aborted" })
    expect(end("session.tool.failed", { error: { type: "tool.unavailable", message: "Model tried to call unavailable tool 'bassh'" } })).toMatchObject({ outcome: "unavailable" })
    expect(end("session.tool.success", { content: [{ type: "text", text: "FAIL src/a.test.ts\n1 failed" }], metadata: { exitCode: 1 } })).toMatchObject({ outcome: "failed", error: "exit code 1: 1 failed" })
    expect(end("session.tool.success", { content: "ok", metadata: { exit: 0 } })).toMatchObject({ outcome: "ok" })
  })

  test("a call whose name we never saw is still a tool call; one without an id is only output", () => {
    expect(map(ev("session.tool.called", { sessionID: "s", id: "c3" }))).toEqual([{ type: "toolStart", sessionID: "s", callID: "c3", tool: "unknown" }])
    expect(map(ev("session.tool.called", { sessionID: "s", id: "c4", name: "grep" }))[0]).toMatchObject({ tool: "grep" })
    expect(types(ev("session.tool.called", { sessionID: "s" }))).toEqual(["modelOutput"])
  })

  test("the tool-name memory is bounded", () => {
    const tools = new ToolNamesByCall()
    for (let i = 0; i < 5000; i++) tools.remember("s", `c${i}`, "bash")
    expect(tools.size).toBeLessThanOrEqual(2000)
    expect(tools.lookup("s", "c4999")).toBe("bash")
    expect(tools.lookup("s", "c0")).toBeUndefined()
  })
})

describe("waiting on the user", () => {
  test("permission.asked opens a gate; permission.replied closes it whichever field names the request", () => {
    expect(map(ev("permission.asked", { id: "p1", sessionID: "s" }))).toEqual([{ type: "awaitingUser", sessionID: "s", key: "p1", open: true }])
    expect(map(ev("permission.replied", { sessionID: "s", requestID: "p1", reply: "once" }))).toEqual([{ type: "awaitingUser", sessionID: "s", key: "p1", open: false }])
    const closes = map(ev("permission.replied", { sessionID: "s", id: "r9", permissionID: "p1" }))
    expect(closes.map((s) => (s as { key: string }).key)).toEqual(["r9", "p1"])
  })

  test("form.created names its session inside the form; the reply (data.id only) is tied back to it", () => {
    const forms = new RunMemory()
    const tools = new ToolNamesByCall()
    expect(mapV2Event(ev("form.created", { form: { id: "f1", sessionID: "s", title: "Pick one", fields: [] } }), tools, () => 0, forms)).toEqual([
      { type: "awaitingUser", sessionID: "s", key: "f1", open: true },
    ])
    expect(mapV2Event(ev("form.replied", { id: "f1" }), tools, () => 0, forms)).toEqual([{ type: "awaitingUser", sessionID: "s", key: "f1", open: false }])
    expect(forms.openForms).toBe(0)
    mapV2Event(ev("form.created", { form: { id: "f2", sessionID: "s", fields: [] } }), tools, () => 0, forms)
    expect(mapV2Event(ev("form.cancelled", { id: "f2" }), tools, () => 0, forms)).toEqual([{ type: "awaitingUser", sessionID: "s", key: "f2", open: false }])
    // Negative control: a reply to a form never seen names no session, so it closes nothing.
    expect(mapV2Event(ev("form.replied", { id: "f9" }), tools, () => 0, forms)).toEqual([])
  })

  test("the run's end forgets its forms (the core drops open requests on idle); the memory is bounded", () => {
    const forms = new RunMemory()
    const tools = new ToolNamesByCall()
    mapV2Event(ev("form.created", { form: { id: "f1", sessionID: "s", fields: [] } }), tools, () => 0, forms)
    mapV2Event(ev("form.created", { form: { id: "g1", sessionID: "other", fields: [] } }), tools, () => 0, forms)
    mapV2Event(ev("session.execution.succeeded", { sessionID: "s" }), tools, () => 0, forms)
    expect(forms.formSession("f1")).toBeUndefined()
    expect(forms.formSession("g1")).toBe("other")
    for (let i = 0; i < 1000; i++) forms.rememberForm(`x${i}`, "s")
    expect(forms.openForms).toBeLessThanOrEqual(256)
    for (let i = 0; i < 5000; i++) forms.noteStepError(`s${i}`, { type: "x" })
    expect(forms.keptErrors).toBeLessThanOrEqual(1000)
  })

  test("the other spellings still open and close the gate: data.sessionID, formID, the old question.* names", () => {
    expect(map(ev("form.created", { sessionID: "s", form: { id: "f1" } }))).toEqual([{ type: "awaitingUser", sessionID: "s", key: "f1", open: true }])
    expect(map(ev("form.replied", { sessionID: "s", formID: "f1" }))[0]).toMatchObject({ key: "f1", open: false })
    expect(map(ev("question.asked", { sessionID: "s", id: "q1" }))[0]).toMatchObject({ key: "q1", open: true })
    expect(map(ev("question.rejected", { sessionID: "s", requestID: "q1" }))[0]).toMatchObject({ key: "q1", open: false })
  })

  test("a request without any id opens and closes by its family", () => {
    expect(map(ev("form.created", { form: { sessionID: "s" } }))[0]).toMatchObject({ key: "form", open: true })
    expect(map(ev("form.replied", { sessionID: "s" }))[0]).toMatchObject({ key: "form", open: false })
  })
})

describe("sessions", () => {
  test("created and forked sessions report their parent; deleted ends tracking", () => {
    expect(map(ev("session.created", { sessionID: "c", projectID: "p", parentID: "par" }))).toEqual([{ type: "sessionCreated", sessionID: "c", parentID: "par" }])
    expect(map(ev("session.forked", { sessionID: "c2", parentID: "par" }))).toEqual([{ type: "sessionCreated", sessionID: "c2", parentID: "par" }])
    expect(map(ev("session.created", { sessionID: "top" }))).toEqual([{ type: "sessionCreated", sessionID: "top" }])
    expect(map(ev("session.created", { info: { id: "c3", parentID: "par" } }))).toEqual([{ type: "sessionCreated", sessionID: "c3", parentID: "par" }])
    expect(map(ev("session.deleted", { sessionID: "c" }))).toEqual([{ type: "sessionDeleted", sessionID: "c" }])
  })
})

describe("streamed text for the repetition detector", () => {
  test("text and reasoning deltas carry their new text, keyed by message and kind", () => {
    expect(map(ev("session.text.delta", { sessionID: "s", assistantMessageID: "m1", delta: "Hello. " }))).toEqual([
      { type: "modelOutput", sessionID: "s", part: "text:m1", delta: "Hello. " },
    ])
    expect(map(ev("session.reasoning.delta", { sessionID: "s", assistantMessageID: "m1", delta: "Hmm. " }))[0]).toMatchObject({ part: "reasoning:m1" })
  })

  test("controls: a delta with no message or no text, and tool input deltas, carry no text", () => {
    expect(map(ev("session.text.delta", { sessionID: "s", delta: "x" }))).toEqual([{ type: "modelOutput", sessionID: "s" }])
    expect(map(ev("session.text.delta", { sessionID: "s", assistantMessageID: "m1" }))).toEqual([{ type: "modelOutput", sessionID: "s" }])
    expect(map(ev("session.tool.input.delta", { sessionID: "s", assistantMessageID: "m1", id: "c1", delta: "{" }))).toEqual([{ type: "modelOutput", sessionID: "s" }])
  })
})

describe("the subscription's filter", () => {
  // Every event type the 2.x host document names (2026-12-03 corrections and the list below them).
  const DOCUMENTED = [
    "session.execution.started", "session.execution.succeeded", "session.execution.failed", "session.execution.interrupted",
    "session.step.started", "session.step.ended", "session.step.failed", "session.step.streamed",
    "session.text.started", "session.text.delta", "session.text.ended", "session.reasoning.started", "session.reasoning.delta", "session.reasoning.ended",
    "session.tool.input.started", "session.tool.input.delta", "session.tool.input.ended", "session.tool.called", "session.tool.progress", "session.tool.success", "session.tool.failed",
    "session.usage.updated", "session.retry.scheduled",
    "session.compaction.started", "session.compaction.delta", "session.compaction.ended", "session.compaction.failed",
    "session.inbox.enqueued", "session.inbox.delivered", "session.inbox.cancelled", "session.inbox.delivery.changed", "session.input.admitted", "session.input.promoted",
    "permission.asked", "permission.replied", "form.created", "form.replied", "form.cancelled",
    "session.shell.started", "session.shell.ended", "session.created", "session.forked", "session.deleted",
  ]

  test("every documented event the adapter turns into a signal other than plain activity is asked for", () => {
    const missing = DOCUMENTED.filter((type) => {
      const signals = map(ev(type, { sessionID: "s", id: "c1", name: "bash", reason: "user", error: { type: "x", message: "m" }, form: { id: "f", sessionID: "s" }, info: { id: "s" } }))
      return signals.some((s) => s.type !== "activity") && !SUBSCRIBED_TYPES.includes(type)
    })
    expect(missing).toEqual([])
  })
})
