/**
 * Goal mode: while the session has a goal (`/auto-resume goal <text>`), each finished turn that
 * did not meet it gets one continue restating it (prompt.ts), until the model meets it by
 * calling task_complete with evidence (paths/task-complete/decide.ts), or the goal is stood down: its
 * continues (`goalMaxContinues`) or its time (`goalMaxMs`) are spent, or two turns in a row made
 * no progress (progress.ts). One pure step; the goal itself is kept by the goal store (read
 * through StepContext.goal, changed through `goal` effects).
 *
 * The path looks at a finished turn at two places among the finished-turn rules (paths/judge
 * is at JUDGE_PRIORITY): before the judge, for every turn the judge would read as the model stopping
 * by choice (a "done" too: the judge would take it at its word, while the goal is met only by
 * task_complete with evidence); after every other rule, for a turn nobody else answered. A
 * malfunction (a printed tool call, a dead stream, a cut-off answer), a loop or a failed call is
 * the other rules' to answer first (others-first.ts).
 *
 * Every guard wins: a turn that hands over to the user never reaches the path (the judge skips
 * every rule then); a reply that may ask the user, an open question, a pause, ESC, a recovery
 * under way or the spent lifetime cap hold the continue; after the user's own message the
 * continue waits out `activeUserWindowMs` (held on the path's own wake, voided by a new turn or
 * message). A goal continue never goes out twice for one finished turn.
 */
import { handOffOf } from "../../detect/hand-off.ts"
import { formatDuration } from "../../prompts/format.ts"
import { quotedGoal } from "../../prompts/nudges.ts"
import type { Goal } from "../../core/goals.ts"
import type { JournalTag } from "../../core/journal.ts"
import type { EffectOutcome, PathEffect, RecoveryPath, StepContext, StepResult, TurnFacts } from "../../runtime/path.ts"
import { JUDGE_PRIORITY } from "../judge/path.ts"
import { othersFirst } from "./others-first.ts"
import { buildGoalContinue } from "./prompt.ts"
import { readGoalTurn, weighTurn, wordsOf, type TurnPrint } from "./progress.ts"

/** Turns in a row without progress that stand the goal down. */
export const IDLE_TURNS_TO_STAND_DOWN = 2

/** Just before the judge: a turn that stopped by choice is the goal's to answer. */
const BEFORE_JUDGE = { name: "stopped", pass: "second", priority: JUDGE_PRIORITY - 5 } as const
/** After every other rule of the pass (loops, unknown tools): what nobody answered. */
const AFTER_ALL = { name: "unanswered", pass: "second", priority: JUDGE_PRIORITY + 30 } as const

/** A continue decided and held by the active-user window, sent at `at` if nothing came in between. */
type Pending = { at: number; epoch: number; userAt: number; text: string; number: number }

export type GoalState = {
  /** The goal this state is about: another id is a new goal, weighed afresh. */
  goalID?: string
  /** The last turn weighed, and the words of the continue that followed it. */
  last?: TurnPrint
  asked: readonly string[]
  /** Turns in a row that made no progress. */
  idleTurns: number
  /** The idle epoch a continue was decided in: one per finished turn. */
  sentEpoch?: number
  pending?: Pending
  /** The goal whose time runs out at `deadlineAt` (the path's wake, which also keeps the session tracked). */
  deadlineAt?: number
  /** The continue out, to count once it reached the session. */
  acting?: { id: number; goalID: string; number: number }
  seq: number
}

const INITIAL: GoalState = { asked: [], idleTurns: 0, seq: 0 }

export const goalPath: RecoveryPath<GoalState> = {
  name: "goal",
  signals: ["userMessage", "idle"],
  turnSteps: [BEFORE_JUDGE, AFTER_ALL],
  initial: () => INITIAL,
  step(state, input, ctx) {
    // Liveness comes with every streamed event of every session: answered before anything is read.
    if (input.type === "liveness" || input.type === "adopted" || input.type === "holdCancelled") return undefined
    const goal = activeGoal(ctx)
    const s = goal && state.goalID !== goal.id ? { ...INITIAL, goalID: goal.id, seq: state.seq } : state
    switch (input.type) {
      case "turn":
        return goal ? onTurn(s, goal, input.place, input.facts, ctx) : undefined
      case "signal":
        if (input.signal.type === "userMessage" && input.signal.genuine) {
          // The user's turn comes first: a held continue is void, and their word is news.
          return result({ ...s, pending: undefined, idleTurns: 0 }, [], goal, ctx)
        }
        return goal && (s !== state || s.deadlineAt === undefined) ? result(s, [], goal, ctx) : undefined
      case "wake":
        return goal ? onWake(s, goal, ctx) : result({ ...s, pending: undefined, deadlineAt: undefined }, [], undefined, ctx)
      case "effectSettled":
        return onSettled(s, input.id, input.outcome)
      case "standDown":
        return s.pending ? result({ ...s, pending: undefined }, [], goal, ctx) : undefined
      default:
        return undefined
    }
  },
}

