/**
 * The finished-turn judgement (judge.ts) as the idle pipeline's first two rules.
 * This file only translates: engine state -> JudgeInput, Verdict -> IdleAction.
 */
import type { IdleAction, IdleFacts, IdleRule, Pass } from "../idle.ts"
import { judgeFirstPass, judgeSecondPass, type JudgeInput, type NudgeBudgets, type Verdict } from "../judge.ts"

/** Tool names the host registry reported, for recognising bare tool tags printed as text. */
export type KnownTools = () => readonly string[] | undefined

function judgeInput(facts: IdleFacts, knownTools: KnownTools): JudgeInput {
  const state = facts.state
  return {
    messages: facts.messages,
    todos: facts.todos,
    options: facts.options,
    now: facts.now,
    sessionStartedAt: state.firstSeenAt,
    lastGenuineUserAt: state.lastGenuineUserAt || undefined,
    awaitingUser: state.awaiting.size > 0,
    toolsInFlightAtIdle: state.toolsInFlightAtIdle,
    budgets: Object.fromEntries(state.featureCounts) as NudgeBudgets,
    knownTools: knownTools(),
  }
}

export function verdictToAction(verdict: Verdict): IdleAction | undefined {
  switch (verdict.kind) {
    case "send":
      return { kind: "send", text: verdict.prompt, sendKind: verdict.sendKind, feature: verdict.feature, reason: verdict.reason }
    case "latchComplete":
      return { kind: "latchComplete", reason: verdict.reason }
    case "none":
      if (verdict.charge) return { kind: "charge", feature: verdict.charge, reason: verdict.reason }
      if (verdict.heldUntil !== undefined) return { kind: "judgeAgainAt", at: verdict.heldUntil, reason: verdict.reason }
      // A stand-down ends the judgement of this turn; a plain "nothing yet" lets the next pass run.
      return "standDown" in verdict && verdict.standDown ? { kind: "stop", reason: verdict.reason } : undefined
  }
}

export function judgeRules(knownTools: KnownTools = () => undefined): IdleRule[] {
  const rule = (pass: Pass, judge: (input: JudgeInput) => Verdict): IdleRule => ({
    name: `judge-${pass}`,
    pass,
    decide: (facts) => verdictToAction(judge(judgeInput(facts, knownTools))),
  })
  return [rule("first", judgeFirstPass), rule("second", judgeSecondPass)]
}
