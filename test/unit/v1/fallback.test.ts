/**
 * Fallback models on the 1.x adapter: the host's retry status says how far ahead it retries,
 * the continue names the fallback model, and the user's next message goes back to their own
 * model before the host runs it (chat.message).
 */
import { afterEach, describe, expect, test } from "bun:test"
import { mapOtherEvent, MessageRoles } from "../../../src/host/v1/events.ts"
import { createV1Port, type V1Client } from "../../../src/host/v1/port.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { FakeV1Host, SID } from "./rig.ts"

let host: FakeV1Host | undefined
afterEach(() => host?.stopAll())

const HOUR = 3_600_000

function retryStatus(h: FakeV1Host, inMs: number): void {
  h.event("session.status", { sessionID: SID, status: { type: "retry", attempt: 1, message: "Rate limit exceeded", next: h.time.now() + inMs } })
}

describe("1.x retry status", () => {
  test("carries how far ahead the host retries, and why", () => {
    const signals = mapOtherEvent({ type: "session.status", properties: { sessionID: "s", status: { type: "retry", attempt: 2, message: "Overloaded", next: 61_000 } } }, new MessageRoles(), () => 1_000)
    expect(signals).toEqual([{ type: "busy", sessionID: "s" }, { type: "retryScheduled", sessionID: "s", retryInMs: 60_000, message: "Overloaded" }])
  })

  test("negative control: a retry status without `next` says nothing about when", () => {
    const signals = mapOtherEvent({ type: "session.status", properties: { sessionID: "s", status: { type: "retry" } } }, new MessageRoles(), () => 1_000)
    expect(signals[1]).toEqual({ type: "retryScheduled", sessionID: "s" })
  })
})

describe("1.x port", () => {
  test("lists the config's providers and models", async () => {
    const client = {
      session: { promptAsync: async () => ({}), abort: async () => ({}) },
      app: { log: async () => ({}) },
      config: { providers: async () => ({ data: { providers: [{ id: "openai", models: { "gpt-x": {}, "gpt-y": {} } }, { id: "bad" }] } }) },
    } as unknown as V1Client
    expect(await createV1Port(client).listModels!()).toEqual([
      { providerID: "openai", modelID: "gpt-x" },
      { providerID: "openai", modelID: "gpt-y" },
    ])
  })
})

describe("1.x adapter", () => {
  test("a retry an hour ahead: abort, then the continue on the fallback model; the user's next message goes back to theirs", async () => {
    host = new FakeV1Host()
    const plugin = host.start({ fallbackModels: ["anthropic/claude-y"] })
    host.userTurn()
    host.delta()
    retryStatus(host, HOUR)
    await host.advance(500, 100)
    expect(host.aborts).toBe(1)
    host.endRun(SID)
    await host.advance(ABORT_CONTINUE_DELAY_MS + 1000, 250)
    expect(host.prompts).toHaveLength(1)
    expect(host.prompts[0]!.body.model).toEqual({ providerID: "anthropic", modelID: "claude-y" })
    expect(host.prompts[0]!.body.agent).toBe("build")

    // The terminal UI restores the model of the newest message: the user's turn names the fallback.
    const output = { message: { id: "msg_user", sessionID: SID, role: "user", model: { providerID: "anthropic", modelID: "claude-y" } }, parts: [{ type: "text", text: "go on" }] }
    await plugin.hooks["chat.message"]!({ sessionID: SID, agent: "build", model: { providerID: "anthropic", modelID: "claude-y" } } as never, output as never)
    expect(output.message.model).toEqual({ providerID: "openai", modelID: "gpt-x" })
    expect(host.logged(/the user's message goes back to openai\/gpt-x/)).toBe(true)

    // The episode is over: a later message on the fallback model is the user's own choice.
    const later = { message: { id: "msg_user2", sessionID: SID, role: "user", model: { providerID: "anthropic", modelID: "claude-y" } }, parts: [{ type: "text", text: "use claude" }] }
    await plugin.hooks["chat.message"]!({ sessionID: SID, agent: "build", model: { providerID: "anthropic", modelID: "claude-y" } } as never, later as never)
    expect(later.message.model).toEqual({ providerID: "anthropic", modelID: "claude-y" })
  })

  test("negative control: without fallbackModels the same retry is left to the host, and the user's message is not touched", async () => {
    host = new FakeV1Host()
    const plugin = host.start({})
    host.userTurn()
    host.delta()
    retryStatus(host, HOUR)
    await host.advance(60_000, 1000)
    expect(host.aborts).toBe(0)
    expect(host.prompts).toHaveLength(0)
    const output = { message: { id: "msg_user", sessionID: SID, role: "user", model: { providerID: "anthropic", modelID: "claude-y" } }, parts: [{ type: "text", text: "go on" }] }
    await plugin.hooks["chat.message"]!({ sessionID: SID, agent: "build", model: { providerID: "anthropic", modelID: "claude-y" } } as never, output as never)
    expect(output.message.model).toEqual({ providerID: "anthropic", modelID: "claude-y" })
  })
})