function activeGoal(ctx: StepContext): Goal | undefined {
  const goal = ctx.goal()
  return goal?.status === "active" ? goal : undefined
}

/** The state with the wake it wants: the goal's deadline (while it is active), or a held continue, whichever is first. */
function result(state: GoalState, effects: PathEffect[], goal: Goal | undefined, ctx: StepContext, turn?: StepResult<GoalState>["turn"]): StepResult<GoalState> {
  const deadlineAt = goal ? goal.startedAt + ctx.options().goalMaxMs : undefined
  const next = state.deadlineAt === deadlineAt ? state : { ...state, deadlineAt }
  const wakes = [deadlineAt, next.pending?.at].filter((at): at is number => at !== undefined)
  return { state: next, effects, wakeAt: wakes.length > 0 ? Math.min(...wakes) : undefined, ...(turn ? { turn } : {}) }
}

const tagOf = (goal: Goal, evidence?: string): JournalTag => ({ trigger: "goal", evidence: evidence ?? quotedGoal(goal.text, 80) })

/** The goal is over: recorded as stood down, one line in the history, and the judge goes on as if there were none. */
function standDown(state: GoalState, goal: Goal, why: string, ctx: StepContext): StepResult<GoalState> {
  const effects: PathEffect[] = [
    { kind: "goal", change: { kind: "ended", goalID: goal.id, status: "stood down", why } },
    { kind: "journal-refused", tag: tagOf(goal, `${quotedGoal(goal.text, 80)}, ${goal.continues} continue(s)`), action: "stand down", why: "stood down", reason: why },
    { kind: "log", level: "info", text: `session ${ctx.session.id}: goal stood down: ${why}` },
  ]
  return result({ ...state, pending: undefined }, effects, undefined, ctx)
}

/** Why the goal is over before this turn is answered, if it is. */
function spent(goal: Goal, ctx: StepContext, now: number): string | undefined {
  const options = ctx.options()
  if (now >= goal.startedAt + options.goalMaxMs) return `goalMaxMs spent (${formatDuration(options.goalMaxMs)})`
  if (goal.continues >= options.goalMaxContinues) return `goalMaxContinues spent (${goal.continues}/${options.goalMaxContinues})`
  return undefined
}

function onTurn(state: GoalState, goal: Goal, place: string, facts: TurnFacts, ctx: StepContext): StepResult<GoalState> | undefined {
  const turn = readGoalTurn(facts.messages)
  if (!turn) return undefined
  if (place === BEFORE_JUDGE.name && othersFirst(facts)) return undefined
  const over = spent(goal, ctx, facts.now)
  if (over) return standDown(state, goal, over, ctx)
  let s = state
  // Each turn is weighed once: a second look at it (a doubled idle) finds it weighed.
  if (s.last?.id !== turn.id) {
    const { progress, print } = weighTurn(turn, facts.todos, s.last, goal.text, s.asked)
    s = { ...s, last: print, idleTurns: progress.made ? 0 : s.idleTurns + 1 }
    if (s.idleTurns >= IDLE_TURNS_TO_STAND_DOWN) return standDown(s, goal, `no progress in ${s.idleTurns} turns in a row (${progress.why})`, ctx)
  }
  const session = ctx.session
  if (s.sentEpoch === session.idleEpoch) return result(s, [], goal, ctx, { kind: "stand-down", reason: "goal: this turn already got its continue" })
  const held = guard(facts, ctx)
  if (held) return result(s, [heldLine(goal, held)], goal, ctx)
  const number = goal.continues + 1
  const max = ctx.options().goalMaxContinues
  const text = buildGoalContinue({ goal: goal.text, number, max, said: turn.said, todos: facts.todos })
  s = { ...s, sentEpoch: session.idleEpoch, asked: wordsOf(text) }
  const wait = dueAt(facts, ctx)
  if (wait) {
    // The user was here a moment ago, or our last prompt was: the continue waits on the path's wake.
    const pending: Pending = { at: wait.at, epoch: session.idleEpoch, userAt: session.lastGenuineUserAt, text, number }
    return result({ ...s, pending }, [], goal, ctx, { kind: "stand-down", reason: `goal: continue ${number} waits ${formatDuration(wait.at - facts.now)} for ${wait.why}` })
  }
  return send(s, goal, text, number, ctx, { kind: "stand-down", reason: `goal: continue ${number}/${max}` })
}

/**
 * When a continue due now may go out, if not now: after the active-user window (the user's turn
 * comes first), and `injectIntervalMs` after our last prompt was taken (the host would refuse it
 * sooner, and a refused continue is lost for its turn).
 */
