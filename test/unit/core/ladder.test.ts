import { describe, expect, test } from "bun:test"
import { backoffDelay, continuesInWindow } from "../../../src/core/ladder.ts"
import { decideStallRecovery, stallActionFor, type LadderBudgets, type LadderInput } from "../../../src/paths/stall/ladder.ts"

const budgets: LadderBudgets = {
  busyStallStrategy: "continue",
  stallEpisodeMaxContinues: 3,
  baseBackoffMs: 1000,
  maxBackoffMs: 8000,
  loopMaxContinues: 3,
  loopWindowMs: 600_000,
  lifetimeMaxContinues: 9,
}
const fresh: LadderInput = { now: 1_000_000, busyEpoch: 3, episodeRetries: 0, recentContinues: [], lifetimeContinues: 0, lastModelOutputAt: 950_000 }
/** A continue made in the current run (epoch 3) after the model's last output at 950_000. */
const continued = { kind: "continue" as const, reason: "x", at: 960_000, epoch: 3, outputAt: 950_000 }

describe("backoff", () => {
  test.each([
    [0, 1000],
    [1, 2000],
    [2, 4000],
    [3, 8000],
    [4, 8000],
    [60, 8000],
  ])("attempt %i waits %i ms", (attempt, expected) => {
    expect(backoffDelay(attempt, 1000, 8000)).toBe(expected)
  })
})

describe("loop window", () => {
  test("counts only continues inside the window", () => {
    expect(continuesInWindow([0, 500_000, 900_000], 1_000_000, 600_000)).toBe(2)
    expect(continuesInWindow([], 1_000_000, 600_000)).toBe(0)
  })
})

describe("decideStallRecovery", () => {
  test("a first stall is a plain continue after the base backoff", () => {
    expect(decideStallRecovery(fresh, budgets)).toEqual({ effect: { kind: "continue", reason: "stream stalled" }, delayMs: 1000 })
  })

  test("strategy off never acts; strategy abort always aborts first", () => {
    expect(decideStallRecovery(fresh, { ...budgets, busyStallStrategy: "off" }).effect.kind).toBe("none")
    const d = decideStallRecovery(fresh, { ...budgets, busyStallStrategy: "abort" })
    expect(d.effect.kind).toBe("abort-continue")
  })

  test("a continue that brought no model output back escalates to abort + continue", () => {
    const afterContinue = { ...fresh, episodeRetries: 1, lastRecovery: continued }
    const d = decideStallRecovery(afterContinue, budgets)
    expect(d.effect.kind).toBe("abort-continue")
    // Negative control: the model spoke after the continue, so a plain continue is still right.
    const revived = { ...afterContinue, lastModelOutputAt: 970_000 }
    const d2 = decideStallRecovery(revived, budgets)
    expect(d2.effect.kind).toBe("continue")
    // A recovery from an earlier busy period does not count against this one.
    const earlier = { ...afterContinue, busyEpoch: 5 }
    const d3 = decideStallRecovery(earlier, budgets)
    expect(d3.effect.kind).toBe("continue")
  })

  test("the escalation does not depend on the order of clock stamps (a clock stepped back)", () => {
    // The clock went back 10 minutes after the continue: the continue now looks "in the future"
    // and newer than the run's start and the model's output; it is still this run's, unanswered.
    const stepped = { ...fresh, now: 400_000, episodeRetries: 1, lastRecovery: { ...continued, at: 960_000 } }
    const d = decideStallRecovery(stepped, budgets)
    expect(d.effect.kind).toBe("abort-continue")
    // Control: output after the step, stamped earlier than the continue, still counts as output.
    const spoke = { ...stepped, lastModelOutputAt: 390_000 }
    const d2 = decideStallRecovery(spoke, budgets)
    expect(d2.effect.kind).toBe("continue")
  })

  test("loopMaxContinues continues inside the window is a hallucination loop", () => {
    const loop = { ...fresh, recentContinues: [700_000, 800_000, 900_000] }
    const d = decideStallRecovery(loop, budgets)
    expect(d.effect.kind).toBe("abort-continue")
    expect(d.effect.reason).toContain("hallucination loop")
    // Negative control: the same continues spread beyond the window.
    const spread = { ...fresh, recentContinues: [100_000, 200_000, 900_000] }
    const d2 = decideStallRecovery(spread, budgets)
    expect(d2.effect.kind).toBe("continue")
  })

  test("stallEpisodeMaxContinues per episode, then stand down", () => {
    expect(decideStallRecovery({ ...fresh, episodeRetries: 2 }, budgets).effect.kind).toBe("continue")
    const d = decideStallRecovery({ ...fresh, episodeRetries: 3 }, budgets)
    expect(d).toMatchObject({ effect: { kind: "stand-down" } })
  })

  test("the lifetime cap wins over everything else", () => {
    const d = decideStallRecovery({ ...fresh, lifetimeContinues: 9 }, budgets)
    expect(d).toMatchObject({ effect: { kind: "stand-down" } })
    expect(decideStallRecovery({ ...fresh, lifetimeContinues: 8 }, budgets).effect.kind).toBe("continue")
  })

  test("backoff grows with the episode's retries", () => {
    const d = decideStallRecovery({ ...fresh, episodeRetries: 2, lastModelOutputAt: 999_999, lastRecovery: { ...continued, at: 990_000 } }, budgets)
    expect(d.delayMs).toBe(4000)
  })
})

describe("stallActionFor: the rung against what the host says", () => {
  test("a plain continue rung aborts first when the host still runs the session", () => {
    expect(stallActionFor("continue", "live").kind).toBe("abort-continue")
  })

  test("negative control: a session the host no longer runs gets the plain continue", () => {
    expect(stallActionFor("continue", "stopped").kind).toBe("continue")
  })

  test("no answer from the host: no abort on a guess, the plain continue goes out", () => {
    const action = stallActionFor("continue", "unknown")
    expect(action.kind).toBe("continue")
    expect(action.note).toContain("no abort on a guess")
  })

  test("an abort rung stays an abort whatever the host says", () => {
    for (const host of ["live", "stopped", "unknown"] as const) expect(stallActionFor("abort-continue", host).kind).toBe("abort-continue")
  })
})
