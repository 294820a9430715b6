/**
 * The per-session record of what we have in flight (intervention.ts), as a pure record: our
 * prompts on their way, our abort until its interruption is accounted for, the recovery under
 * way and the call out, and the open-call exceptions. The engine-level behaviour is pinned in
 * own-abort.test.ts, failures.test.ts, safety.test.ts and the property tests.
 */
import { describe, expect, test } from "bun:test"
import { ECHO_GRACE_MS } from "../../../src/options/constants.ts"
import {
  abortMayEnd,
  abortSettled,
  cancelRecovery,
  endRecovery,
  holdRecovery,
  interruptionWasOurs,
  ownHold,
  newIntervention,
  note,
  type CallOutcome,
  type Intervention,
} from "../../../src/core/intervention.ts"

const promptUntil = (rec: Intervention, now: number) => ownHold(rec, now, "prompt")?.until

function called(rec: Intervention, at: number, outcome?: CallOutcome, holdUntil = 0): Intervention {
  note(rec, { type: "promptCalling" }, at)
  if (outcome) note(rec, { type: "promptSettled", outcome, holdUntil }, at)
  return rec
}

/** A prompt call that went out at `calledAt` and was accepted at `acceptedAt`. */
function accepted(calledAt: number, acceptedAt: number): Intervention {
  const rec = called(newIntervention(), calledAt)
  note(rec, { type: "promptSettled", outcome: "ok", holdUntil: 0 }, acceptedAt)
  return rec
}

describe("a prompt of ours on its way", () => {
  test("accepted and not shown: on its way until the echo grace after it was accepted", () => {
    const rec = accepted(1_000, 1_200)
    expect(promptUntil(rec, 1_300)).toBe(1_200 + ECHO_GRACE_MS)
    expect(ownHold(rec, 1_300, "prompt")?.reason).toBe("a prompt of ours may still land")
    expect(promptUntil(rec, 1_200 + ECHO_GRACE_MS)).toBeUndefined()
  })

  test("shown, even before the host answered the call: it has landed", () => {
    const rec = accepted(1_000, 1_200)
    note(rec, { type: "ownPromptShown" }, 1_100)
    expect(ownHold(rec, 1_300, "prompt")).toBeUndefined()
  })

  test("negative control: a sighting from before the call is an earlier prompt's", () => {
    const rec = accepted(1_000, 1_200)
    note(rec, { type: "ownPromptShown" }, 900)
    expect(promptUntil(rec, 1_300)).toBe(1_200 + ECHO_GRACE_MS)
  })

  test("a call that timed out may still land: on its way until its hold, unless it shows up", () => {
    const rec = called(newIntervention(), 1_000, "timeout", 70_000)
    expect(promptUntil(rec, 30_000)).toBe(70_000)
    expect(promptUntil(rec, 70_000)).toBeUndefined()
    note(rec, { type: "ownPromptShown" }, 40_000)
    expect(promptUntil(rec, 41_000)).toBeUndefined()
  })

  test("a timed-out call and a later accepted one, both unseen: the later deadline counts", () => {
    const rec = called(newIntervention(), 1_000, "timeout", 70_000)
    called(rec, 10_000)
    note(rec, { type: "promptSettled", outcome: "ok", holdUntil: 0 }, 10_100)
    expect(promptUntil(rec, 12_000)).toBe(70_000)
  })

  test("a timed-out call that showed up before the next call went out no longer holds", () => {
    const rec = called(newIntervention(), 1_000, "timeout", 70_000)
    note(rec, { type: "ownPromptShown" }, 5_000)
    called(rec, 10_000) // still out, or refused: not accepted
    expect(promptUntil(rec, 12_000)).toBeUndefined()
  })

  test("nothing accepted, or a later call not accepted (refused, failed): nothing is on its way", () => {
    expect(ownHold(newIntervention(), 5, "prompt")).toBeUndefined()
    const rec = accepted(1_000, 1_200)
    called(rec, 2_000, "failed")
    expect(rec.prompt.acceptedAt).toBe(1_200) // the send spacing still counts from the last accepted one
    expect(promptUntil(rec, 2_100)).toBeUndefined()
  })

  test("only a prompt's own record holds a prompt: an abort, a call out or a recovery under way do not", () => {
    const rec = newIntervention()
    rec.call.busy = true
    holdRecovery(rec)
    note(rec, { type: "abortCalling", until: 10_000 }, 0)
    abortSettled(rec, "ok", 100, 60_000)
    expect(ownHold(rec, 200, "prompt")).toBeUndefined()
    expect(ownHold(rec, 200, "abort")).toBeDefined() // negative control
  })
})

