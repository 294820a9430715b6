/**
 * Fallback models on the 2.x port: the model belongs to the session, so a prompt on a fallback
 * model switches the session first (`session.switchModel`, feature-detected), and the session
 * goes back to the user's model after; a host without switchModel refuses the fallback send.
 */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { FakeV2Host } from "../../support/fake-v2-host.ts"
import { createV2Port } from "../../../src/host/v2/port.ts"
import { SendLog } from "../../../src/host/send-log.ts"
import { OwnSends } from "../../../src/host/v2/user-turns.ts"
import { resolveOptions } from "../../../src/options/index.ts"

const USER = { providerID: "openai", modelID: "gpt-x" }
const BACKUP = { providerID: "anthropic", modelID: "claude-y" }

function portOn(host: FakeV2Host) {
  const time = new SimulatedTime()
  return createV2Port({
    ctx: host.ctx,
    resolved: resolveOptions({ injectIntervalMs: 0 }, {}),
    time,
    shared: { own: new OwnSends(), sendLog: new SendLog(), syntheticRefused: new Set() },
    writeLog: () => undefined,
    fetch: async () => ({ ok: false, status: 404, json: async () => ({}), text: async () => "" }) as never,
  })
}

const methods = (host: FakeV2Host) => host.calls.map((c) => c.method).filter((m) => m.startsWith("session.") && m !== "session.context")

describe("2.x fallback sends", () => {
  test("switchModel first, then the prompt; restoreModel puts the session back once", async () => {
    const host = new FakeV2Host()
    const port = portOn(host)
    await port.send({ sessionID: "ses_1", text: "continue on the backup", kind: "continue", setup: { agent: "build", model: BACKUP }, onFallback: true })
    expect(methods(host)).toEqual(["session.switchModel", "session.prompt"])
    expect(host.callsTo("session.switchModel")[0]!.args[0]).toEqual({ sessionID: "ses_1", model: { providerID: "anthropic", id: "claude-y" } })
    expect(host.callsTo("session.prompt")[0]!.args[0]).not.toHaveProperty("model")
    await port.restoreModel!("ses_1", USER)
    await port.restoreModel!("ses_1", USER)
    expect(host.callsTo("session.switchModel").map((c) => c.args[0])).toEqual([
      { sessionID: "ses_1", model: { providerID: "anthropic", id: "claude-y" } },
      { sessionID: "ses_1", model: { providerID: "openai", id: "gpt-x" } },
    ])
  })

  test("the host's session really is on the backup after the send and on the user's model after the restore", async () => {
    const host = new FakeV2Host({ model: { providerID: "openai", id: "gpt-x" } })
    const port = portOn(host)
    await port.send({ sessionID: "ses_1", text: "continue on the backup", kind: "continue", setup: { agent: "build", model: BACKUP }, onFallback: true })
    expect(host.modelOf("ses_1")).toEqual({ providerID: "anthropic", id: "claude-y" })
    expect(host.modelOf("ses_2")).toEqual({ providerID: "openai", id: "gpt-x" })
    await port.restoreModel!("ses_1", USER)
    expect(host.modelOf("ses_1")).toEqual({ providerID: "openai", id: "gpt-x" })
  })

  test("a model the user picked meanwhile is theirs: the restore leaves it alone", async () => {
    const host = new FakeV2Host({ model: { providerID: "openai", id: "gpt-x" } })
    const port = portOn(host)
    await port.send({ sessionID: "ses_1", text: "continue on the backup", kind: "continue", setup: { agent: "build", model: BACKUP }, onFallback: true })
    // The user switches the session to a third model in the UI.
    await (host.ctx.session as Record<string, (a: unknown) => Promise<unknown>>).switchModel!({ sessionID: "ses_1", model: { providerID: "local", id: "qwen" } })
    await port.restoreModel!("ses_1", USER)
    expect(host.modelOf("ses_1")).toEqual({ providerID: "local", id: "qwen" })
    expect(host.callsTo("session.switchModel")).toHaveLength(2)
  })

  test("control: a host whose session.get fails still gets the session back (an unknown model is no user choice)", async () => {
    const host = new FakeV2Host({ model: { providerID: "openai", id: "gpt-x" } })
    const port = portOn(host)
    await port.send({ sessionID: "ses_1", text: "continue on the backup", kind: "continue", setup: { agent: "build", model: BACKUP }, onFallback: true })
    host.set("session.get", "reject")
    await port.restoreModel!("ses_1", USER)
    expect(host.modelOf("ses_1")).toEqual({ providerID: "openai", id: "gpt-x" })
  })

  test("control: the fake host refuses a switch in any other shape, as the 2.x schema does", async () => {
    const host = new FakeV2Host()
    const switchModel = (host.ctx.session as Record<string, (a: unknown) => Promise<unknown>>).switchModel!
    await expect(switchModel({ sessionID: "ses_1", model: { providerID: "anthropic", modelID: "claude-y" } })).rejects.toThrow(/expected/)
    await expect(switchModel({ sessionID: "ses_1", providerID: "anthropic", modelID: "claude-y" })).rejects.toThrow(/expected/)
  })

  test("negative control: an ordinary send (the user's own model) switches nothing, and there is nothing to restore", async () => {
    const host = new FakeV2Host()
    const port = portOn(host)
    await port.send({ sessionID: "ses_1", text: "continue", kind: "continue", setup: { agent: "build", model: USER } })
    await port.restoreModel!("ses_1", USER)
    expect(methods(host)).toEqual(["session.prompt"])
  })

  test("a host without switchModel refuses a fallback send (the 2.x prompt takes no model): nothing runs on the failed model under a fallback's name", async () => {
    const host = new FakeV2Host()
    host.remove("session.switchModel")
    const port = portOn(host)
    await expect(port.send({ sessionID: "ses_1", text: "continue on the backup", kind: "continue", setup: { model: BACKUP }, onFallback: true })).rejects.toThrow(/switchModel/)
    expect(methods(host)).toEqual([])
    await port.restoreModel!("ses_1", USER)
    expect(methods(host)).toEqual([])
    // control: an ordinary send on the same host goes out
    await port.send({ sessionID: "ses_1", text: "continue", kind: "continue", setup: { model: USER } })
    expect(methods(host)).toEqual(["session.prompt"])
  })

  test("the model list names every provider/model pair", async () => {
    const host = new FakeV2Host()
    host.modelList = { location: {}, data: [{ id: "gpt-x", providerID: "openai" }, { id: "claude-y", provider: { id: "anthropic" } }, { id: "orphan" }] }
    expect(await portOn(host).listModels!()).toEqual([USER, BACKUP])
  })

  test("a model the host lists as disabled (Model.Info enabled: false) is not one it can run", async () => {
    const host = new FakeV2Host()
    host.modelList = { location: {}, data: [{ id: "gpt-x", modelID: "gpt-x-2026", providerID: "openai", enabled: true }, { id: "claude-y", modelID: "claude-y", providerID: "anthropic", enabled: false }] }
    // Model.Ref names the model by Model.Info `id`, not its provider-side `modelID`.
    expect(await portOn(host).listModels!()).toEqual([USER])
  })
})
