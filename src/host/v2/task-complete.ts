/**
 * Registers the `task_complete` tool on 2.x through `ctx.tool.transform`, with
 * `options: { codemode: false }`: plugin tools default to code mode on 2.x (callable only inside
 * the built-in `execute` tool). Every answer, a refusal included, is a result the model reads; a
 * registry that is missing or refuses the tool costs a log line, since stall recovery does not
 * depend on it.
 */
import { errorText } from "../../core/logger.ts"
import { MAX_EVIDENCE_CHARS, TASK_COMPLETE_DESCRIPTION, TASK_COMPLETE_EVIDENCE_DESCRIPTION, TASK_COMPLETE_TOOL } from "../../prompts/task-complete-tool.ts"
import { get, str } from "../shape.ts"
import { callCtx, hasMethod, safeDisposer } from "./context.ts"

export { TASK_COMPLETE_TOOL }

export type TaskCompleteCall = { sessionID?: string; summary?: string; evidence?: string }

export type Registration = { dispose(): void }

export type TaskCompleteDeps = {
  log: (level: "info" | "warn", message: string) => void
  /** What the tool answers; the decision logic is wired by the caller. */
  onCall: (call: TaskCompleteCall) => Promise<{ ok: boolean; text: string }>
}

export function taskCompleteTool(deps: TaskCompleteDeps) {
  return {
    name: TASK_COMPLETE_TOOL,
    description: TASK_COMPLETE_DESCRIPTION,
    input: {
      type: "object",
      properties: {
        summary: { type: "string", description: "What was done, in one or two sentences." },
        evidence: { type: "string", description: TASK_COMPLETE_EVIDENCE_DESCRIPTION },
      },
      additionalProperties: false,
    },
    options: { codemode: false },
    async execute(input: unknown, context: unknown) {
      const call = { sessionID: str(get(context, "sessionID")), summary: str(get(input, "summary"))?.slice(0, 2000), evidence: str(get(input, "evidence"))?.slice(0, MAX_EVIDENCE_CHARS) }
      let result: { ok: boolean; text: string }
      try {
        result = await deps.onCall(call)
      } catch (error) {
        deps.log("warn", `task_complete handler failed: ${errorText(error)}`)
        result = { ok: true, text: "Noted." }
      }
      return taskCompleteResult(result)
    },
  }
}

/**
 * The 2.x tool result: `{ content, metadata }` and no `output` key at all. The model reads
 * `content`; `output` is the structured value an output schema checks, and the host's tool
 * runtime kills a call whose result has the key while the tool declares no schema (a defect,
 * not a failure the model reads), so even `output: undefined` would break every call. A refusal
 * of a repeated call comes back the same way, flagged in `metadata.refused`.
 */
function taskCompleteResult(result: { ok: boolean; text: string }): { content: string; metadata: Record<string, unknown> } {
  const metadata: Record<string, unknown> = { autoResume: true }
  if (!result.ok) metadata.refused = true
  return { content: result.text, metadata }
}

/**
 * Adds the tool; resolves to its registration (to dispose on cleanup), or undefined when the
 * host has no tool registry or refused the tool.
 */
export async function registerTaskComplete(ctx: unknown, deps: TaskCompleteDeps): Promise<Registration | undefined> {
  if (!hasMethod(ctx, "tool", "transform")) {
    deps.log("info", "ctx.tool.transform is missing: task_complete is not registered")
    return undefined
  }
  const tool = taskCompleteTool(deps)
  let refused: unknown
  try {
    const registration = await callCtx(ctx, "tool", "transform", (editor: unknown) => {
      try {
        ;(editor as { add(info: unknown): void }).add(tool)
      } catch (error) {
        refused = error
      }
    })
    const handle = safeDisposer(registration)
    if (refused !== undefined) {
      handle.dispose()
      throw refused
    }
    deps.log("info", "task_complete registered")
    return handle
  } catch (error) {
    deps.log("warn", `task_complete not registered: the tool registry refused it (${errorText(error)}); carrying on without it`)
    return undefined
  }
}
