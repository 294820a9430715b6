/**
 * SendRequest.stillWanted: a port that awaits something before its host call (2.x reads the
 * history first) asks the core again just before making it. The answer is the hold that now
 * applies, or the turn the session took since the prompt was decided (the user wrote, the model
 * produced output, the run ended or started); undefined while nothing changed.
 */
import { describe, expect, test } from "bun:test"
import { sendPrompt } from "../../../src/core/actions.ts"
import type { SendRequest } from "../../../src/core/port.ts"
import { bareContext } from "../../support/bare-context.ts"
import { settle } from "../../support/harness.ts"
import { ownAwaiting } from "../../../src/core/session-state.ts"

async function decidedSend() {
  const { time, port, pauses, ctx, state } = bareContext()
  port.sendBehaviour = "hang" // the port is still busy with its history check
  void sendPrompt(ctx, state, { kind: "continue", label: "send continue", text: "go on" })
  await settle()
  const call = port.calls.find((c) => c.kind === "send") as { request: SendRequest } | undefined
  if (!call?.request.stillWanted) throw new Error("the core passed no stillWanted to its port")
  return { state, pauses, time, stillWanted: call.request.stillWanted }
}

describe("a decided send asks again before its host call", () => {
  test("negative control: nothing changed, the send is still wanted", async () => {
    const s = await decidedSend()
    s.time.advance(5_000)
    expect(s.stillWanted()).toBeUndefined()
  })

  test("the user pressed ESC meanwhile", async () => {
    const s = await decidedSend()
    s.state.cancelledByUser = true
    expect(s.stillWanted()).toBe("cancelled by the user (ESC)")
  })

  test("the session was paused, or a question opened, meanwhile", async () => {
    const paused = await decidedSend()
    paused.pauses.pause("s1")
    expect(paused.stillWanted()).toBe("paused")
    const asked = await decidedSend()
    ownAwaiting(asked.state).add("form_1")
    expect(asked.stillWanted()).toMatch(/waiting for the user/)
  })

  test("the model produced output, or the run ended or started, meanwhile", async () => {
    const wrote = await decidedSend()
    wrote.state.lastModelOutputAt = wrote.time.now() + 1
    expect(wrote.stillWanted()).toBe("the model produced output")
    const ended = await decidedSend()
    ended.state.idleEpoch++
    expect(ended.stillWanted()).toBe("the run ended or started")
  })

  test("the user wrote meanwhile: the prompt answered a turn that is over", async () => {
    const s = await decidedSend()
    s.state.lastGenuineUserAt = s.time.now() + 1
    expect(s.stillWanted()).toBe("the user wrote")
  })
})
