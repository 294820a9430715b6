/**
 * The goal path (paths/goal/): its step as the runtime drives it (runtime/path.ts), its prompt
 * and its weighing of a turn's progress. Pure: every test hands the step a session, a clock
 * value and a goal, and reads what it answers; no engine, no timer, no real sleep. Each rule
 * with its negative control.
 */
import { describe, expect, test } from "bun:test"
import type { Goal } from "../../../src/core/goals.ts"
import { newSessionState, ownAwaiting, type SessionState } from "../../../src/core/session-state.ts"
import type { TodoItem, TranscriptMessage, TranscriptPart } from "../../../src/core/transcript.ts"
import { readEnding, type EndingReading } from "../../../src/detect/turn-ending.ts"
import { resolveOptions, type Options } from "../../../src/options/index.ts"
import { goalPath, IDLE_TURNS_TO_STAND_DOWN, type GoalState } from "../../../src/paths/goal/path.ts"
import { buildGoalContinue, lastWords } from "../../../src/paths/goal/prompt.ts"
import { readGoalTurn, weighTurn, wordsOf } from "../../../src/paths/goal/progress.ts"
import type { PathEffect, PathInput, StepContext, StepResult, TurnFacts } from "../../../src/runtime/path.ts"
import type { TodoSnapshot } from "../../../src/todos/open.ts"

const HOUR = 3_600_000
const T0 = 10 * HOUR
const GOAL_TEXT = "make the parser tests pass"

const open: TodoItem[] = [
  { content: "Fix the tokenizer", status: "completed" },
  { content: "Run the parser tests", status: "pending" },
]
const closed: TodoItem[] = open.map((t) => ({ ...t, status: "completed" }))

type World = {
  session: SessionState
  now: number
  options: Options
  goal: Goal | undefined
  held?: string
  inFlight?: string
}

function world(over: Partial<Options> = {}): World {
  const session = newSessionState("s1", 0)
  session.idleEpoch = 2
  session.lastGenuineUserAt = T0 - HOUR // the user wrote an hour ago: past the active-user window
  return {
    session,
    now: T0,
    options: { ...resolveOptions({}, {}).options, ...over },
    goal: { id: "g1", text: GOAL_TEXT, startedAt: T0 - HOUR, continues: 0, status: "active" },
  }
}

function ctxOf(w: World): StepContext {
  return { session: w.session, now: w.now, options: () => w.options, mayAct: mayActOf(w), goal: () => w.goal, paused: () => false, unknownModels: () => new Set() }
}

/** mayAct as the world has it: a guard of the user (`held`), else something of ours under way (`inFlight`). */
function mayActOf(w: World): StepContext["mayAct"] {
  return () => (w.held !== undefined ? { reason: w.held, by: "user" } : w.inFlight !== undefined ? { reason: w.inFlight, by: "ours" } : undefined)
}

const text = (t: string): TranscriptPart => ({ kind: "text", text: t })
const tool = (name: string, callID = "c1"): TranscriptPart => ({ kind: "tool", callID, tool: name, status: "completed" })

let seq = 0
/** The transcript of one finished turn: a user message (the user's, or ours), then the model's messages. */
function turnOf(parts: TranscriptPart[][], asked: { own?: boolean; text?: string } = {}): TranscriptMessage[] {
  const user: TranscriptMessage = { id: `u${++seq}`, role: "user", parts: [text(asked.text ?? "fix the parser")], own: asked.own }
  return [user, ...parts.map((p): TranscriptMessage => ({ id: `a${++seq}`, role: "assistant", parts: p, finish: "stop" }))]
}

function facts(w: World, messages: TranscriptMessage[], todos: TodoSnapshot = "none", ending?: EndingReading): TurnFacts {
  const last = messages[messages.length - 1]
  const said = last?.parts.flatMap((p) => (p.kind === "text" ? [p.text] : [])).join("\n") ?? ""
  return { state: w.session, options: w.options, now: w.now, pass: "second", messages, todos, ending: ending ?? readEnding(said, w.options) }
}

/** The path's state as the runtime keeps it, stepped one input at a time. */
class Driver {
  state: GoalState = goalPath.initial()
  last: StepResult<GoalState> | undefined
  constructor(readonly w: World) {}

  step(input: PathInput): StepResult<GoalState> | undefined {
    this.last = goalPath.step(this.state, input, ctxOf(this.w))
    if (this.last) this.state = this.last.state
    return this.last
  }

  turn(messages: TranscriptMessage[], todos: TodoSnapshot = "none", place = "unanswered", ending?: EndingReading) {
    return this.step({ type: "turn", place, facts: facts(this.w, messages, todos, ending) })
  }

