/** The 1.x port's toast: `client.tui.showToast` with the SDK's body, nothing where the client has no TUI API, a refusal as a rejection. */
import { describe, expect, test } from "bun:test"
import { createV1Port, type V1Client } from "../../../src/host/v1/port.ts"

const TOAST = { title: "auto-resume", message: "auto-resume gave up on session s1 (stall: spent).", variant: "warning" as const, durationMs: 10_000 }

function client(tui?: V1Client["tui"]): V1Client {
  const ok = () => Promise.resolve({ data: true })
  return { session: { promptAsync: ok, abort: ok }, app: { log: ok }, ...(tui ? { tui } : {}) }
}

describe("the 1.x port's toast", () => {
  test("goes to tui.showToast as the SDK takes it (duration in milliseconds)", async () => {
    const bodies: unknown[] = []
    const port = createV1Port(client({ showToast: (o) => (bodies.push(o), Promise.resolve({ data: true })) }))
    await port.toast!(TOAST)
    expect(bodies).toEqual([{ body: { title: "auto-resume", message: TOAST.message, variant: "warning", duration: 10_000 } }])
  })

  test("a client without the TUI API is not called and nothing fails", async () => {
    await expect(createV1Port(client()).toast!(TOAST)).resolves.toBeUndefined()
  })

  test("the host's refusal (an SDK `{ error }`) is a rejection, which the notices catch", async () => {
    const port = createV1Port(client({ showToast: () => Promise.resolve({ error: { name: "UnknownError", data: { message: "no tui" } } }) }))
    await expect(port.toast!(TOAST)).rejects.toThrow(/toast failed: no tui/)
  })
})
