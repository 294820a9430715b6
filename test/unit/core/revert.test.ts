/**
 * A revert on both hosts: the adapters' signal (1.x `session.updated` with `revert`,
 * `message.removed`; 2.x `session.revert.staged` / `committed`), malformed shapes skipped, and
 * the core's answer: a staged revert is the user's own hand (the ESC latch, lifted by their next
 * message), its repeats are not new acts, and the messages leaving the history only void a
 * judgement still pending.
 */
import { describe, expect, test } from "bun:test"
import { MessageRoles } from "../../../src/host/v1/events.ts"
import { SUBSCRIBED_TYPES, ToolNamesByCall } from "../../../src/host/v2/events.ts"
import { mapV1Event, mapV2Event } from "../../support/map-events.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { RecoveryEngine } from "../../../src/core/engine.ts"
import { recoveryPaths } from "../../../src/paths/index.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import type { Signal, SignalType } from "../../../src/core/port.ts"

const v1 = (type: string, properties: unknown) => mapV1Event({ type, properties }, new MessageRoles(), () => 0)
const v2 = (type: string, data: unknown) => mapV2Event({ id: "evt_1", created: 1, type, data }, new ToolNamesByCall(), () => 0)

describe("the adapters' revert signal", () => {
  test("1.x: a session updated with its revert set is a staged revert to that message; without one it is only the session", () => {
    expect(v1("session.updated", { info: { id: "s", title: "t", revert: { messageID: "msg_u1", snapshot: "x" } } })).toEqual([
      { type: "sessionCreated", sessionID: "s", parentID: undefined },
      { type: "reverted", sessionID: "s", phase: "staged", messageID: "msg_u1" },
    ])
    // Negative controls: no revert, or a revert cleared (null), is no revert.
    expect(v1("session.updated", { info: { id: "s", title: "t" } }).map((x) => x.type)).toEqual(["sessionCreated"])
    expect(v1("session.updated", { info: { id: "s", revert: null } }).map((x) => x.type)).toEqual(["sessionCreated"])
  })

  test("1.x: message.removed is a reverted message leaving the history", () => {
    expect(v1("message.removed", { sessionID: "s", messageID: "msg_a2" })).toEqual([{ type: "reverted", sessionID: "s", phase: "removed", messageID: "msg_a2" }])
  })

  test("2.x: session.revert.staged and session.revert.committed; the types are subscribed", () => {
    expect(v2("session.revert.staged", { sessionID: "s", revert: { messageID: "msg_u1", files: [] } })).toEqual([{ type: "reverted", sessionID: "s", phase: "staged", messageID: "msg_u1" }])
    expect(v2("session.revert.committed", { sessionID: "s", to: "msg_u1" })).toEqual([{ type: "reverted", sessionID: "s", phase: "removed", messageID: "msg_u1" }])
    // The SDK's types name the revert point `messageID`.
    expect(v2("session.revert.committed", { sessionID: "s", messageID: "msg_u1" })).toEqual([{ type: "reverted", sessionID: "s", phase: "removed", messageID: "msg_u1" }])
    expect(SUBSCRIBED_TYPES).toContain("session.revert.staged")
    expect(SUBSCRIBED_TYPES).toContain("session.revert.committed")
    // Negative control: an unrevert (cleared) is mere activity.
    expect(v2("session.revert.cleared", { sessionID: "s" }).map((x) => x.type)).toEqual(["activity"])
  })

  test("malformed shapes name no message (the core skips them with a debug line)", () => {
    expect(v1("session.updated", { info: { id: "s", revert: "yes" } })[1]).toEqual({ type: "reverted", sessionID: "s", phase: "staged", messageID: undefined })
    expect(v1("session.updated", { info: { id: "s", revert: { messageID: 42 } } })[1]).toMatchObject({ type: "reverted", messageID: undefined })
    expect(v1("message.removed", { sessionID: "s" })).toEqual([{ type: "reverted", sessionID: "s", phase: "removed", messageID: undefined }])
    expect(v2("session.revert.staged", { sessionID: "s", revert: [] })).toEqual([{ type: "reverted", sessionID: "s", phase: "staged", messageID: undefined }])
    expect(v2("session.revert.committed", { sessionID: "s" })).toEqual([{ type: "reverted", sessionID: "s", phase: "removed", messageID: undefined }])
  })
})

function engine() {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const engine = new RecoveryEngine({ paths: recoveryPaths, port, time, options: resolveOptions({ debug: true }, {}) })
  const emit = (...signals: Array<Partial<Signal> & { type: SignalType }>) => {
    for (const s of signals) engine.handle({ sessionID: "s1", ...s } as Signal)
  }
  return { engine, emit, port }
}

describe("the core's answer to a revert", () => {
  test("a staged revert latches the session as the user's own, as ESC does; the user's next message lifts it", () => {
    const h = engine()
    h.emit({ type: "userMessage", genuine: true }, { type: "busy" }, { type: "idle" })
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
    h.emit({ type: "reverted", phase: "staged", messageID: "msg_u1" })
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
    expect(h.port.logged(/reverted the session to message msg_u1; standing down until the next user message/)).toBe(true)
    h.emit({ type: "reverted", phase: "removed", messageID: "msg_u1" }, { type: "userMessage", genuine: true })
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("the host repeating the session with the same revert is no new act: once the user wrote, it does not latch again", () => {
    const h = engine()
    h.emit({ type: "reverted", phase: "staged", messageID: "msg_u1" }, { type: "userMessage", genuine: true })
    h.emit({ type: "reverted", phase: "staged", messageID: "msg_u1" })
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
    // A revert to another message is.
    h.emit({ type: "reverted", phase: "staged", messageID: "msg_u2" })
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
  })

  test("messages leaving the history do not latch (the host removes them as the user's next message goes in, in either order)", () => {
    const h = engine()
    h.emit({ type: "userMessage", genuine: true }, { type: "reverted", phase: "removed", messageID: "msg_a1" })
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("a revert that names no message is skipped with a debug line", () => {
    const h = engine()
    h.emit({ type: "userMessage", genuine: true }, { type: "reverted", phase: "staged" })
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
    expect(h.port.logged(/a revert \(staged\) that names no message; skipped/)).toBe(true)
  })
})

describe("a pending judgement and the messages leaving the history", () => {
  const printedCall = (h: ReturnType<typeof engine>) =>
    h.port.history.set("s1", [
      { id: "msg_u1", role: "user", parts: [{ kind: "text", text: "list the files" }] },
      { id: "msg_a1", role: "assistant", finish: "stop", parts: [{ kind: "text", text: '<function=bash>{"command": "ls"}</function>' }] },
    ])
  const settle = async (time: SimulatedTime, ms: number) => {
    for (let left = ms; left > 0; left -= 500) {
      time.advance(500)
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }

  for (const removed of [true, false]) {
    test(removed ? "the judged turn's messages removed before its second look: nothing is sent" : "control: the same turn, nothing removed, gets its correction", async () => {
      const time = new SimulatedTime()
      const port = new RecordingPort(() => time.now())
      const e = new RecoveryEngine({ paths: recoveryPaths, port, time, options: resolveOptions({}, {}) })
      printedCall({ port } as ReturnType<typeof engine>)
      for (const type of ["busy", "idle"] as const) e.handle({ type, sessionID: "s1" })
      if (removed) e.handle({ type: "reverted", sessionID: "s1", phase: "removed", messageID: "msg_a1" })
      await settle(time, 20_000)
      expect(port.calls.filter((c) => c.kind === "send").length).toBe(removed ? 0 : 1)
    })
  }
})
