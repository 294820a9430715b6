/**
 * The 2.x port reads the last messages before each prompt (the duplicate check). That read
 * must not carry the prompt past the core's bound, nor past a change that makes it unwanted:
 * the core gives up on a send after sendTimeoutMs, and the user may press ESC or write while
 * the read is out. A plain ctx of our own, so the fake host's details do not matter here.
 */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import type { SendRequest } from "../../../src/core/port.ts"
import { createV2Port } from "../../../src/host/v2/port.ts"
import { SendLog } from "../../../src/host/send-log.ts"
import { OwnSends } from "../../../src/host/v2/user-turns.ts"
import { resolveOptions } from "../../../src/options/index.ts"

const SEND_TIMEOUT_MS = 1_000

type Knobs = { contextMs?: number | "never"; syntheticRejectMs?: number }

function rig(knobs: Knobs, options: Record<string, unknown> = {}) {
  const time = new SimulatedTime()
  const start = time.now()
  /** When each prompt was made, in ms since the send began. */
  const prompts: number[] = []
  const later = (ms: number | "never", fn: () => void) => (ms === "never" ? undefined : ms === 0 ? fn() : time.schedule(ms, fn))
  const ctx = {
    session: {
      context: () => new Promise((resolve) => later(knobs.contextMs ?? 0, () => resolve([]))),
      prompt: async () => {
        prompts.push(time.now() - start)
        return { id: `inb_${prompts.length}`, type: "user" }
      },
      synthetic: () => new Promise((_, reject) => later(knobs.syntheticRejectMs ?? 0, () => reject(new Error("provider refuses synthetic")))),
    },
  }
  const port = createV2Port({
    ctx,
    resolved: resolveOptions({ sendTimeoutMs: SEND_TIMEOUT_MS, injectIntervalMs: 0, ...options }, {}),
    time,
    shared: { own: new OwnSends(), sendLog: new SendLog(), syntheticRefused: new Set() },
    writeLog: () => undefined,
  })
  return { time, port, prompts }
}

const continueReq = (stillWanted?: () => string | undefined): SendRequest => ({ sessionID: "ses_1", text: "continue", kind: "continue", stillWanted })

/** Runs the send to its end on the simulated clock; its outcome, or the error it ended with. */
async function run(r: ReturnType<typeof rig>, request: SendRequest, totalMs = 5_000): Promise<string> {
  let outcome = "pending"
  r.port.send(request).then(
    () => (outcome = "sent"),
    (error: Error) => (outcome = error.message),
  )
  for (let t = 0; t < totalMs; t += 50) {
    await new Promise((resolve) => setImmediate(resolve))
    r.time.advance(50)
  }
  await new Promise((resolve) => setImmediate(resolve))
  return outcome
}

describe("2.x send: the history check before the prompt", () => {
  test("negative control: a quick check, the prompt goes out at once", async () => {
    const r = rig({ contextMs: 0 })
    expect(await run(r, continueReq())).toBe("sent")
    expect(r.prompts).toEqual([0])
  })

  test("a check that never answers gets half the send's time, then the prompt goes out inside the bound", async () => {
    const r = rig({ contextMs: "never" })
    expect(await run(r, continueReq())).toBe("sent")
    expect(r.prompts).toHaveLength(1)
    expect(r.prompts[0]!).toBeLessThan(SEND_TIMEOUT_MS)
  })

  test("a check slower than the whole bound does not send late", async () => {
    const r = rig({ contextMs: 3 * SEND_TIMEOUT_MS })
    expect(await run(r, continueReq())).toBe("sent")
    expect(r.prompts.every((at) => at < SEND_TIMEOUT_MS)).toBe(true)
  })

  test("the user pressed ESC during the check: no prompt, and the send says why", async () => {
    const r = rig({ contextMs: 200 })
    let escAt: number | undefined
    r.time.schedule(100, () => (escAt = r.time.now()))
    const outcome = await run(r, continueReq(() => (escAt !== undefined ? "cancelled by the user (ESC)" : undefined)))
    expect(outcome).toMatch(/not sent: cancelled by the user \(ESC\)/)
    expect(r.prompts).toEqual([])
  })

  test("negative control: the core still wants it after the check, the prompt goes out", async () => {
    const r = rig({ contextMs: 200 })
    expect(await run(r, continueReq(() => undefined))).toBe("sent")
    expect(r.prompts).toHaveLength(1)
  })

  test("a synthetic refused only after the bound falls back to no prompt; refused in time, it falls back", async () => {
    const late = rig({ syntheticRejectMs: 2 * SEND_TIMEOUT_MS }, { visibleContinue: false })
    expect(await run(late, continueReq())).toMatch(/not sent: its time \(sendTimeoutMs\) ran out/)
    expect(late.prompts).toEqual([])
    const quick = rig({ syntheticRejectMs: 10 }, { visibleContinue: false })
    expect(await run(quick, continueReq())).toBe("sent")
    expect(quick.prompts).toHaveLength(1)
  })
})
