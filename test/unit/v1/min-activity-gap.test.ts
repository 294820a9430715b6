/**
 * minActivityGapMs on v1: a finished turn is judged only once the session has been quiet that
 * long, so the host's late reports on the turn (a queued prompt starting, a last part update)
 * land before the plugin decides anything.
 */
import { describe, expect, test } from "bun:test"
import { FakeV1Host, SID } from "./rig.ts"

/** A turn that ends with no text and no tool call: a silent dead stream, nudged on the first pass. */
async function deadStreamTurn(options: Record<string, unknown>) {
  const host = new FakeV1Host()
  const plugin = host.start(options)
  host.userTurn()
  host.delta()
  await host.advance(2_000)
  host.finishRun(SID, { outputTokens: 300 })
  return { host, plugin }
}

describe("v1: minActivityGapMs", () => {
  test("a run the host starts 500 ms after idle (a queued prompt) is left alone: no nudge stacked on it", async () => {
    const { host, plugin } = await deadStreamTurn({ minActivityGapMs: 1_000 })
    await host.advance(500, 100)
    host.startRun(SID)
    await host.advance(5_000, 100)
    expect(host.prompts).toHaveLength(0)
    plugin.stop()
  })

  test("negative control: with minActivityGapMs: 0 the nudge goes out before that run starts", async () => {
    const { host, plugin } = await deadStreamTurn({ minActivityGapMs: 0 })
    await host.advance(500, 100)
    host.startRun(SID)
    await host.advance(5_000, 100)
    expect(host.prompts).toHaveLength(1)
    expect(host.prompts[0]!.parts[0]!.metadata).toMatchObject({ autoResume: true, kind: "continue" })
    plugin.stop()
  })

  test("late activity after idle pushes the judgement back: the gap counts from the last event", async () => {
    const { host, plugin } = await deadStreamTurn({ minActivityGapMs: 1_000 })
    await host.advance(800, 100)
    host.event("message.part.updated", { part: { id: "prt_late", type: "text", sessionID: SID, messageID: "msg_late", text: "" } })
    await host.advance(900, 100) // 1.7 s after idle, 0.9 s after the late event
    expect(host.prompts).toHaveLength(0)
    await host.advance(300, 100) // 1 s quiet
    expect(host.prompts).toHaveLength(1)
    plugin.stop()
  })

  test("negative control: without the late event the nudge comes one gap after idle", async () => {
    const { host, plugin } = await deadStreamTurn({ minActivityGapMs: 1_000 })
    await host.advance(900, 100)
    expect(host.prompts).toHaveLength(0)
    await host.advance(200, 100)
    expect(host.prompts).toHaveLength(1)
    plugin.stop()
  })
})