/** An abort call of ours that went out at 0, presumed ours until 10 s, answered at `at`. */
function abortAnswered(outcome: CallOutcome, at = 100, holdMs = 60_000): Intervention {
  const rec = newIntervention()
  note(rec, { type: "abortCalling", until: 10_000 }, 0)
  abortSettled(rec, outcome, at, holdMs)
  return rec
}

describe("our abort until its interruption is accounted for", () => {
  test("accepted and not reported: no second abort until the run moves on", () => {
    const rec = abortAnswered("ok")
    expect(ownHold(rec, 200, "abort")).toEqual({ reason: "our abort is not reported by the host yet", until: 60_100 })
    expect(ownHold(rec, 200, "ladder")?.reason).toBe("our abort is not reported by the host yet")
    note(rec, { type: "runMovedOn" }, 300)
    expect(ownHold(rec, 300, "abort")).toBeUndefined()
  })

  test("past its hold the report is presumed lost and the abort forgotten", () => {
    const rec = abortAnswered("timeout")
    expect(ownHold(rec, 60_100, "abort")).toBeDefined()
    expect(ownHold(rec, 60_101, "abort")).toBeUndefined()
    expect(rec.abort).toBeUndefined()
  })

  test("negative control: a refused abort holds nothing, and while the call is out it is no landing either", () => {
    expect(ownHold(abortAnswered("failed"), 200, "abort")).toBeUndefined()
    const calling = newIntervention()
    note(calling, { type: "abortCalling", until: 10_000 }, 0)
    expect(ownHold(calling, 200, "abort")).toBeUndefined()
  })

  test("the first interruption after acceptance, inside the window, is ours; the next is the user's", () => {
    const rec = abortAnswered("ok")
    expect(interruptionWasOurs(rec, undefined, 500)).toBe("ours")
    expect(interruptionWasOurs(rec, undefined, 600)).toBe("user")
  })

  test("negative controls: after the window, from an overdue abort, or named the user's, it is the user's", () => {
    expect(interruptionWasOurs(abortAnswered("ok"), undefined, 10_001)).toBe("user")
    expect(interruptionWasOurs(abortAnswered("timeout"), undefined, 500)).toBe("user")
    expect(interruptionWasOurs(abortAnswered("ok"), true, 500)).toBe("user")
  })

  test("an interruption no one asked for (byUser false) is nobody's and ends the wait", () => {
    const rec = abortAnswered("ok")
    expect(interruptionWasOurs(rec, false, 500)).toBe("other")
    expect(rec.abort).toBeUndefined()
  })

  test("while the call is out: undecided, then ours if accepted within the skew, the user's otherwise", () => {
    const quick = newIntervention()
    note(quick, { type: "abortCalling", until: 10_000 }, 0)
    expect(interruptionWasOurs(quick, undefined, 50)).toBe("undecided")
    expect(abortSettled(quick, "ok", 1_050, 60_000)).toBeUndefined()
    const late = newIntervention()
    note(late, { type: "abortCalling", until: 10_000 }, 0)
    interruptionWasOurs(late, undefined, 50)
    expect(abortSettled(late, "ok", 1_051, 60_000)).toBe("user")
    const refused = newIntervention()
    note(refused, { type: "abortCalling", until: 10_000 }, 0)
    interruptionWasOurs(refused, undefined, 50)
    expect(abortSettled(refused, "failed", 60, 60_000)).toBe("user")
  })

  test("the user wrote while our abort call was out: its interruption is theirs, even answered promptly", () => {
    const rec = newIntervention()
    note(rec, { type: "abortCalling", until: 10_000 }, 0)
    note(rec, { type: "userTookOver" }, 10)
    expect(interruptionWasOurs(rec, undefined, 20)).toBe("user")
  })

  test("our continue after the abort showed up: the aborted run is over, a later interruption is the user's", () => {
    const rec = abortAnswered("ok")
    called(rec, 5_100, "ok")
    note(rec, { type: "ownPromptShown" }, 5_200)
    expect(interruptionWasOurs(rec, undefined, 5_300)).toBe("user")
  })

  test("negative control: a prompt sent before the abort was answered proves nothing", () => {
    const rec = newIntervention()
    note(rec, { type: "abortCalling", until: 10_000 }, 0)
    called(rec, 50, "ok")
    abortSettled(rec, "ok", 100, 60_000)
    note(rec, { type: "ownPromptShown" }, 150)
    expect(interruptionWasOurs(rec, undefined, 200)).toBe("ours")
  })
})

