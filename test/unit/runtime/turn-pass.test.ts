/**
 * The runtime's finished-turn passes (runtime/turn-pass.ts): two passes, one history read each,
 * replaced not stacked, safely executed. The rules are a probe path's (its turnRules), run
 * through the runtime as every path's are; the stall path runs beside it.
 */
import { describe, expect, test } from "bun:test"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { stallPath } from "../../../src/paths/stall/path.ts"
import type { PathTurnRule, TurnEffect, TurnFacts } from "../../../src/runtime/path.ts"
import { makeHarness, userTurn } from "../../support/harness.ts"

type Rule = PathTurnRule<undefined>

/** The engine with the stall path and a path of these rules alone (the rules in the order given, all at one priority). */
function harness(options: Record<string, unknown>, rules: Rule[]) {
  return makeHarness(options, {}, [stallPath, { name: "probe", turnRules: rules, initial: () => undefined, step: () => undefined }])
}

function recorder(pass: "first" | "second", answer?: (f: TurnFacts) => TurnEffect | undefined) {
  const seen: TurnFacts[] = []
  const rule: Rule = {
    name: `probe-${pass}`,
    pass,
    priority: 50,
    decide(facts) {
      seen.push(facts)
      return { effect: answer?.(facts) }
    },
  }
  return { rule, seen }
}

const nudge = { kind: "nudge", text: "nudge", sendKind: "correction", feature: "probe", reason: "test" } as const

