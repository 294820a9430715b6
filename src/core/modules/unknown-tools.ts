/**
 * Tools that do not exist: a wrong tool name called twice gets one prompt naming the closest
 * real tool and the available ones (detect/unknown-tool.ts). With no tool list to compare
 * against, nothing is suggested.
 */
import { detectUnknownTool } from "../../detect/unknown-tool.ts"
import { buildUnknownToolPrompt } from "../../prompts/unknown-tool.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import type { ToolNames } from "../tool-names.ts"
import { JUDGE_PRIORITY } from "./finished-turn.ts"

/** Right after the tool-loop rule (paths/loops, JUDGE_PRIORITY + 10): a loop is answered before a wrong tool name. */
const UNKNOWN_TOOL_PRIORITY = JUDGE_PRIORITY + 11

export function unknownToolsModule(_env: ModuleEnv, toolNames: ToolNames): EngineModule {
  /** Newest message already covered by an unknown-tool suggestion, per session. */
  const suggestedUpTo = new Map<string, string>()
  return {
    name: "unknown-tools",
    signals: ["userMessage"],
    turnRules: [
      {
        name: "unknown-tool",
        pass: "second",
        priority: UNKNOWN_TOOL_PRIORITY,
        async decide(facts) {
          const available = await toolNames.get()
          const since = suggestedUpTo.get(facts.state.id)
          const finding = detectUnknownTool(facts.messages, available, since ? { sinceMessageId: since } : {})
          if (!finding || !available) return undefined
          const newest = facts.messages[facts.messages.length - 1]?.id
          if (newest) suggestedUpTo.set(facts.state.id, newest)
          return {
            kind: "nudge",
            text: buildUnknownToolPrompt({ ...finding, available }),
            sendKind: "correction",
            feature: "unknown-tool",
            reason: `called missing tool "${finding.wrongName}" ${finding.count} times${finding.closest ? `; closest: ${finding.closest}` : ""}`,
          }
        },
      },
    ],
    onSignal(state, signal) {
      if (signal.type === "userMessage" && signal.genuine) suggestedUpTo.delete(state.id)
    },
    forget(state) {
      suggestedUpTo.delete(state.id)
    },
  }
}
