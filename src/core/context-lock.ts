/**
 * The out-of-context lock: after a context-overflow error, no continue of any kind until a
 * genuine user turn: each continue would re-send the same full context and fail the same way.
 */
import type { FailureClass } from "./provider-failure.ts"

export type ContextLock = { locked: boolean; since: number }

export const UNLOCKED_CONTEXT: ContextLock = { locked: false, since: 0 }

export function nextContextLock(
  lock: ContextLock,
  event: { type: "failure"; kind: FailureClass } | { type: "genuineUser" },
  now: number,
): ContextLock {
  if (event.type === "genuineUser") return UNLOCKED_CONTEXT
  if (event.kind === "context-overflow" && !lock.locked) return { locked: true, since: now }
  return lock
}
