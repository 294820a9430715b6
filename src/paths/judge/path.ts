/**
 * The judge of a finished turn: a turn that ended is not always finished. Its decisions are
 * judge.ts (a hand-off to the user, a silent dead stream, an answer cut off at the output limit,
 * a tool call printed as text or left in the reasoning, a stop, a done claim or a "ready"
 * without going on, open todos, a bare "Done."), its texts prompts.ts.
 *
 * The path is two finished-turn rules, one per pass, at JUDGE_PRIORITY: the other paths place
 * their rules and looks around it. It weighs a hand-off itself (a malfunction is recovered
 * before the closing text is read, and the reply that asks the user is answered by nobody), and
 * reads the host's tool names only when they are at hand, never waiting on the host for them.
 * It keeps nothing per session: its budgets are the session's feature counts, which the
 * runtime charges as it carries out what the judge answers.
 */
import { cutOffAnswer } from "../../detect/cut-off.ts"
import { silentDeadStream } from "../../detect/dead-stream.ts"
import type { PathTurnRule, RecoveryPath, TurnFacts } from "../../runtime/path.ts"
import { judgeFirstPass, judgeSecondPass, type Judgement, type JudgeInput, type NudgeBudgets } from "./judge.ts"

/** The judge's place among the finished-turn rules (ascending): the other paths order theirs around it. */
export const JUDGE_PRIORITY = 50

/**
 * A malfunction of the turn's last answer that the judge recovers, whatever else the turn shows:
 * an answer cut off at the output limit, or a silent dead stream. A path whose rule comes before
 * the judge's leaves such a turn to it. Undefined when the answer ended as it should.
 */
export function judgeRecoversFirst(facts: TurnFacts): string | undefined {
  const newest = facts.messages[facts.messages.length - 1]
  const inFlight = facts.state.toolsInFlightAtIdle
  if (inFlight === 0 && cutOffAnswer(newest)) return "an answer cut off at the output limit"
  if (silentDeadStream({ message: newest, minTokens: facts.options.silentDeadStreamMinTokens, toolsInFlightAtIdle: inFlight })) return "a silent dead stream"
  return undefined
}

/** What the judge reads of the turn and the session. */
function judgeInput(facts: TurnFacts, knownTools: readonly string[] | undefined): JudgeInput {
  const session = facts.state
  return {
    messages: facts.messages,
    todos: facts.todos,
    options: facts.options,
    now: facts.now,
    sessionStartedAt: session.firstSeenAt,
    lastGenuineUserAt: session.lastGenuineUserAt || undefined,
    awaitingUser: session.awaiting.size > 0,
    toolsInFlightAtIdle: session.toolsInFlightAtIdle,
    budgets: Object.fromEntries(session.featureCounts) as NudgeBudgets,
    knownTools,
    ending: facts.ending,
  }
}

function judgeRule(pass: TurnFacts["pass"], judge: (input: JudgeInput) => Judgement): PathTurnRule<undefined> {
  return {
    name: `judge-${pass}`,
    pass,
    priority: JUDGE_PRIORITY,
    weighsHandOff: true,
    // Bare tool tags printed as text are recognised by the host's names when they are known.
    readsTools: "cached",
    decide: (facts, { tools }) => ({ effect: judge(judgeInput(facts, tools)) }),
  }
}

export const judgePath: RecoveryPath<undefined> = {
  name: "judge",
  turnRules: [judgeRule("first", judgeFirstPass), judgeRule("second", judgeSecondPass)],
  initial: () => undefined,
  step: () => undefined,
}
