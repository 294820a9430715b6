/**
 * Tools that do not exist: a wrong tool name called twice gets one prompt at a finished turn,
 * naming the closest real tool and the available ones (detect/unknown-tool.ts). With no tool
 * list to compare against, nothing is suggested.
 *
 * The path keeps one thing per session: the newest message a suggestion already covered, so the
 * same wrong calls are not answered at every later turn. A genuine user message starts afresh.
 */
import { detectUnknownTool } from "../../detect/unknown-tool.ts"
import { JUDGE_PRIORITY } from "../judge/path.ts"
import type { PathTurnRule, RecoveryPath } from "../../runtime/path.ts"
import { buildUnknownToolPrompt } from "./prompt.ts"

/** Right after the tool-loop rule (paths/loops, JUDGE_PRIORITY + 10): a loop is answered before a wrong tool name. */
const UNKNOWN_TOOL_PRIORITY = JUDGE_PRIORITY + 11

export type UnknownToolsState = {
  /** The newest message already covered by a suggestion; undefined: none since the user last wrote. */
  suggestedUpTo?: string
}

const FRESH: UnknownToolsState = {}

const unknownToolRule: PathTurnRule<UnknownToolsState> = {
  name: "unknown-tool",
  pass: "second",
  priority: UNKNOWN_TOOL_PRIORITY,
  readsTools: true,
  decide(facts, { state, tools }) {
    const since = state.suggestedUpTo
    const finding = detectUnknownTool(facts.messages, tools, since ? { sinceMessageId: since } : {})
    if (!finding || !tools) return undefined
    // Covered from the moment the rule answers, as the prompt is decided (a held one included).
    const newest = facts.messages[facts.messages.length - 1]?.id
    return {
      ...(newest ? { state: { suggestedUpTo: newest } } : {}),
      effect: {
        kind: "nudge",
        text: buildUnknownToolPrompt({ ...finding, available: tools }),
        sendKind: "correction",
        feature: "unknown-tool",
        reason: `called missing tool "${finding.wrongName}" ${finding.count} times${finding.closest ? `; closest: ${finding.closest}` : ""}`,
      },
    }
  },
}

export const unknownToolsPath: RecoveryPath<UnknownToolsState> = {
  name: "unknown-tools",
  signals: ["userMessage"],
  turnRules: [unknownToolRule],
  initial: () => FRESH,
  step(state, input) {
    if (input.type !== "signal" || input.signal.type !== "userMessage" || !input.signal.genuine) return undefined
    return state.suggestedUpTo === undefined ? undefined : { state: FRESH, effects: [] }
  },
}