function dueAt(facts: TurnFacts, ctx: StepContext): { at: number; why: string } | undefined {
  const session = ctx.session
  const windowEnd = session.lastGenuineUserAt > 0 ? session.lastGenuineUserAt + facts.options.activeUserWindowMs : 0
  const accepted = session.intervention.prompt.acceptedAt
  const spaced = accepted === undefined ? 0 : accepted + facts.options.injectIntervalMs
  if (facts.now >= Math.max(windowEnd, spaced)) return undefined
  return windowEnd >= spaced ? { at: windowEnd, why: "the active-user window" } : { at: spaced, why: "injectIntervalMs after our last prompt" }
}

/** Why the continue must not go out now: the goal never answers for the user, and every guard wins. */
function guard(facts: TurnFacts, ctx: StepContext): string | undefined {
  const session = ctx.session
  if (session.awaiting.size > 0) return "waiting for the user (question or permission open)"
  const handOff = handOffOf(facts.messages[facts.messages.length - 1], facts.options.stopPatterns)
  if (handOff) return handOff.kind === "open-question" ? `waiting on the user: ${handOff.tool} is pending` : `handed to the user: stop pattern ${handOff.pattern}`
  if (facts.ending?.handOff) return `hand-off: the reply waits on the user (${facts.ending.handOff.detail})`
  if (facts.ending?.mayAsk) return `the reply may ask the user (${facts.ending.mayAsk})`
  return liveGuard(ctx)
}

/** The guards that can change while a continue waits: holds, a recovery or prompt of ours in flight, the lifetime cap. */
function liveGuard(ctx: StepContext): string | undefined {
  // The one answer (runtime/may-act.ts): the user's guards, the paths' holds, a recovery or prompt of ours under way.
  const held = ctx.mayAct("prompt")
  if (held) return held.reason
  const cap = ctx.options().lifetimeMaxContinues
  if (ctx.session.lifetimeContinues >= cap) return `lifetime cap reached (${ctx.session.lifetimeContinues}/${cap})`
  return undefined
}

function heldLine(goal: Goal, why: string): PathEffect {
  return { kind: "journal-refused", tag: tagOf(goal, `continue ${goal.continues + 1}: ${quotedGoal(goal.text, 80)}`), action: "continue", why: "held", reason: why }
}

function send(state: GoalState, goal: Goal, text: string, number: number, ctx: StepContext, turn?: StepResult<GoalState>["turn"]): StepResult<GoalState> {
  const id = state.seq
  const max = ctx.options().goalMaxContinues
  const effects: PathEffect[] = [
    {
      kind: "act",
      id,
      effect: { kind: "nudge", text, sendKind: "continue", feature: "goal", reason: `goal continue ${number}/${max}` },
      via: {
        label: `send goal continue ${number}`,
        announce: `session ${ctx.session.id}: goal: continue ${number}/${max} toward ${quotedGoal(goal.text, 80)}`,
        journal: { ...tagOf(goal, `continue ${number}/${max}: ${quotedGoal(goal.text, 80)}`), action: "continue" },
      },
    },
  ]
  return result({ ...state, seq: id + 1, pending: undefined, acting: { id, goalID: goal.id, number } }, effects, goal, ctx, turn)
}

function onWake(state: GoalState, goal: Goal, ctx: StepContext): StepResult<GoalState> {
  // The deadline: the goal's time is over, whatever the session is doing.
  const over = spent(goal, ctx, ctx.now)
  if (over) return standDown(state, goal, over, ctx)
  const pending = state.pending
  if (!pending || ctx.now < pending.at) return result(state, [], goal, ctx)
  const session = ctx.session
  // Only for the turn it was decided for, and only if the user has not written since.
  if (session.busy || session.idleEpoch !== pending.epoch || session.lastGenuineUserAt !== pending.userAt) return result({ ...state, pending: undefined }, [], goal, ctx)
  const held = liveGuard(ctx)
  if (held) return result({ ...state, pending: undefined }, [heldLine(goal, held)], goal, ctx)
  return send(state, goal, pending.text, pending.number, ctx)
}

/** Only a continue that reached the session counts against the goal's budget. */
function onSettled(state: GoalState, id: number, outcome: EffectOutcome): StepResult<GoalState> | undefined {
  const acting = state.acting
  if (!acting || acting.id !== id || outcome.kind !== "delivered") return undefined
  const effects: PathEffect[] = []
  if (outcome.outcome === "ok" || outcome.outcome === "timeout") effects.push({ kind: "goal", change: { kind: "continued", goalID: acting.goalID, continues: acting.number } })
  return { state: { ...state, acting: undefined }, effects, wakeAt: nextWake(state) }
}

function nextWake(state: GoalState): number | undefined {
  const wakes = [state.deadlineAt, state.pending?.at].filter((at): at is number => at !== undefined)
  return wakes.length > 0 ? Math.min(...wakes) : undefined
}
