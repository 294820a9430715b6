/** What both adapters read the same way from their host: errors, questions, session statuses. */
import { EXIT_CODE_ERROR, MAX_TOOL_ERROR_CHARS, type Signal, type ToolOutcome } from "../core/port.ts"
import { isAbortName } from "../core/provider-failure.ts"
import { retryAfterFromHeaders } from "../core/rate-limit.ts"
import { asObj, get, num, str } from "./shape.ts"

/** Events that open or answer a question or permission, under the names both hosts use. */
export const QUESTION_OPENED: readonly string[] = ["permission.asked", "permission.updated", "question.asked"]
export const QUESTION_ANSWERED: readonly string[] = ["permission.replied", "question.replied", "question.rejected"]

export type HostError = {
  name: string
  message: string
  status?: number
  /** Response headers, where a Retry-After may be. */
  headers?: unknown
  /** A wait the host already worked out; preferred to the headers. */
  retryAfterMs?: number
}

/**
 * An `error` signal: the message capped, status and wait only when known. `wallNow` is read
 * only to turn a Retry-After date into a wait.
 */
export function errorSignal(sessionID: string, error: HostError, wallNow: () => number): Extract<Signal, { type: "error" }> {
  const signal: Extract<Signal, { type: "error" }> = { type: "error", sessionID, name: error.name, message: error.message.slice(0, 2000) }
  if (error.status !== undefined) signal.status = error.status
  const retry = error.retryAfterMs ?? (error.headers === undefined ? undefined : retryAfterFromHeaders(error.headers, wallNow()))
  if (retry !== undefined) signal.retryAfterMs = retry
  return signal
}

/** Status types that mean a run is going on: 1.x "busy", 2.x "running", "retry" on both. */
const RUNNING_STATUSES = new Set(["busy", "running", "retry"])

/**
 * Ids a status listing (`{ [sessionID]: { type } }`) reports as running. A listing that is no
 * object, or whose entries have not one status between them, says nothing about what runs, and
 * "nothing runs" would be a guess that discovery and the stall path both act on: it throws.
 * 2.x lists only active sessions, so an entry of its without a readable status still runs, and
 * a bare string there is a status; 1.x lists every session, and an odd entry beside real
 * statuses (a field a later host adds) is skipped.
 */
export function runningSessions(listing: unknown, host: "v1" | "v2"): string[] {
  const data = asObj(listing)
  if (!data) throw new Error("the session status answer is not an object")
  const running: string[] = []
  let typed = 0
  for (const [id, status] of Object.entries(data)) {
    const type = str(get(status, "type")) ?? (host === "v2" ? str(status) : undefined)
    if (type !== undefined) typed++
    if (type === undefined ? host === "v2" : RUNNING_STATUSES.has(type)) running.push(id)
  }
  if (host === "v1" && typed === 0 && Object.keys(data).length > 0) throw new Error("the session status answer has entries but no status")
  return running
}

/**
 * The hosts' own words for a call the user refused: 1.x RejectedError ("The user rejected
 * permission to use this specific tool call", also with their feedback) and DeniedError (a
 * rule of theirs), read from the error text; a 2.x error whose type names a permission. An OS
 * error such as "EACCES: permission denied" is a failure like any other, so it is not matched.
 */
const DENIED_TEXT = /the user rejected permission to use|the user has specified a rule which prevents you/i
const DENIED_TYPE = /permission/i
/** A call the run's stop cut short (1.x "Tool execution aborted", 2.x an `aborted` error type). */
const ABORTED_TEXT = /^(?:tool execution aborted|the operation was aborted|aborted)\b/i
/** A call of a tool that does not exist (1.x "Model tried to call unavailable tool", 2.x `tool.unavailable`). */
const UNAVAILABLE_TEXT = /unavailable tool|no tool named/i
const UNAVAILABLE_TYPE = /unavailable|unknown[-_.]?tool|not[-_.]?found[-_.]?tool/i

export type ToolEnding = { outcome: ToolOutcome; error?: string }

/** A failed call's outcome from the host's error (`type` on 2.x), with its text capped. */
export function failedTool(message: string, type?: string): ToolEnding {
  const error = oneLine(message || type || "failed", MAX_TOOL_ERROR_CHARS)
  if (DENIED_TEXT.test(message) || (type !== undefined && DENIED_TYPE.test(type))) return { outcome: "denied", error }
  if (ABORTED_TEXT.test(message.trim()) || isAbortName(type)) return { outcome: "aborted", error }
  if (UNAVAILABLE_TEXT.test(message) || (type !== undefined && UNAVAILABLE_TYPE.test(type))) return { outcome: "unavailable", error }
  return { outcome: "failed", error }
}

/**
 * A call that completed: `ok`, unless it ran a command that exited non-zero (the exit code in
 * its metadata: 1.x `exit`, 2.x `exit` or `exitCode`), which is a failure named by its code and
 * the last line it printed, so that two failures "the same way" read the same.
 */
export function completedTool(metadata: unknown, output: string | undefined): ToolEnding {
  const exit = num(get(metadata, "exit")) ?? num(get(metadata, "exitCode"))
  if (exit === undefined || exit === 0) return { outcome: "ok" }
  const last = lastLine(output)
  return { outcome: "failed", error: oneLine(last ? `${EXIT_CODE_ERROR}${exit}: ${last}` : `${EXIT_CODE_ERROR}${exit}`, MAX_TOOL_ERROR_CHARS) }
}

/** The last non-blank line of a tool's output, read from its tail only. */
function lastLine(output: string | undefined): string | undefined {
  if (!output) return undefined
  const tail = output.slice(-2 * MAX_TOOL_ERROR_CHARS)
  const lines = tail.split("\n")
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim()
    if (line) return line
  }
  return undefined
}

function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.slice(0, max * 2).replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat
}
