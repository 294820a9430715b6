/** The idle rules in priority order: the first rule that answers wins the pass. */
import type { IdleRule } from "../idle.ts"
import { JUDGE_PRIORITY, orderRules, type PrioritizedRule } from "../module.ts"
import { judgeRules, type KnownTools } from "./judge-rules.ts"

export function defaultIdleRules(knownTools: KnownTools, moduleRules: readonly PrioritizedRule[] = []): IdleRule[] {
  const judge = judgeRules(knownTools).map((rule) => ({ ...rule, priority: JUDGE_PRIORITY }))
  return orderRules([...moduleRules, ...judge])
}
