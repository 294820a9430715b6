/**
 * Which 2.x events are progress for the progress ceiling (text, reasoning, tool events, steps,
 * token growth) and which only say the host is alive (statuses, tool heartbeats, inbox and
 * unmodelled events), named so the stall log can quote them.
 */
import { describe, expect, test } from "bun:test"
import { ToolNamesByCall } from "../../../src/host/v2/events.ts"
import { mapV2Event } from "../../support/map-events.ts"

const map = (event: unknown) => mapV2Event(event, new ToolNamesByCall(), () => 0)
const ev = (type: string, data: Record<string, unknown>) => ({ id: "evt_1", type, data: { sessionID: "s", ...data } })

describe("2.x progress and heartbeats", () => {
  test("steps and compaction are progress, not model output", () => {
    for (const type of ["session.step.started", "session.step.streamed", "session.compaction.delta"]) {
      expect(map(ev(type, { assistantMessageID: "m1" }))).toEqual([{ type: "activity", sessionID: "s", progress: true }])
    }
    expect(map(ev("session.step.ended", { assistantMessageID: "m1", finish: "stop" }))).toEqual([{ type: "activity", sessionID: "s", progress: true }])
  })

  test("text, reasoning and tool input are model output; tool calls open and close", () => {
    for (const type of ["session.text.delta", "session.reasoning.delta", "session.tool.input.delta"]) expect(map(ev(type, { delta: "x" }))[0]?.type).toBe("modelOutput")
    expect(map(ev("session.tool.called", { id: "c1", name: "bash", input: {} }))[0]?.type).toBe("toolStart")
    expect(map(ev("session.tool.success", { id: "c1" }))[0]?.type).toBe("toolEnd")
  })

  test("negative control: statuses, tool heartbeats, inbox and unmodelled events are liveness only, named", () => {
    for (const type of ["session.status", "session.tool.progress", "session.inbox.delivery.changed", "session.something.new"]) {
      expect(map(ev(type, { id: "c1" }))).toEqual([{ type: "activity", sessionID: "s", event: type }])
    }
  })
})