  /** A finished turn answered and its continue delivered: the next idle epoch, the count in the goal. */
  delivered(result: StepResult<GoalState> | undefined) {
    const act = acts(result)[0]
    if (!act || act.kind !== "act" || act.id === undefined) return
    this.step({ type: "effectSettled", id: act.id, outcome: { kind: "delivered", outcome: "ok" } })
    this.w.goal = { ...this.w.goal!, continues: this.w.goal!.continues + 1 }
    this.w.session.idleEpoch += 2
    this.w.now += 60_000
  }
}

const acts = (r: StepResult<GoalState> | undefined) => (r?.effects ?? []).filter((e): e is Extract<PathEffect, { kind: "act" }> => e.kind === "act")
const sentText = (r: StepResult<GoalState> | undefined) => {
  const effect = acts(r)[0]?.effect
  return effect?.kind === "nudge" ? effect.text : undefined
}
const goalChanges = (r: StepResult<GoalState> | undefined) => (r?.effects ?? []).flatMap((e) => (e.kind === "goal" ? [e.change] : []))
const journal = (r: StepResult<GoalState> | undefined) => (r?.effects ?? []).flatMap((e) => (e.kind === "journal-refused" ? [`${e.why}: ${e.reason}`] : []))

const WORKED = () => turnOf([[tool("bash")], [text("The tokenizer now splits on brackets; the parser tests are next.")]])

describe("a finished turn while a goal is set", () => {
  test("gets one continue restating the goal, what the turn said, the open todos and what meets it; the judge's later rules are told to stand down", () => {
    const d = new Driver(world())
    const r = d.turn(WORKED(), open)
    const sent = sentText(r)
    expect(sent).toContain(`continue 1 of at most 25`)
    expect(sent).toContain(`"${GOAL_TEXT}"`)
    expect(sent).toContain(`Your last turn said: "The tokenizer now splits on brackets; the parser tests are next."`)
    expect(sent).toContain("1. [pending] Run the parser tests")
    expect(sent).toMatch(/met only when you call the task_complete tool with `evidence`/)
    expect(acts(r)[0]!.effect).toMatchObject({ kind: "nudge", sendKind: "continue", feature: "goal" })
    expect(r?.turn).toMatchObject({ kind: "stand-down" })
    // It keeps the session tracked until the goal's time runs out.
    expect(r?.wakeAt).toBe(T0 - HOUR + 4 * HOUR)
  })

  test("negative control: no goal, or a goal that ended, and the turn is not the path's", () => {
    const none = new Driver({ ...world(), goal: undefined })
    expect(none.turn(WORKED(), open)).toBeUndefined()
    const w = world()
    w.goal = { ...w.goal!, status: "met" }
    expect(new Driver(w).turn(WORKED(), open)).toBeUndefined()
  })

  test("only a continue that reached the session counts against the goal", () => {
    const d = new Driver(world())
    const id = acts(d.turn(WORKED(), open))[0]!.id!
    expect(goalChanges(d.step({ type: "effectSettled", id, outcome: { kind: "delivered", outcome: "ok" } }))).toEqual([{ kind: "continued", goalID: "g1", continues: 1 }])
    const again = new Driver(world())
    const id2 = acts(again.turn(WORKED(), open))[0]!.id!
    expect(goalChanges(again.step({ type: "effectSettled", id: id2, outcome: { kind: "delivered", outcome: "held" } }))).toEqual([])
  })

  test("one continue per finished turn: a second look at the same turn sends nothing and still holds the judge back", () => {
    const d = new Driver(world())
    const messages = WORKED()
    expect(acts(d.turn(messages, open))).toHaveLength(1)
    const second = d.turn(messages, open)
    expect(acts(second)).toHaveLength(0)
    expect(second?.turn).toMatchObject({ kind: "stand-down" })
  })

  test("before the judge the path takes every turn that stopped by choice, a done claim included", () => {
    expect(acts(new Driver(world()).turn(WORKED(), open, "stopped"))).toHaveLength(1)
    const claim = turnOf([[tool("bash")], [text("All done.")]])
    expect(acts(new Driver(world()).turn(claim, closed, "stopped"))).toHaveLength(1)
    const party = turnOf([[tool("bash")], [text("The parser is green 🎉")]])
    expect(acts(new Driver(world()).turn(party, closed, "stopped"))).toHaveLength(1)
  })

  const othersFirstCases: Array<[string, TranscriptMessage[]]> = [
    ["a tool call printed as text", turnOf([[text('<function=bash>{"command": "ls"}</function>')]])],
    ["an answer cut off at the output limit", (() => {
      const m = turnOf([[text("Here is the first half of the guide. Step 1: back up the database. Step 2: run")]])
      m[m.length - 1]!.finish = "length"
      return m
    })()],
    ["a call to a tool that failed", turnOf([[{ kind: "tool", callID: "c9", tool: "bassh", status: "error", error: "unavailable tool" }], [text("Trying again.")]])],
    ["a loop of the same call", turnOf([[1, 2, 3, 4, 5, 6, 7, 8].map((i): TranscriptPart => ({ kind: "tool", callID: `c${i}`, tool: "read", status: "completed", input: { path: "a.ts" } })), [text("Reading it again.")]])],
  ]
  test.each(othersFirstCases)("before the judge it leaves %s to the other rules; after them it takes it", (_name, messages) => {
    expect(new Driver(world()).turn(messages, open, "stopped")).toBeUndefined()
    expect(acts(new Driver(world()).turn(messages, open, "unanswered"))).toHaveLength(1)
  })

  test("a command exchange of ours (the 1.x command's reply, as the host adapter marks it) is not the model's turn", () => {
    const d = new Driver(world())
    const command = turnOf([[text("auto-resume: goal set for this session.")]], { own: true, text: "/auto-resume goal make the parser tests pass\n\nauto-resume: goal set" })
    for (const message of command) message.ours = "command"
    expect(d.turn(command)).toBeUndefined()
    // Negative control: the same reply to a plain prompt of ours is a turn.
    expect(acts(new Driver(world()).turn(turnOf([[tool("bash")], [text("auto-resume: goal set for this session.")]], { own: true, text: "continue" })))).toHaveLength(1)
  })
})