describe("a recovery under way and the call out", () => {
  test("a recovery under way holds a new one and the stall ladder; a call out holds only the ladder", () => {
    const rec = newIntervention()
    holdRecovery(rec)
    expect(ownHold(rec, 0, "recovery")?.reason).toBe("a recovery is already under way")
    expect(ownHold(rec, 0, "ladder")?.reason).toBe("a recovery is already under way")
    endRecovery(rec)
    rec.call.busy = true
    expect(ownHold(rec, 0, "recovery")).toBeUndefined()
    expect(ownHold(rec, 0, "ladder")?.reason).toBe("a recovery is already under way")
    rec.call.busy = false
    expect(ownHold(rec, 0, "ladder")).toBeUndefined()
  })

  test("cancelling marks the recovery cancelled and runs its cancel once; ending one that was superseded leaves the newer one", () => {
    const rec = newIntervention()
    let stopped = 0
    const first = holdRecovery(rec, () => void stopped++)
    const second = holdRecovery(rec)
    endRecovery(rec, first)
    expect(rec.underWay).toBe(second)
    expect(second.cancelled).toBe(false)
    cancelRecovery(rec)
    expect(second.cancelled).toBe(true)
    const third = holdRecovery(rec, () => void stopped++)
    cancelRecovery(rec)
    cancelRecovery(rec)
    expect(third.cancelled).toBe(true)
    expect(first.cancelled).toBe(false) // superseded without a cancel: it never ran
    expect(stopped).toBe(1)
    expect(rec.underWay).toBeUndefined()
  })
})

describe("nudges sent this turn", () => {
  test("remembered until the next run starts", () => {
    const rec = newIntervention()
    note(rec, { type: "nudgeSent", feature: "todo-nudge" }, 0)
    expect(rec.sentThisTurn.has("todo-nudge")).toBe(true)
    expect(rec.sentThisTurn.has("other")).toBe(false)
    note(rec, { type: "runStarted" }, 1)
    expect(rec.sentThisTurn.size).toBe(0)
  })
})

describe("the run's end, for a recovery that waits on it", () => {
  test("the recovery under way hears it: when, and its step is run (the continue after our abort)", () => {
    const rec = newIntervention()
    const underWay = holdRecovery(rec)
    let heard = 0
    underWay.onRunEnded = () => heard++
    note(rec, { type: "runEnded" }, 42)
    expect(underWay.runEndedAt).toBe(42)
    expect(heard).toBe(1)
  })

  test("negative controls: nothing under way hears nothing; a recovery ended before the idle is not told", () => {
    const rec = newIntervention()
    note(rec, { type: "runEnded" }, 1)
    expect(rec.underWay).toBeUndefined()
    const underWay = holdRecovery(rec)
    let heard = 0
    underWay.onRunEnded = () => heard++
    endRecovery(rec, underWay)
    note(rec, { type: "runEnded" }, 2)
    expect(underWay.runEndedAt).toBeUndefined()
    expect(heard).toBe(0)
  })
})

describe("the exceptions to the open-call guard", () => {
  const wait = { tool: "task", startedAt: 0, subagent: "wait" as const }
  test("a live tool loop may end any open call; an orphan parent only its waiting subagent call, once its children settled", () => {
    expect(abortMayEnd({ kind: "live-tool-loop" }, { tool: "bash", startedAt: 0 }, () => false)).toBe(true)
    expect(abortMayEnd({ kind: "orphan-parent" }, wait, () => true)).toBe(true)
  })

  test("negative controls: no exception, a child still working, a background run, another tool", () => {
    expect(abortMayEnd(undefined, wait, () => true)).toBe(false)
    expect(abortMayEnd({ kind: "orphan-parent" }, wait, () => false)).toBe(false)
    expect(abortMayEnd({ kind: "orphan-parent" }, { ...wait, subagent: "background" }, () => true)).toBe(false)
    expect(abortMayEnd({ kind: "orphan-parent" }, { tool: "bash", startedAt: 0 }, () => true)).toBe(false)
  })
})
