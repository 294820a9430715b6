/** 2.x session messages -> the normalized transcript. */
import { describe, expect, test } from "bun:test"
import { openUserRequest } from "../../../src/detect/hand-off.ts"
import { normalizeV2Message, normalizeV2Messages } from "../../../src/host/v2/messages.ts"

const assistant = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  id: "a1",
  type: "assistant",
  agent: "build",
  model: { id: "gpt-x", providerID: "openai" },
  content,
  time: { created: 10, completed: 20 },
  ...extra,
})

describe("normalizeV2Message", () => {
  test("assistant: text, reasoning, finish, tokens, time, agent and model (model.id is the model id)", () => {
    const m = normalizeV2Message(
      assistant([{ type: "reasoning", text: "hmm" }, { type: "text", text: "done" }], { finish: "stop", tokens: { input: 1, output: 7, reasoning: 3, cache: { read: 0, write: 0 } } }),
    )
    expect(m).toEqual({
      id: "a1",
      role: "assistant",
      parts: [
        { kind: "reasoning", text: "hmm" },
        { kind: "text", text: "done", synthetic: undefined },
      ],
      finish: "stop",
      errorName: undefined,
      outputTokens: 7,
      reasoningTokens: 3,
      createdAt: 10,
      completedAt: 20,
      agent: "build",
      model: { providerID: "openai", modelID: "gpt-x" },
    })
  })

  test("tool parts: name (not tool), id, every 2.x status, content as output, error text", () => {
    const m = normalizeV2Message(
      assistant([
        { type: "tool", id: "c1", name: "bash", state: { status: "streaming", input: '{"comm' } },
        { type: "tool", id: "c2", name: "read", state: { status: "running", input: { path: "a" } } },
        { type: "tool", id: "c3", name: "grep", state: { status: "completed", input: {}, content: [{ type: "text", text: "3 matches" }] } },
        { type: "tool", id: "c4", name: "edit", state: { status: "error", input: {}, error: { message: "no such file" } } },
      ]),
    )!
    expect(m.parts).toEqual([
      { kind: "tool", callID: "c1", tool: "bash", status: "streaming", input: '{"comm', error: undefined, output: undefined },
      { kind: "tool", callID: "c2", tool: "read", status: "running", input: { path: "a" }, error: undefined, output: undefined },
      { kind: "tool", callID: "c3", tool: "grep", status: "completed", input: {}, error: undefined, output: "3 matches" },
      { kind: "tool", callID: "c4", tool: "edit", status: "error", input: {}, error: "no such file", output: undefined },
    ])
  })

  test("the 1.x spellings still read: part.tool, callID, state.output, status pending, string content", () => {
    const m = normalizeV2Message(
      assistant([
        { type: "tool", callID: "c9", tool: "bash", state: { status: "completed", output: "ok" } },
        { type: "tool", id: "c8", name: "read", state: { status: "completed", content: "plain text" } },
        { type: "tool", id: "c7", name: "x", state: { status: "pending" } },
      ]),
    )!
    expect(m.parts[0]).toMatchObject({ callID: "c9", tool: "bash", status: "completed", output: "ok" })
    expect(m.parts[1]).toMatchObject({ output: "plain text" })
    expect(m.parts[2]).toMatchObject({ status: "pending" })
  })

  test("an assistant error gives its type (2.x) or name (1.x); an aborted step reads as the aborted turn", () => {
    expect(normalizeV2Message(assistant([], { error: { type: "provider.transport", message: "socket closed" } }))?.errorName).toBe("provider.transport")
    expect(normalizeV2Message(assistant([], { error: { name: "APIError" } }))?.errorName).toBe("APIError")
    expect(normalizeV2Message(assistant([], { error: { type: "aborted", message: "Aborted" } }))?.errorName).toBe("MessageAbortedError")
  })

  test("a streaming tool part, or one in a status this code does not know, is never a call waiting on the user", () => {
    const m = normalizeV2Message(
      assistant([
        { type: "tool", id: "c1", name: "question", state: { status: "streaming", input: "{" } },
        { type: "tool", id: "c2", name: "bash", state: { status: "queued-for-later" } },
      ]),
    )!
    expect(m.parts.map((p) => (p.kind === "tool" ? p.status : p.kind))).toEqual(["streaming", "streaming"])
    expect(openUserRequest(m)).toBeUndefined()
    // Negative control: the 1.x pending spelling still is one.
    expect(openUserRequest(normalizeV2Message(assistant([{ type: "tool", id: "c3", name: "bash", state: { status: "pending" } }]))!)).toMatchObject({ kind: "open-question" })
  })

  test("user and synthetic messages are user turns; our marker makes them own", () => {
    expect(normalizeV2Message({ id: "u1", type: "user", text: "fix it" })).toEqual({
      id: "u1",
      role: "user",
      parts: [{ kind: "text", text: "fix it", synthetic: undefined }],
      own: undefined,
      createdAt: undefined,
    })
    expect(normalizeV2Message({ id: "y1", type: "synthetic", text: "continue", metadata: { autoResume: true } })).toMatchObject({
      role: "user",
      own: true,
      parts: [{ kind: "text", text: "continue", synthetic: true }],
    })
    expect(normalizeV2Message({ id: "u2", type: "user", payload: { text: "t", metadata: { autoResume: true } } })).toMatchObject({ own: true, parts: [{ text: "t" }] })
  })

  test("system, skill, shell, compaction, switches and idle markers are not turns; junk is skipped", () => {
    for (const type of ["system", "skill", "shell", "compaction", "agent-switched", "model-switched", "location-switched", "idle"]) {
      expect(normalizeV2Message({ id: "x", type })).toBeUndefined()
    }
    for (const junk of [null, 1, "x", {}, { id: "x" }, { type: "user" }, [], { id: 5, type: "user" }]) expect(normalizeV2Message(junk)).toBeUndefined()
    expect(normalizeV2Messages("nope")).toEqual([])
    expect(normalizeV2Messages([null, { id: "u", type: "user", text: "a" }, 7]).map((m) => m.id)).toEqual(["u"])
  })
})

describe("normalizeV2Messages", () => {
  test("an assistant turn closed by an interrupted idle marker reads as aborted, as on 1.x", () => {
    const list = normalizeV2Messages([
      { id: "u1", type: "user", text: "go" },
      assistant([{ type: "text", text: "partial" }]),
      { id: "i1", type: "idle", outcome: "interrupted" },
      { id: "u2", type: "user", text: "again" },
      { ...assistant([]), id: "a2" },
      { id: "i2", type: "idle", outcome: "succeeded" },
    ])
    expect(list.map((m) => [m.id, m.errorName])).toEqual([
      ["u1", undefined],
      ["a1", "MessageAbortedError"],
      ["u2", undefined],
      ["a2", undefined],
    ])
  })

  test("tool output text is capped", () => {
    const big = "x".repeat(100_000)
    const m = normalizeV2Message(assistant([{ type: "tool", id: "c", name: "bash", state: { status: "completed", content: big } }]))!
    expect((m.parts[0] as { output: string }).output.length).toBe(65_536)
  })
})
