/** What both adapters read the same way from their host: errors, questions, session statuses. */
import type { Signal } from "../core/port.ts"
import { retryAfterFromHeaders } from "../core/rate-limit.ts"
import { asObj, get, str } from "./shape.ts"

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
