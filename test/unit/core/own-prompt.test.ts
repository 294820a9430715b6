/** Our own prompts on their way (own-prompt.ts): accepted, not yet shown in the session. */
import { describe, expect, test } from "bun:test"
import { FAILURE_ECHO_GRACE_MS } from "../../../src/core/failure-chain.ts"
import { ownPromptLandingUntil, ownPromptShown, promptCallOverdue, promptCallStarted } from "../../../src/core/own-prompt.ts"
import { newSessionState } from "../../../src/core/session-state.ts"

/** A session whose prompt call went out at `calledAt` and was accepted at `acceptedAt`. */
function accepted(calledAt: number, acceptedAt: number) {
  const state = newSessionState("s", 0)
  promptCallStarted(state, calledAt)
  state.lastSendAt = acceptedAt
  return state
}

describe("a prompt of ours on its way", () => {
  test("accepted and not shown: on its way until the echo grace after it was accepted", () => {
    const state = accepted(1_000, 1_200)
    expect(ownPromptLandingUntil(state, 1_300)).toBe(1_200 + FAILURE_ECHO_GRACE_MS)
    expect(ownPromptLandingUntil(state, 1_200 + FAILURE_ECHO_GRACE_MS)).toBeUndefined()
  })

  test("shown, even before the host answered the call: it has landed", () => {
    const state = accepted(1_000, 1_200)
    ownPromptShown(state, 1_100)
    expect(ownPromptLandingUntil(state, 1_300)).toBeUndefined()
  })

  test("negative control: a sighting from before the call is an earlier prompt's", () => {
    const state = accepted(1_000, 1_200)
    ownPromptShown(state, 900)
    expect(ownPromptLandingUntil(state, 1_300)).toBe(1_200 + FAILURE_ECHO_GRACE_MS)
  })

  test("a call that timed out may still land: on its way until its hold, unless it shows up", () => {
    const state = newSessionState("s", 0)
    promptCallStarted(state, 1_000)
    promptCallOverdue(state, 70_000)
    expect(ownPromptLandingUntil(state, 30_000)).toBe(70_000)
    expect(ownPromptLandingUntil(state, 70_000)).toBeUndefined()
    ownPromptShown(state, 40_000)
    expect(ownPromptLandingUntil(state, 41_000)).toBeUndefined()
  })

  test("a timed-out call and a later accepted one, both unseen: the later deadline counts", () => {
    const state = newSessionState("s", 0)
    promptCallStarted(state, 1_000)
    promptCallOverdue(state, 70_000)
    promptCallStarted(state, 10_000)
    state.lastSendAt = 10_100
    expect(ownPromptLandingUntil(state, 12_000)).toBe(70_000)
  })

  test("a timed-out call that showed up before the next call went out no longer holds", () => {
    const state = newSessionState("s", 0)
    promptCallStarted(state, 1_000)
    promptCallOverdue(state, 70_000)
    ownPromptShown(state, 5_000)
    promptCallStarted(state, 10_000) // still out, or refused: not accepted
    expect(ownPromptLandingUntil(state, 12_000)).toBeUndefined()
  })

  test("nothing accepted, or a later call not accepted: nothing is on its way", () => {
    expect(ownPromptLandingUntil(newSessionState("s", 0), 5)).toBeUndefined()
    const state = accepted(1_000, 1_200)
    promptCallStarted(state, 2_000) // refused or still out: lastSendAt stays at 1_200
    expect(ownPromptLandingUntil(state, 2_100)).toBeUndefined()
  })
})