describe("every guard wins; a goal never answers for the user", () => {
  const cases: Array<[string, (w: World) => void, EndingReading | undefined]> = [
    ["a question or permission open", (w) => ownAwaiting(w.session).add("que_1"), undefined],
    ["the reply may ask the user", () => undefined, { mayAsk: "the classifier reads a request (p=0.31)" }],
    ["a hand-off", () => undefined, { handOff: { how: "question", detail: "ends with a question mark" } }],
    ["a pause", (w) => (w.held = "paused"), undefined],
    ["ESC", (w) => (w.held = "cancelled by the user (ESC)"), undefined],
    ["a recovery under way", (w) => (w.inFlight = "a recovery is already under way"), undefined],
    ["the lifetime cap spent", (w) => (w.session.lifetimeContinues = w.options.lifetimeMaxContinues), undefined],
  ]
  test.each(cases)("%s: no continue, one 'held' line, the other rules still run", (_name, arrange, ending) => {
    const w = world()
    arrange(w)
    const r = new Driver(w).turn(WORKED(), open, "unanswered", ending)
    expect(acts(r)).toEqual([])
    expect(journal(r)).toHaveLength(1)
    expect(journal(r)[0]).toMatch(/^held: /)
    expect(r?.turn).toBeUndefined()
  })

  test("a stop pattern or an open question tool in the turn holds it too", () => {
    const w = world({ stopPatterns: ["^AWAITING REVIEW$"] })
    expect(acts(new Driver(w).turn(turnOf([[tool("bash")], [text("Done with part one.\nAWAITING REVIEW")]]), open))).toEqual([])
    const asking = turnOf([[{ kind: "tool", callID: "q", tool: "question", status: "running" }]])
    expect(acts(new Driver(world()).turn(asking, open))).toEqual([])
  })

  test("negative control: the same turn with none of them gets its continue", () => {
    expect(acts(new Driver(world()).turn(WORKED(), open))).toHaveLength(1)
  })
})

