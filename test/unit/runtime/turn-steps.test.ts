/**
 * The runtime's contract for a path that looks at finished turns itself (runtime/path.ts
 * `turnSteps`, the `turn` input, `StepResult.turn`), reads the session's goal
 * (`StepContext.goal`) and changes it (the `goal` effect); and the engine telling its owner a
 * session was deleted. On a simulated clock, through a real engine.
 */
import { describe, expect, test } from "bun:test"
import { RecoveryEngine } from "../../../src/core/engine.ts"
import type { Goal, GoalChange, GoalSource } from "../../../src/core/goals.ts"
import { JUDGE_PRIORITY } from "../../../src/paths/judge/path.ts"
import type { Signal, SignalType } from "../../../src/core/port.ts"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import type { AnyPath, PathTurnRule, RecoveryPath, StepResult } from "../../../src/runtime/path.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"

const turn = (text: string): TranscriptMessage[] => [
  { id: "u1", role: "user", parts: [{ kind: "text", text: "do it" }] },
  { id: "a1", role: "assistant", parts: [{ kind: "text", text }], finish: "stop" },
]

type Seen = { place: string; state: number; goal?: string }

/** A path whose step answers a turn as told, counting its looks in its state. */
function lookingPath(answer: "stand-down" | "none", priority: number, seen: Seen[]): RecoveryPath<number> {
  return {
    name: "looker",
    turnSteps: [{ name: "look", pass: "second", priority }],
    initial: () => 0,
    step(state, input, ctx): StepResult<number> | undefined {
      if (input.type !== "turn") return undefined
      seen.push({ place: input.place, state, goal: ctx.goal()?.text })
      const effects = [{ kind: "goal" as const, change: { kind: "continued" as const, goalID: "g1", continues: state + 1 } }]
      return { state: state + 1, effects, ...(answer === "stand-down" ? { turn: { kind: "stand-down" as const, reason: "the looker took it" } } : {}) }
    },
  }
}

/** A path with one finished-turn rule, at `priority` in the second pass, that answers `decide`'s answer. */
function rulePath(name: string, priority: number, decide: PathTurnRule<undefined>["decide"]): AnyPath {
  return { name: `${name}-path`, initial: () => undefined, step: () => undefined, turnRules: [{ name, pass: "second", priority, decide }] }
}

/** A rule after the looker's place that records that it ran. */
const laterRule = (ran: string[]) => rulePath("later", JUDGE_PRIORITY + 40, () => void ran.push("later"))

function setup(path: RecoveryPath<number>, others: AnyPath[], deleted: string[] = []) {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const changes: GoalChange[] = []
  const goals: GoalSource = {
    goalOf: (id): Goal | undefined => (id === "s1" ? { id: "g1", text: "ship the parser", startedAt: 0, continues: 0, status: "active" } : undefined),
    change: (_id, change) => void changes.push(change),
  }
  const engine = new RecoveryEngine({ paths: [path, ...others], port, time, goals, options: resolveOptions({ activeUserWindowMs: 0 }, {}), onSessionDeleted: (id) => deleted.push(id) })
  const emit = (...signals: Array<Partial<Signal> & { type: SignalType }>) => {
    for (const s of signals) engine.handle({ sessionID: "s1", ...s } as Signal)
  }
  const finishTurn = async (text: string) => {
    port.history.set("s1", turn(text))
    emit({ type: "busy" }, { type: "modelOutput" }, { type: "idle" })
    for (let i = 0; i < 20; i++) {
      time.advance(500)
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
  return { engine, emit, finishTurn, changes, port }
}

describe("a path that looks at finished turns (turnSteps)", () => {
  test("its step gets the turn at its place, with its state and the session's goal; its answer ends the pass and its effects run", async () => {
    const seen: Seen[] = []
    const ran: string[] = []
    const t = setup(lookingPath("stand-down", JUDGE_PRIORITY + 30, seen), [laterRule(ran)])
    await t.finishTurn("The parser reads nested brackets now.")
    expect(seen).toEqual([{ place: "look", state: 0, goal: "ship the parser" }])
    expect(ran).toEqual([])
    expect(t.changes).toEqual([{ kind: "continued", goalID: "g1", continues: 1 }])
    // The state it answered is kept for the next turn.
    await t.finishTurn("Brackets and braces both work.")
    expect(seen.map((s) => s.state)).toEqual([0, 1])
  })

  test("negative control: no answer lets the later rules of the pass run", async () => {
    const seen: Seen[] = []
    const ran: string[] = []
    const t = setup(lookingPath("none", JUDGE_PRIORITY + 30, seen), [laterRule(ran)])
    await t.finishTurn("The parser reads nested brackets now.")
    expect(seen).toHaveLength(1)
    expect(ran).toEqual(["later"])
  })

  test("its place is its priority: after a rule that answers first it is not asked at all", async () => {
    const seen: Seen[] = []
    const first = rulePath("first", JUDGE_PRIORITY + 20, () => ({ effect: { kind: "stand-down", reason: "mine" } }))
    const t = setup(lookingPath("stand-down", JUDGE_PRIORITY + 30, seen), [first])
    await t.finishTurn("The parser reads nested brackets now.")
    expect(seen).toEqual([])
  })

  test("a turn that hands over to the user never reaches it", async () => {
    const seen: Seen[] = []
    const t = setup(lookingPath("stand-down", JUDGE_PRIORITY + 30, seen), [])
    await t.finishTurn("Should I also rename the module?")
    expect(seen).toEqual([])
  })
})

describe("the engine tells its owner a session was deleted", () => {
  test("tracked or not, once per deletion", () => {
    const deleted: string[] = []
    const t = setup(lookingPath("none", JUDGE_PRIORITY, []), [], deleted)
    t.emit({ type: "busy" })
    t.emit({ type: "sessionDeleted" })
    t.engine.handle({ type: "sessionDeleted", sessionID: "never-seen" })
    expect(deleted).toEqual(["s1", "never-seen"])
    // Negative control: a session that only idles is not deleted.
    t.emit({ type: "idle" })
    expect(deleted).toHaveLength(2)
  })
})