describe("finished-turn judging", () => {
  test("a session deleted while its turn is judged gets nothing; control: the same judgement without the deletion sends", async () => {
    const judged = async (deleteMidJudgement: boolean) => {
      let h: ReturnType<typeof makeHarness> | undefined = undefined
      const first = recorder("first", () => {
        if (deleteMidJudgement) h!.emit({ type: "sessionDeleted" })
        return nudge
      })
      h = harness({ minActivityGapMs: 0 }, [first.rule])
      h.emit(...userTurn, { type: "idle" })
      await h.advance(1000)
      expect(first.seen).toHaveLength(1)
      return h.port.sends.length
    }
    expect(await judged(true)).toBe(0)
    expect(await judged(false)).toBe(1)
  })

  test("the first pass runs once the session is quiet for minActivityGapMs, the second after toolTextCheckDelayMs, each with one history read, the todo list read once for both", async () => {
    const first = recorder("first")
    const second = recorder("second")
    const h = harness({ toolTextCheckDelayMs: 3000, minActivityGapMs: 1000 }, [first.rule, second.rule])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(500)
    expect(first.seen).toHaveLength(0)
    // Late host events about the finished turn push the judgement back.
    h.emit({ type: "activity" })
    await h.advance(700)
    expect(first.seen).toHaveLength(0)
    await h.advance(300)
    expect(first.seen).toHaveLength(1)
    expect(second.seen).toHaveLength(0)
    expect(h.port.reads).toBe(2) // history + todos (no list pushed by the host yet)
    await h.advance(3000)
    expect(second.seen).toHaveLength(1)
    // The history again (text may still have been landing), the todo list not: no run came in between.
    expect(h.port.reads).toBe(3)
    expect(second.seen[0]!.todos).toBe(first.seen[0]!.todos)
  })

  test("control: a new turn reads the todo list again, and so does the pass after a read that failed", async () => {
    const first = recorder("first")
    const h = harness({ toolTextCheckDelayMs: 3000, minActivityGapMs: 0 }, [first.rule])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(5000)
    expect(h.port.reads).toBe(3)
    h.emit({ type: "busy" }, { type: "idle" })
    await h.advance(5000)
    expect(first.seen).toHaveLength(2)
    expect(h.port.reads).toBe(6)
    h.port.todosBehaviour = "reject"
    h.emit({ type: "busy" }, { type: "idle" })
    await h.advance(5000)
    expect(h.port.reads).toBe(10)
  })

  test("a new turn cancels a pending second pass", async () => {
    const second = recorder("second", () => nudge)
    const h = harness({ toolTextCheckDelayMs: 3000 }, [second.rule])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(1000)
    h.emit({ type: "busy" })
    await h.advance(5000)
    expect(second.seen).toHaveLength(0)
    expect(h.port.sends).toHaveLength(0)
  })

  test("negative control: without the new turn the second pass sends its nudge", async () => {
    const second = recorder("second", () => nudge)
    const h = harness({ toolTextCheckDelayMs: 3000 }, [second.rule])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(5000)
    expect(h.port.sends.map((s) => s.text)).toEqual(["nudge"])
  })

  test("a doubled idle replaces the pending judgement and never sends the same recovery twice", async () => {
    const first = recorder("first", () => nudge)
    const h = harness({}, [first.rule])
    h.emit(...userTurn, { type: "idle" }, { type: "idle" })
    await h.advance(1000)
    h.emit({ type: "idle" })
    await h.advance(5000)
    expect(h.port.sends).toHaveLength(1)
    // A real new turn re-arms it.
    h.emit({ type: "busy" }, { type: "idle" })
    await h.advance(1000)
    expect(h.port.sends).toHaveLength(2)
  })

  test("a cancelled, paused or awaited session is not judged", async () => {
    for (const hold of ["esc", "pause", "await"] as const) {
      const first = recorder("first", () => nudge)
      const h = harness({}, [first.rule])
      h.emit(...userTurn)
      if (hold === "esc") h.emit({ type: "interrupted" })
      if (hold === "pause") h.pauses.pause("s1")
      h.emit({ type: "idle" })
      if (hold === "await") h.emit({ type: "awaitingUser", key: "q", open: true })
      await h.advance(5000)
      expect(h.port.sends).toHaveLength(0)
    }
  })

  test("a throwing rule is logged once and the next rule still runs", async () => {
    const broken: Rule = { name: "broken", pass: "first", priority: 50, decide: () => { throw new Error("boom") } }
    const next = recorder("first", () => nudge)
    const h = harness({}, [broken, next.rule])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(1000)
    expect(h.port.sends).toHaveLength(1)
    expect(h.port.logs.filter((l) => /rule broken failed/.test(l.message))).toHaveLength(1)
  })

  test("idle nudges count against the lifetime cap of the user episode", async () => {
    const first = recorder("first", () => nudge)
    const h = harness({ lifetimeMaxContinues: 2 }, [first.rule])
    h.emit(...userTurn)
    for (let i = 0; i < 4; i++) {
      h.emit({ type: "idle" })
      await h.advance(1000)
      h.emit({ type: "busy" })
    }
    expect(h.port.sends).toHaveLength(2)
    h.emit(...userTurn, { type: "idle" })
    await h.advance(1000)
    expect(h.port.sends).toHaveLength(3)
  })

  test("a nudge the host refused does not count against the lifetime cap; control: one it took does", async () => {
    const counted = async (behaviour: "reject" | "ok") => {
      const first = recorder("first", () => nudge)
      const h = harness({}, [first.rule])
      h.port.sendBehaviour = behaviour
      h.emit(...userTurn, { type: "idle" })
      await h.advance(1000)
      expect(h.port.sends).toHaveLength(1)
      return h.engine.status("s1")?.lifetimeContinues
    }
    expect(await counted("reject")).toBe(0)
    expect(await counted("ok")).toBe(1)
  })

  test("a failed history read skips the pass instead of judging on nothing", async () => {
    const first = recorder("first", () => nudge)
    const h = harness({}, [first.rule])
    h.port.readBehaviour = "reject"
    h.emit(...userTurn, { type: "idle" })
    await h.advance(5000)
    expect(first.seen).toHaveLength(0)
    expect(h.port.sends).toHaveLength(0)
  })

  test("todos pushed by the host are used instead of a read; a failed todo read is 'unreadable'", async () => {
    const first = recorder("first")
    const h = harness({}, [first.rule])
    h.emit(...userTurn, { type: "todos", todos: [{ content: "a", status: "pending" }] }, { type: "idle" })
    await h.advance(1000)
    expect(first.seen[0]?.todos).toEqual([{ content: "a", status: "pending" }])

    const none = recorder("first")
    const h2 = harness({}, [none.rule])
    h2.emit(...userTurn, { type: "idle" })
    await h2.advance(1000)
    expect(none.seen[0]?.todos).toBe("none")

    const broken = recorder("first")
    const h3 = harness({}, [broken.rule])
    h3.port.todosBehaviour = "reject"
    h3.emit(...userTurn, { type: "idle" })
    await h3.advance(1000)
    expect(broken.seen[0]?.todos).toBe("unreadable")

    const fromLog = recorder("first")
    const h4 = harness({}, [fromLog.rule])
    h4.port.todosBehaviour = "reject"
    h4.port.history.set("s1", [
      { id: "a1", role: "assistant", parts: [{ kind: "tool", callID: "t", tool: "todowrite", status: "completed", input: { todos: [{ content: "x", status: "in_progress" }] } }] },
    ])
    h4.emit(...userTurn, { type: "idle" })
    await h4.advance(1000)
    expect(fromLog.seen[0]?.todos).toEqual([{ content: "x", status: "in_progress" }])
  })

  test("the stall recovery's own abort does not trigger a judgement of its idle", async () => {
    const first = recorder("first", () => nudge)
    const h = harness({ busyStallStrategy: "abort" }, [first.rule])
    h.emit(...userTurn)
    await h.advance(184_000, 1000)
    expect(h.port.actions).toEqual(["abort"])
    h.emit({ type: "interrupted" }, { type: "idle" })
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(first.seen).toHaveLength(0)
    expect(h.port.actions).toEqual(["abort", "send"])
  })
})

