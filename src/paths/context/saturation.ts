/**
 * Whether (and how) to reclaim a nearly full context window at the end of a turn: pure, from
 * the ratio core/saturation.ts works out and what the runtime looked up for the turn.
 */
import { none, type EffectOf } from "../../core/effect.ts"

export type SaturationInput = {
  ratio: number | undefined
  threshold: number
  isSubagent: boolean
  magicContextLoaded: boolean
  subagentNativeCompactionEnabled: boolean
  alreadyIntervenedThisBusyCycle: boolean
  cancelled: boolean
  completed: boolean
  limitsKnown: boolean
}

const CTX_WRAPUP_COMMAND = "ctx-wrapup"
const FEATURE = "context-saturation"

/**
 * On idle. A `command`: magic-context's `ctx-wrapup` through the command API (never as prompt
 * text). `compact`: the host's native compaction (1.x summarize, 2.x compact): on a subagent
 * when subagentNativeCompactionEnabled, on a parent without magic-context always (the path's
 * episode, episode.ts, then sends one continue once it completed).
 */
export function decideSaturation(input: SaturationInput): EffectOf<"command" | "compact" | "none"> {
  if (!input.limitsKnown) return none("model limits unknown")
  if (input.ratio === undefined || !Number.isFinite(input.ratio)) return none("no usage measured")
  if (input.cancelled) return none("cancelled by the user")
  if (input.completed) return none("task completed")
  if (input.alreadyIntervenedThisBusyCycle) return none("already intervened this busy cycle")
  const pct = `${Math.round(input.ratio * 100)}%`
  if (input.ratio < input.threshold) return none(`context ${pct} is under the threshold`)
  if (input.isSubagent) {
    return input.subagentNativeCompactionEnabled
      ? { kind: "compact", feature: FEATURE, reason: `subagent context at ${pct}: native compaction` }
      : none(`subagent context at ${pct}, but subagentNativeCompactionEnabled is off`)
  }
  return input.magicContextLoaded
    ? { kind: "command", name: CTX_WRAPUP_COMMAND, args: "", feature: FEATURE, reason: `context at ${pct}: magic-context wrap-up` }
    : { kind: "compact", feature: FEATURE, reason: `context at ${pct} and no magic-context: native compaction, then one continue` }
}

