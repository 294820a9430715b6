/**
 * Tools that keep failing: the same tool failing three times in a row (an edit whose old text
 * is not in the file, a read of a path that does not exist, a command that exits non-zero),
 * with arguments that differ, so the loop detector (paths/loops) does not see a loop. The model
 * reads each error as it comes; what it misses is that it is retrying variations of a step that
 * cannot work. One quiet correction names the tool, the error and what to do instead.
 *
 * Counted live, from each call's end as the host reports it (Signal `toolEnd`): a failure adds
 * to its tool's streak, a success of that tool ends it. Another tool's calls in between do not
 * (an edit that fails, a re-read, and the edit failing again is still the edit failing). A call
 * the user refused (a denied permission, on either host) is their hand, not a failure: it ends
 * the streak and is never answered. A call of a tool that does not exist is the unknown-tools
 * path's.
 *
 * Not held by the active-user window: like a loop or a wrong tool name, a step that cannot work
 * is a malfunction, not a model that stopped by choice.
 *
 * When: at the turn's end, as a finished-turn rule, never in the middle of a run. A demanding
 * user wants the model told before it gives up or claims the work is done, and never wants
 * a running tool or the model's next step cut into: on 1.x a prompt sent into a live run waits
 * until the run ends anyway (HOST-NOTES), on 2.x it joins the run's inbox, and an abort would
 * throw away the work of the step under way. At the turn's end the judge's guards have their say
 * (the user wrote, a question or permission is open, the reply hands over to the user, ESC, a
 * pause) and the correction goes out once (one per turn, the once-per-turn rule of the effect
 * runner); a streak answered starts over, so a tool is named at most once per turn.
 *
 * The rule sits before the judge: a turn that ends "I could not find the file" after three
 * failed reads would otherwise read as a stop or a done claim, latch, and leave the session
 * as it is; a malfunction the judge recovers (an answer cut off, a silent dead stream) is left
 * to it.
 */
import { JUDGE_PRIORITY, judgeRecoversFirst } from "../judge/path.ts"
import { EXIT_CODE_ERROR } from "../../core/port.ts"
import type { PathTurnRule, RecoveryPath } from "../../runtime/path.ts"
import { buildFailingToolsPrompt, type FailingTool } from "./prompt.ts"

/** Failures in a row that make a tool "keep failing". */
export const FAILURES_IN_A_ROW = 3
/** Before the goal's look (JUDGE_PRIORITY - 5) and the judge: see the header. */
const FAILING_TOOLS_PRIORITY = JUDGE_PRIORITY - 8
/** The feature whose budget (finishedTurnMaxNudges) the correction draws on. */
const FEATURE = "failing-tool"
/** Tools whose streaks are kept per session; calls already counted, remembered per session. */
const MAX_TOOLS = 16
const MAX_COUNTED_CALLS = 64

type Streak = { failures: number; error: string }

export type FailingToolsState = {
  /** Per tool name, its failures in a row and the newest error; a tool with none has no entry. */
  streaks: Readonly<Record<string, Streak>>
  /** Call ids whose failure was counted: a host reports a call's end again (1.x part updates). */
  counted: readonly string[]
}

const FRESH: FailingToolsState = { streaks: {}, counted: [] }

const failingToolRule: PathTurnRule<FailingToolsState> = {
  name: "failing-tool",
  pass: "second",
  priority: FAILING_TOOLS_PRIORITY,
  decide(facts, { state }) {
    const failing = Object.entries(state.streaks)
      .filter(([, streak]) => streak.failures >= FAILURES_IN_A_ROW)
      .map(([tool, streak]): FailingTool => ({ tool, failures: streak.failures, error: streak.error }))
    if (failing.length === 0) return undefined
    // The judge's guards: only a turn the model ended (not one the user or our prompt follows,
    // not one that ended in an error such as ESC), and never while the user is asked something.
    const newest = facts.messages[facts.messages.length - 1]
    if (newest?.role !== "assistant" || newest.errorName || facts.state.awaiting.size > 0) return undefined
    // A malfunction of the turn's last answer is the judge's to recover first.
    if (judgeRecoversFirst(facts)) return undefined
    const used = facts.state.featureCounts.get(FEATURE) ?? 0
    if (used >= facts.options.finishedTurnMaxNudges) return undefined
    // Answered from the moment it is decided (a held correction included): a streak starts over.
    const streaks = { ...state.streaks }
    for (const f of failing) delete streaks[f.tool]
    return {
      state: { ...state, streaks },
      effect: {
        kind: "nudge",
        text: buildFailingToolsPrompt(failing),
        sendKind: "correction",
        feature: FEATURE,
        reason: failing.map((f) => `${f.tool} failed ${f.failures}x in a row (${f.error.slice(0, 80)})`).join("; "),
      },
    }
  },
}

export const failingToolsPath: RecoveryPath<FailingToolsState> = {
  name: "failing-tools",
  signals: ["toolEnd", "userMessage"],
  turnRules: [failingToolRule],
  initial: () => FRESH,
  step(state, input) {
    if (input.type !== "signal") return undefined
    const signal = input.signal
    if (signal.type === "userMessage") {
      // The user's word is a new start: what failed before it is not "in a row" with what follows.
      return signal.genuine && (Object.keys(state.streaks).length > 0 || state.counted.length > 0) ? { state: FRESH, effects: [] } : undefined
    }
    if (signal.type !== "toolEnd" || signal.tool === undefined || signal.outcome === undefined) return undefined
    const { tool, outcome } = signal
    switch (outcome) {
      // A run stopped under the call says nothing of the tool; a missing tool is another path's.
      case "aborted":
      case "unavailable":
        return undefined
      case "ok":
      case "denied":
        return Object.hasOwn(state.streaks, tool) ? { state: { ...state, streaks: without(state.streaks, tool) }, effects: [] } : undefined
      case "failed": {
        if (state.counted.includes(signal.callID)) return undefined
        const counted = [...state.counted, signal.callID].slice(-MAX_COUNTED_CALLS)
        const error = signal.error ?? "failed"
        const before = Object.hasOwn(state.streaks, tool) ? state.streaks[tool] : undefined
        const failures = (before && !otherWay(before.error, error) ? before.failures : 0) + 1
        const streaks = bounded({ ...without(state.streaks, tool), [tool]: { failures, error } })
        return { state: { streaks, counted }, effects: [] }
      }
    }
  },
}

/**
 * A command that exits non-zero keeps failing only when it fails the same way (the same code
 * and last line): a build or test run whose failure changes between runs is work under way, not
 * a step that cannot work. Any other failure of the tool counts (each missing path reads
 * differently, and each is the same mistake).
 */
function otherWay(before: string, now: string): boolean {
  return (before.startsWith(EXIT_CODE_ERROR) || now.startsWith(EXIT_CODE_ERROR)) && before !== now
}

function without(streaks: Readonly<Record<string, Streak>>, tool: string): Record<string, Streak> {
  const rest = { ...streaks }
  delete rest[tool]
  return rest
}

/** At most MAX_TOOLS streaks: the tool that failed longest ago goes first (insertion order: the newest failure is last). */
function bounded(streaks: Record<string, Streak>): Record<string, Streak> {
  const tools = Object.keys(streaks)
  for (let i = 0; i < tools.length - MAX_TOOLS; i++) delete streaks[tools[i]!]
  return streaks
}