describe("a judgement held for later (look-again)", () => {
  /** A second-pass rule that holds its verdict until 60 s after it first looked, every time it looks. */
  function holdingRule(h: () => ReturnType<typeof makeHarness>) {
    let at: number | undefined
    return recorder("second", () => {
      at ??= h().time.now() + 60_000
      return { kind: "look-again", at, reason: "held" }
    })
  }

  function setup(extra: Rule[] = []) {
    let h: ReturnType<typeof makeHarness> | undefined
    const second = holdingRule(() => h!)
    h = harness({ toolTextCheckDelayMs: 3000 }, [second.rule, ...extra])
    h.emit(...userTurn, { type: "idle" })
    return { h, second }
  }

  test("the turn is judged once more when the hold ends, and that look never asks for another", async () => {
    const { h, second } = setup()
    await h.advance(10_000)
    expect(second.seen).toHaveLength(1)
    await h.advance(55_000)
    expect(second.seen).toHaveLength(2)
    await h.advance(10 * 60_000, 1000)
    expect(second.seen).toHaveLength(2)
  })

  test("control: a genuine user message in between (no run reported) voids the look", async () => {
    const { h, second } = setup()
    await h.advance(10_000)
    h.emit({ type: "userMessage", genuine: true })
    await h.advance(120_000, 1000)
    expect(second.seen).toHaveLength(1)
  })

  test("control: a later rule that acts wins; nothing is judged again", async () => {
    const later = recorder("second", () => nudge)
    const { h, second } = setup([later.rule])
    await h.advance(120_000, 1000)
    expect(second.seen).toHaveLength(1)
    expect(h.port.sends.map((s) => s.text)).toEqual(["nudge"])
  })
})

describe("a turn that hands over to the user", () => {
  /** Both passes of a turn ending in `text`: which of a rule that weighs the hand-off and one that does not were asked. */
  async function asked(text: string) {
    const weighs = recorder("second")
    weighs.rule.weighsHandOff = true
    const plain = recorder("second")
    const h = harness({ toolTextCheckDelayMs: 3000 }, [weighs.rule, plain.rule])
    h.port.history.set("s1", [
      { id: "u1", role: "user", parts: [{ kind: "text", text: "rename the parser module" }] },
      { id: "a1", role: "assistant", parts: [{ kind: "text", text }], finish: "stop" },
    ])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(5000)
    return { weighs: weighs.seen.length, plain: plain.seen.length }
  }

  test("holds every rule but those that weigh the hand-off themselves", async () => {
    expect(await asked("Should I also rename the tests that import it?")).toEqual({ weighs: 1, plain: 0 })
  })

  test("control: a turn that does not hand over reaches every rule", async () => {
    expect(await asked("The parser module is renamed and its importers updated.")).toEqual({ weighs: 1, plain: 1 })
  })
})
