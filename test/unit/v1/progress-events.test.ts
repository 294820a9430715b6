/**
 * Which 1.18 events are progress for the progress ceiling (text, reasoning, tool state
 * changes, steps, token growth) and which only say the host is alive (status repeats,
 * unmodelled events), named so the stall log can quote them.
 */
import { describe, expect, test } from "bun:test"
import { MessageRoles } from "../../../src/host/v1/events.ts"
import { mapV1Event } from "../../support/map-events.ts"

const map = (event: unknown, roles = new MessageRoles()) => mapV1Event(event, roles, () => 0)
const ev = (type: string, properties: unknown) => ({ type, properties })
const part = (p: Record<string, unknown>) => ev("message.part.updated", { part: { sessionID: "s", messageID: "a1", ...p } })

describe("1.x progress and heartbeats", () => {
  test("step-start and step-finish parts are progress, not model output", () => {
    expect(map(part({ type: "step-start" }))).toEqual([{ type: "activity", sessionID: "s", progress: true }])
    expect(map(part({ type: "step-finish" }))).toEqual([{ type: "activity", sessionID: "s", progress: true }])
  })

  test("text, reasoning and deltas of the assistant are model output; tool states open and close calls", () => {
    const roles = new MessageRoles()
    roles.set("a1", "assistant", "s")
    expect(map(part({ type: "text" }), roles)[0]?.type).toBe("modelOutput")
    expect(map(part({ type: "reasoning" }), roles)[0]?.type).toBe("modelOutput")
    expect(map(ev("message.part.delta", { sessionID: "s", delta: "x" }), roles)[0]?.type).toBe("modelOutput")
    expect(map(part({ type: "tool", callID: "c", tool: "bash", state: { status: "pending" } }))[0]?.type).toBe("modelOutput")
    expect(map(part({ type: "tool", callID: "c", tool: "bash", state: { status: "running" } }))[0]?.type).toBe("toolStart")
    expect(map(part({ type: "tool", callID: "c", tool: "bash", state: { status: "completed" } }))[0]?.type).toBe("toolEnd")
  })

  test("negative control: other parts, a status repeat and unmodelled events are liveness only, named", () => {
    expect(map(part({ type: "snapshot" }))).toEqual([{ type: "activity", sessionID: "s", event: "message.part.updated(snapshot)" }])
    expect(map(ev("session.status", { sessionID: "s", status: { type: "busy" } }))).toEqual([{ type: "busy", sessionID: "s" }])
    expect(map(ev("session.status", { sessionID: "s", status: { type: "weird" } }))).toEqual([{ type: "activity", sessionID: "s", event: "session.status" }])
    expect(map(ev("session.diff", { sessionID: "s" }))).toEqual([{ type: "activity", sessionID: "s", event: "session.diff" }])
    // A heartbeat of the server names no session: nothing at all.
    expect(map(ev("server.heartbeat", {}))).toEqual([])
  })
})