describe("the user's turn comes first", () => {
  test("right after the user's message the continue waits for the active-user window, then goes out on the path's wake", () => {
    const w = world()
    w.session.lastGenuineUserAt = T0 - 60_000
    const d = new Driver(w)
    const r = d.turn(WORKED(), open)
    expect(acts(r)).toEqual([])
    expect(r?.turn).toMatchObject({ kind: "stand-down" })
    const due = T0 - 60_000 + w.options.activeUserWindowMs
    expect(r?.wakeAt).toBe(due)
    w.now = due
    const woke = d.step({ type: "wake" })
    expect(sentText(woke)).toContain("continue 1 of at most 25")
  })

  test("the user writing again voids it, and so does a new turn; the goal stays", () => {
    const w = world()
    w.session.lastGenuineUserAt = T0 - 60_000
    const d = new Driver(w)
    d.turn(WORKED(), open)
    d.step({ type: "signal", signal: { type: "userMessage", sessionID: "s1", genuine: true } })
    w.now = T0 + w.options.activeUserWindowMs
    expect(acts(d.step({ type: "wake" }))).toEqual([])
    // A new turn: decided for the old turn, nothing goes out for it.
    const d2 = new Driver({ ...world(), session: w.session })
    d2.w.session.lastGenuineUserAt = T0 - 60_000
    d2.w.now = T0
    d2.turn(WORKED(), open)
    d2.w.session.idleEpoch += 2
    d2.w.now = T0 + w.options.activeUserWindowMs
    expect(acts(d2.step({ type: "wake" }))).toEqual([])
    expect(d2.w.goal?.status).toBe("active")
  })

  test("a continue due right after our last prompt was taken waits injectIntervalMs, then goes out (a refused one would be lost)", () => {
    const w = world()
    w.session.intervention.prompt.acceptedAt = T0 - 1000
    const d = new Driver(w)
    const r = d.turn(WORKED(), open)
    expect(acts(r)).toEqual([])
    expect(r?.wakeAt).toBe(T0 - 1000 + w.options.injectIntervalMs)
    w.now = T0 - 1000 + w.options.injectIntervalMs
    expect(acts(d.step({ type: "wake" }))).toHaveLength(1)
    // Negative control: a prompt taken long ago holds nothing.
    const earlier = world()
    earlier.session.intervention.prompt.acceptedAt = T0 - 60_000
    expect(acts(new Driver(earlier).turn(WORKED(), open))).toHaveLength(1)
  })

  test("a guard up when the window ends holds it, with one line", () => {
    const w = world()
    w.session.lastGenuineUserAt = T0 - 60_000
    const d = new Driver(w)
    d.turn(WORKED(), open)
    w.now = T0 + w.options.activeUserWindowMs
    w.held = "paused"
    const r = d.step({ type: "wake" })
    expect(acts(r)).toEqual([])
    expect(journal(r)).toEqual(["held: paused"])
  })
})

describe("bounded", () => {
  test(`${IDLE_TURNS_TO_STAND_DOWN} turns in a row without progress stand the goal down instead of spending the budget`, () => {
    const d = new Driver(world())
    const idle = () => turnOf([[text("I am looking into it.")]], { own: true, text: "auto-resume goal (continue)" })
    const first = d.turn(idle(), open)
    expect(acts(first)).toHaveLength(1)
    d.delivered(first)
    const second = d.turn(idle(), open)
    expect(acts(second)).toHaveLength(1) // the first idle turn: still a continue
    d.delivered(second)
    const third = d.turn(idle(), open)
    expect(acts(third)).toEqual([])
    expect(goalChanges(third)).toEqual([{ kind: "ended", goalID: "g1", status: "stood down", why: expect.stringMatching(/^no progress in 2 turns in a row/) }])
    expect(journal(third)).toEqual([expect.stringMatching(/^stood down: no progress in 2 turns in a row/)])
    // Stood down, the judge goes on as without a goal.
    expect(third?.turn).toBeUndefined()
  })

  test("negative control: a turn that calls a tool, changes the todos or says something new in between resets the count", () => {
    const d = new Driver(world())
    const idle = () => turnOf([[text("I am looking into it.")]], { own: true, text: "continue" })
    d.delivered(d.turn(idle(), open))
    d.delivered(d.turn(idle(), open))
    d.delivered(d.turn(turnOf([[tool("bash")], [text("I am looking into it.")]]), open))
    expect(acts(d.turn(idle(), open))).toHaveLength(1)
    d.delivered(d.last)
    d.delivered(d.turn(idle(), closed))
    expect(acts(d.turn(idle(), closed))).toHaveLength(1)
  })

  test("goalMaxContinues spent: stood down at the next turn, nothing sent", () => {
    const w = world({ goalMaxContinues: 3 })
    w.goal = { ...w.goal!, continues: 3 }
    const r = new Driver(w).turn(WORKED(), open)
    expect(acts(r)).toEqual([])
    expect(goalChanges(r)).toEqual([{ kind: "ended", goalID: "g1", status: "stood down", why: "goalMaxContinues spent (3/3)" }])
    // Negative control: one left, and it goes out.
    w.goal = { ...w.goal!, continues: 2 }
    expect(sentText(new Driver(w).turn(WORKED(), open))).toContain("continue 3 of at most 3")
  })

  test("goalMaxMs spent: stood down on the path's wake at the deadline, even with the session idle and no turn", () => {
    const w = world({ goalMaxMs: 2 * HOUR })
    const d = new Driver(w)
    const armed = d.step({ type: "signal", signal: { type: "idle", sessionID: "s1" } })
    expect(armed?.wakeAt).toBe(T0 + HOUR)
    w.now = T0 + HOUR - 1
    expect(goalChanges(d.step({ type: "wake" }))).toEqual([])
    w.now = T0 + HOUR
    w.held = "paused"
    const r = d.step({ type: "wake" })
    expect(goalChanges(r)).toEqual([{ kind: "ended", goalID: "g1", status: "stood down", why: "goalMaxMs spent (2h 0m 0s)" }])
    expect(r?.wakeAt).toBeUndefined()
  })

  test("a new goal starts afresh: its own count of idle turns", () => {
    const w = world()
    const d = new Driver(w)
    const idle = () => turnOf([[text("I am looking into it.")]], { own: true, text: "continue" })
    d.delivered(d.turn(idle(), open))
    d.delivered(d.turn(idle(), open))
    w.goal = { id: "g2", text: "ship the release", startedAt: w.now, continues: 0, status: "active" }
    expect(acts(d.turn(idle(), open))).toHaveLength(1)
  })
})

