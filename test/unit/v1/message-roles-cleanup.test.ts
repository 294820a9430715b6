/** The v1 adapter's message-role memory follows the engine's session table: swept sessions leave nothing behind. */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { CLEANUP_SWEEP_MS } from "../../../src/core/engine.ts"
import { FakePauses } from "../pause/helpers.ts"
import { startV1 } from "../../../src/host/v1/adapter.ts"
import { IDLE_CLEANUP_MS } from "../../../src/options/index.ts"
import { flush, freshDirectory } from "./rig.ts"

describe("message roles after cleanup", () => {
  test("a swept session's message roles are forgotten; a running session's are kept", async () => {
    const time = new SimulatedTime()
    const client = { session: {}, app: { log: async () => ({}) } }
    const plugin = startV1({ client, directory: freshDirectory() }, {}, {}, { time, pauses: new FakePauses() })
    const event = (type: string, properties: Record<string, unknown>) => plugin.hooks.event!({ event: { type, properties } as never })
    // The config hook registers the /auto-resume reply model: from then on each session's real model is remembered too.
    await plugin.hooks.config!({ provider: {} } as never)
    for (const id of ["done", "running"]) {
      await plugin.hooks["chat.message"]!(
        { sessionID: id } as never,
        { message: { id: `u_${id}`, model: { providerID: "fake", modelID: "m" } }, parts: [{ type: "text", text: "go" }] } as never,
      )
      await event("session.status", { sessionID: id, status: { type: "busy" } })
      await event("message.updated", { info: { id: `a_${id}`, sessionID: id, role: "assistant", tokens: { output: 1 } } })
    }
    await event("session.idle", { sessionID: "done" })
    expect(plugin.rememberedMessages).toBe(4)
    expect(plugin.rememberedModels).toBe(2)
    for (let t = 0; t < IDLE_CLEANUP_MS + 2 * CLEANUP_SWEEP_MS; t += CLEANUP_SWEEP_MS) {
      time.advance(CLEANUP_SWEEP_MS)
      await event("message.part.delta", { sessionID: "running", messageID: "a_running", delta: "x" })
      await flush()
    }
    expect(plugin.engine.status("done")).toBeUndefined()
    expect(plugin.rememberedMessages).toBe(2)
    expect(plugin.rememberedModels).toBe(1)
    plugin.stop()
  })
})
