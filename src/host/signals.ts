/**
 * Signals both adapters build the same way from what their host reported.
 */
import type { Signal } from "../core/port.ts"
import { retryAfterFromHeaders } from "../core/rate-limit.ts"

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