describe("the hot path", () => {
  test("liveness (every streamed event of every session) is answered without reading the goal", () => {
    let reads = 0
    const w = world()
    const ctx = { ...ctxOf(w), goal: () => (reads++, w.goal) }
    expect(goalPath.step(goalPath.initial(), { type: "liveness", liveness: "live" }, ctx)).toBeUndefined()
    expect(reads).toBe(0)
    // Negative control: a signal it listens to does read it.
    goalPath.step(goalPath.initial(), { type: "signal", signal: { type: "idle", sessionID: "s1" } }, ctx)
    expect(reads).toBe(1)
  })
})

describe("what a turn did (progress.ts)", () => {
  test("tool calls are work, but task_complete and the todo tools are not", () => {
    expect(readGoalTurn(turnOf([[tool("bash"), tool("edit", "c2")]]))?.tools).toBe(2)
    expect(readGoalTurn(turnOf([[tool("task_complete"), tool("todowrite", "c2"), tool("todoread", "c3")]]))?.tools).toBe(0)
  })

  test("a restatement of the goal, the last turn or the continue is no news; three new words are", () => {
    const goalWords = GOAL_TEXT
    const previous = weighTurn(readGoalTurn(turnOf([[text("Working on the parser tests now.")]]))!, "none", undefined, goalWords).print
    const same = weighTurn(readGoalTurn(turnOf([[text("Still working on the parser tests.")]]))!, "none", previous, goalWords, wordsOf("still keep working")).progress
    expect(same.made).toBe(false)
    const news = weighTurn(readGoalTurn(turnOf([[text("The lexer drops trailing commas, which broke four cases.")]]))!, "none", previous, goalWords).progress
    expect(news.made).toBe(true)
  })

  test("a changed todo list is progress; the same list is not", () => {
    const turn = readGoalTurn(turnOf([[text("Okay.")]]))!
    const before = weighTurn(turn, open, undefined, GOAL_TEXT).print
    expect(weighTurn(turn, closed, before, GOAL_TEXT).progress.made).toBe(true)
    expect(weighTurn(turn, open, before, GOAL_TEXT).progress.made).toBe(false)
  })

  test("a turn that ended in an error, or whose newest message is no assistant's, is not read", () => {
    const errored = turnOf([[text("partial")]])
    errored[errored.length - 1]!.errorName = "APIError"
    expect(readGoalTurn(errored)).toBeUndefined()
    expect(readGoalTurn(turnOf([]))).toBeUndefined()
  })
})

describe("the continue's text (prompt.ts)", () => {
  test("quotes the end of a long turn, not all of it", () => {
    const long = `${"word ".repeat(200)}and the last sentence says what was done.`
    const quoted = lastWords(long)
    expect(quoted.length).toBeLessThanOrEqual(305)
    expect(quoted.endsWith("and the last sentence says what was done.")).toBe(true)
  })

  test("says what it knows of the todo list", () => {
    const base = { goal: GOAL_TEXT, number: 2, max: 25, said: "Did a thing." }
    expect(buildGoalContinue({ ...base, todos: "none" })).toContain("You keep no todo list")
    expect(buildGoalContinue({ ...base, todos: closed })).toContain("Every item of your todo list is closed.")
    expect(buildGoalContinue({ ...base, todos: "unreadable" })).not.toMatch(/todo list/)
    expect(buildGoalContinue({ ...base, said: "", todos: "none" })).toContain("Your last turn ended without any text.")
  })
})
