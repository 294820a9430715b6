/** injectIntervalMs on v1: two sends to one session are never closer than the interval, across instances too. */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { getV1Slot } from "../../../src/host/v1/registry.ts"
import { createV1Port, type V1Client } from "../../../src/host/v1/port.ts"
import { SendLog, SendRefusedError } from "../../../src/host/send-log.ts"
import { getSlot } from "../../../src/host/v2/registry.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { freshDirectory } from "./rig.ts"

function rig(options: Record<string, unknown> = {}, sendLog?: SendLog, time = new SimulatedTime()) {
  const sent: string[] = []
  const client = {
    session: {
      promptAsync: async (o: { path: { id: string } }) => {
        sent.push(o.path.id)
        return { data: {} }
      },
      abort: async () => ({ data: true }),
    },
    app: { log: async () => ({ data: true }) },
  } as unknown as V1Client
  const port = createV1Port(client, { resolved: resolveOptions(options, {}), time, sendLog })
  const send = (sessionID = "ses_a", kind: "continue" | "correction" = "continue") => port.send({ sessionID, text: "continue", kind })
  return { sent, port, send, time }
}

describe("v1 port: injectIntervalMs", () => {
  test("a second send inside the interval is refused without reaching the host; at the interval it goes", async () => {
    const r = rig({ injectIntervalMs: 5_000 })
    await r.send()
    r.time.advance(4_999)
    await expect(r.send("ses_a", "correction")).rejects.toBeInstanceOf(SendRefusedError)
    expect(r.sent).toEqual(["ses_a"])
    r.time.advance(1)
    await r.send()
    expect(r.sent).toEqual(["ses_a", "ses_a"])
  })

  test("the default interval (5 s) applies without any option", async () => {
    const r = rig()
    await r.send()
    r.time.advance(4_000)
    await expect(r.send()).rejects.toThrow(/injectIntervalMs=5000/)
    expect(r.sent).toHaveLength(1)
  })

  test("sessions are spaced independently", async () => {
    const r = rig({ injectIntervalMs: 5_000 })
    await r.send("ses_a")
    await r.send("ses_b")
    expect(r.sent).toEqual(["ses_a", "ses_b"])
  })

  test("negative control: injectIntervalMs: 0 lets back-to-back sends through", async () => {
    const r = rig({ injectIntervalMs: 0 })
    await r.send()
    await r.send()
    expect(r.sent).toHaveLength(2)
  })

  test("a model profile's interval applies to sessions on that provider", async () => {
    const r = rig({ injectIntervalMs: 0, modelProfiles: { openai: { injectIntervalMs: 60_000 } } })
    const on = (providerID: string) => ({ sessionID: `ses_${providerID}`, text: "x", kind: "continue" as const, setup: { model: { providerID, modelID: "m" } } })
    await r.port.send(on("openai"))
    await expect(r.port.send(on("openai"))).rejects.toBeInstanceOf(SendRefusedError)
    await r.port.send(on("other"))
    await r.port.send(on("other"))
    expect(r.sent).toEqual(["ses_openai", "ses_other", "ses_other"])
  })

  test("a wall clock set back does not block the session until it catches up", async () => {
    const later = new SimulatedTime()
    later.jump(3_600_000)
    const earlier = new SimulatedTime() // the same clock, an hour back
    const shared = new SendLog()
    const before = rig({ injectIntervalMs: 5_000 }, shared, later)
    const after = rig({ injectIntervalMs: 5_000 }, shared, earlier)
    await before.send()
    // The previous send is dated in the future: the gap is unknowable, so the send goes.
    await after.send()
    expect(after.sent).toEqual(["ses_a"])
  })
})

describe("the send log spans instances", () => {
  test("two instances in the same slot (same directory) share one log: the second send is refused", async () => {
    const dir = freshDirectory()
    const time = new SimulatedTime()
    const a = rig({}, getV1Slot(undefined, dir).sendLog, time)
    const b = rig({}, getV1Slot(undefined, dir).sendLog, time)
    await a.send()
    time.advance(1_000)
    await expect(b.send()).rejects.toBeInstanceOf(SendRefusedError)
    expect([...a.sent, ...b.sent]).toEqual(["ses_a"])
  })

  test("negative control: another directory or another registryScope is another log", async () => {
    const dir = freshDirectory()
    const time = new SimulatedTime()
    const a = rig({}, getV1Slot(undefined, dir).sendLog, time)
    const b = rig({}, getV1Slot(undefined, freshDirectory()).sendLog, time)
    const c = rig({}, getV1Slot("elsewhere", dir).sendLog, time)
    await a.send()
    await b.send()
    await c.send()
    expect([...a.sent, ...b.sent, ...c.sent]).toHaveLength(3)
  })

  test("v2 uses the very same module", () => {
    expect(getSlot("scope:inject-interval-shared").sendLog).toBeInstanceOf(SendLog)
  })
})
