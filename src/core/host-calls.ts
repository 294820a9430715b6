/**
 * Every call into the host goes through here: bounded in time, one at a time per session,
 * and never able to throw into the caller. A call that hangs past `sendTimeoutMs` counts as
 * failed and frees the session's slot; whatever it eventually does is ignored.
 */
import type { TimeSource } from "./clock.ts"
import type { SessionState } from "./session-state.ts"

export type CallOutcome = "ok" | "failed" | "timeout" | "busy"

/** However short the stall budget, a host gets this long to carry out or report a call of ours. */
export const MIN_LATE_LANDING_HOLD_MS = 60_000

/**
 * How long a call of ours that may still take effect holds back the next identical one: an
 * abort accepted but not reported yet, a call answered past sendTimeoutMs (the host may still
 * carry it out). Two stall budgets (a stall one budget after ours is still held, since the host
 * may be late; the one after it is not), and at least a minute. Past it the call is presumed
 * lost, so a host that lost one cannot leave a session without recovery for good.
 */
export function lateLandingHoldMs(stallBudgetMs: number): number {
  return Math.max(MIN_LATE_LANDING_HOLD_MS, 2 * stallBudgetMs)
}

export class TimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label} did not settle within ${ms}ms`)
    this.name = "TimeoutError"
  }
}

/** Races a promise-returning call against a timer; a synchronous throw becomes a rejection. */
export function withTimeout<T>(time: TimeSource, ms: number, label: string, call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    const cancel = time.schedule(ms, () => {
      if (settled) return
      settled = true
      reject(new TimeoutError(label, ms))
    })
    const finish = (fn: () => void) => {
      if (settled) return
      settled = true
      cancel()
      fn()
    }
    let pending: Promise<T>
    try {
      pending = Promise.resolve(call())
    } catch (error) {
      finish(() => reject(error))
      return
    }
    pending.then(
      (value) => finish(() => resolve(value)),
      (error) => finish(() => reject(error)),
    )
  })
}

export type CallReporter = (label: string, outcome: CallOutcome, error?: unknown) => void

/**
 * Runs one host call for a session if none is in flight. Returns how it went; never rejects.
 */
export async function exclusiveHostCall(
  state: SessionState,
  time: TimeSource,
  timeoutMs: number,
  label: string,
  call: () => Promise<unknown>,
  report: CallReporter,
): Promise<CallOutcome> {
  if (state.callSlot.busy) {
    report(label, "busy")
    return "busy"
  }
  state.callSlot.busy = true
  try {
    await withTimeout(time, timeoutMs, label, call)
    report(label, "ok")
    return "ok"
  } catch (error) {
    const outcome: CallOutcome = error instanceof TimeoutError ? "timeout" : "failed"
    report(label, outcome, error)
    return outcome
  } finally {
    state.callSlot.busy = false
  }
}
