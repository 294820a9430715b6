/** v1 port: the session status listing discovery reads (session.status()). */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { createV1Port, type V1Client } from "../../../src/host/v1/port.ts"
import { resolveOptions } from "../../../src/options/index.ts"

const portAnswering = (answer: unknown) =>
  createV1Port({ session: { status: async () => answer }, app: { log: async () => ({ data: true }) } } as unknown as V1Client, {
    resolved: resolveOptions({}, {}),
    time: new SimulatedTime(),
  })

describe("v1 port: listBusySessions", () => {
  test("busy and retrying sessions are running; idle ones and an empty map are not", async () => {
    const port = portAnswering({ data: { ses_a: { type: "busy" }, ses_b: { type: "retry", attempt: 2 }, ses_c: { type: "idle" } } })
    expect(await port.listBusySessions()).toEqual(["ses_a", "ses_b"])
    expect(await portAnswering({ data: {} }).listBusySessions()).toEqual([])
  })

  test("an answer with entries of which none is a status is unreadable, not 'nothing runs'", async () => {
    for (const data of [{ nested: [1, 2] }, { ses_a: "busy" }, { ses_a: {}, ses_b: null }]) {
      await expect(portAnswering({ data }).listBusySessions()).rejects.toThrow(/no status/)
    }
  })

  test("negative control: an odd entry beside real statuses is skipped, the rest is read", async () => {
    expect(await portAnswering({ data: { ses_a: { type: "busy" }, extra: 7 } }).listBusySessions()).toEqual(["ses_a"])
  })
})
