/**
 * visibleContinue / quietCorrections on v1: the port marks a prompt `synthetic` (hidden in the
 * 1.18 TUI) or not, and the plugin still knows every one of them as its own.
 */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import type { SendRequest } from "../../../src/core/port.ts"
import { createV1Port, isOwnPromptPart, type V1Client } from "../../../src/host/v1/port.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { FakeV1Host, RECOVERED, SID } from "./rig.ts"

type Part = Record<string, unknown>

/** Sends one request through a fresh v1 port and returns the one part it handed the SDK. */
async function sentPart(options: Record<string, unknown>, request: Partial<SendRequest> = {}, env: Record<string, string> = {}): Promise<Part> {
  const bodies: { parts: Part[] }[] = []
  const client = {
    session: {
      promptAsync: async (o: { body: { parts: Part[] } }) => {
        bodies.push(o.body)
        return { data: {} }
      },
      abort: async () => ({ data: true }),
    },
    app: { log: async () => ({ data: true }) },
  } as unknown as V1Client
  const port = createV1Port(client, { resolved: resolveOptions(options, env), time: new SimulatedTime() })
  await port.send({ sessionID: "ses_p", text: "go on", kind: "continue", ...request })
  expect(bodies).toHaveLength(1)
  expect(bodies[0]!.parts).toHaveLength(1)
  return bodies[0]!.parts[0]!
}

const hidden = (part: Part) => part.synthetic === true

describe("v1 port: which prompts are hidden", () => {
  test("defaults: a stall continue is visible, a correction is hidden", async () => {
    const cont = await sentPart({}, { kind: "continue" })
    expect(hidden(cont)).toBe(false)
    expect(cont).not.toHaveProperty("synthetic")
    const corr = await sentPart({}, { kind: "correction" })
    expect(hidden(corr)).toBe(true)
  })

  test("visibleContinue: false hides the continue; quietCorrections: false shows the correction", async () => {
    expect(hidden(await sentPart({ visibleContinue: false }, { kind: "continue" }))).toBe(true)
    expect(hidden(await sentPart({ quietCorrections: false }, { kind: "correction" }))).toBe(false)
    // Each option touches only its own kind.
    expect(hidden(await sentPart({ visibleContinue: false }, { kind: "correction" }))).toBe(true)
    expect(hidden(await sentPart({ quietCorrections: false }, { kind: "continue" }))).toBe(false)
  })

  test("AUTO_RESUME_VISIBLE_CONTINUE=0 hides continues; an explicit option beats it", async () => {
    expect(hidden(await sentPart({}, { kind: "continue" }, { AUTO_RESUME_VISIBLE_CONTINUE: "0" }))).toBe(true)
    expect(hidden(await sentPart({ visibleContinue: true }, { kind: "continue" }, { AUTO_RESUME_VISIBLE_CONTINUE: "0" }))).toBe(false)
  })

  test("a model profile decides for sessions on that provider only", async () => {
    const options = { modelProfiles: { openai: { visibleContinue: false } } }
    const onOpenai = { setup: { model: { providerID: "openai", modelID: "gpt-x" } } }
    const onOther = { setup: { model: { providerID: "anthropic", modelID: "c" } } }
    expect(hidden(await sentPart(options, { kind: "continue", ...onOpenai }))).toBe(true)
    expect(hidden(await sentPart(options, { kind: "continue", ...onOther }))).toBe(false)
  })

  test("hidden or not, every prompt carries the own-prompt marker and its kind", async () => {
    for (const options of [{}, { visibleContinue: false, quietCorrections: false }]) {
      for (const kind of ["continue", "correction"] as const) {
        const part = await sentPart(options, { kind })
        expect(part.type).toBe("text")
        expect(part.text).toBe("go on")
        expect(part.metadata).toEqual({ autoResume: true, kind })
        expect(isOwnPromptPart(part)).toBe(true)
      }
    }
  })

  test("negative control: isOwnPromptPart goes by the marker, not by synthetic", () => {
    expect(isOwnPromptPart({ type: "text", text: "go on" })).toBe(false)
    expect(isOwnPromptPart({ type: "text", text: "go on", synthetic: true })).toBe(false)
    expect(isOwnPromptPart({ type: "text", text: "go on", metadata: { autoResume: true } })).toBe(true)
  })
})

describe("v1 adapter: a visible continue is still our own prompt", () => {
  /** A stall answered by one continue; the host echoes it through chat.message like 1.18 does. */
  async function stallOnce(options: Record<string, unknown>) {
    const host = new FakeV1Host()
    const plugin = host.start(options)
    host.userTurn()
    host.delta()
    await host.advance(RECOVERED + 3_000)
    return { host, plugin }
  }

  test("the continue goes out visible, and its chat.message does not re-arm the user's budgets", async () => {
    const { host, plugin } = await stallOnce({})
    expect(host.prompts).toHaveLength(1)
    const part = host.prompts[0]!.parts[0]!
    expect(part.synthetic).toBeUndefined()
    expect(host.chatMessages.at(-1)!.parts).toEqual([part])
    // Taken for a genuine user turn, the count would be back at 0.
    expect(plugin.engine.status(SID)!.lifetimeContinues).toBe(1)
    plugin.stop()
  })

  test("negative control: the same visible text without the marker counts as the user's turn", async () => {
    const { host, plugin } = await stallOnce({})
    expect(plugin.engine.status(SID)!.lifetimeContinues).toBe(1)
    host.userMessage(SID, [{ type: "text", text: host.prompts[0]!.parts[0]!.text as string }])
    await host.advance(10)
    expect(plugin.engine.status(SID)!.lifetimeContinues).toBe(0)
    plugin.stop()
  })

  test("with visibleContinue: false the same stall's continue is hidden", async () => {
    const { host, plugin } = await stallOnce({ visibleContinue: false })
    expect(host.prompts).toHaveLength(1)
    expect(host.prompts[0]!.parts[0]!.synthetic).toBe(true)
    expect(plugin.engine.status(SID)!.lifetimeContinues).toBe(1)
    plugin.stop()
  })
})
