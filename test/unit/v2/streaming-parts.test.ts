/**
 * A 2.x tool part in `streaming` state is a call whose input was still arriving, or was cut
 * off: a call in progress, never a question to the user (1.x `pending` was one).
 */
import { describe, expect, test } from "bun:test"
import { BUDGET, RECOVERED, makeV2, SID, sends } from "./harness.ts"

const PRINTED_CALL = "Let me look.\n<function=bash>\n<parameter=command>ls</parameter>\n</function>"

/** A turn that printed a tool call as text and ends with a tool part in `status`. */
async function finishedTurn(status: "streaming" | "pending") {
  const r = makeV2()
  r.host.userTurn(SID)
  r.host.textDelta(SID, PRINTED_CALL)
  r.host.toolInputStreaming(SID, "call_cut", "bash")
  if (status === "pending") {
    const message = r.host.history.get(SID)!.find((m) => m.type === "assistant") as { content: { id?: string; state?: { status: string } }[] }
    message.content.find((p) => p.id === "call_cut")!.state!.status = "pending"
  }
  r.host.finishRun(SID)
  await r.advance(10_000)
  return r
}

describe("streaming tool parts in the history", () => {
  test("a cut-off call is no hand-off: the printed tool call in the same turn is corrected", async () => {
    const r = await finishedTurn("streaming")
    expect(sends(r.host)).toBe(1)
    expect(r.logged(/waiting on the user/)).toBe(false)
    r.instance.stop()
  })

  test("negative control: a 1.x pending part is a call waiting on the user, so nothing is sent", async () => {
    const r = await finishedTurn("pending")
    expect(sends(r.host)).toBe(0)
    r.instance.stop()
  })
})

describe("streaming tool input in the events", () => {
  test("a stream that hangs while writing a call's input is a stall, recovered at the budget", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    r.host.toolInputStreaming(SID, "call_cut", "bash")
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("negative control: once the call is made (session.tool.called) the silence is a running tool, left alone", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    r.host.toolStart(SID, "call_run", "bash", { command: "make" })
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(0)
    r.instance.stop()
  })
})
