/**
 * Every call into the host goes through here: bounded in time, one at a time per session,
 * and never able to throw into the caller. A call that hangs past `sendTimeoutMs` counts as
 * failed and frees the session's slot; whatever it eventually does is ignored.
 */
import type { TimeSource } from "./clock.ts"
import type { EngineContext } from "./context.ts"
import type { CallOutcome } from "./intervention.ts"
import { errorText } from "./logger.ts"
import type { SessionState } from "./session-state.ts"
import type { TodoSnapshot } from "../todos/open.ts"

export class TimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label} did not settle within ${ms}ms`)
    this.name = "TimeoutError"
  }
}

/** Races a promise-returning call against a timer; a synchronous throw becomes a rejection. */
export function withTimeout<T>(time: TimeSource, ms: number, label: string, call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // A promise settles once: whichever of the call and the timer comes second changes nothing.
    const cancel = time.schedule(ms, () => reject(new TimeoutError(label, ms)))
    const settle = <A>(fn: (value: A) => void) => (value: A) => {
      cancel()
      fn(value)
    }
    try {
      Promise.resolve(call()).then(settle(resolve), settle(reject))
    } catch (error) {
      settle(reject)(error)
    }
  })
}

export type CallReporter = (label: string, outcome: CallOutcome, error?: unknown) => void

/** Never rejects. */
export async function exclusiveHostCall(
  state: SessionState,
  time: TimeSource,
  timeoutMs: number,
  label: string,
  call: () => Promise<unknown>,
  report: CallReporter,
): Promise<CallOutcome> {
  if (state.intervention.call.busy) {
    report(label, "busy")
    return "busy"
  }
  state.intervention.call.busy = true
  try {
    await withTimeout(time, timeoutMs, label, call)
    report(label, "ok")
    return "ok"
  } catch (error) {
    const outcome: CallOutcome = error instanceof TimeoutError ? "timeout" : "failed"
    report(label, outcome, error)
    return outcome
  } finally {
    state.intervention.call.busy = false
  }
}

/** Reports a host call that did not go well, once per label and outcome. */
export function reporter(ctx: EngineContext, state: SessionState): CallReporter {
  return (label, outcome, error) => {
    if (outcome === "ok") return
    ctx.logger.fault(`${label}:${outcome}`, `session ${state.id}: ${label} ${outcome}${error ? `: ${errorText(error)}` : ""}`)
  }
}

/** The session's todo list from the host's API, bounded; "unreadable" when the read failed. */
export function readTodosBounded(ctx: EngineContext, sessionID: string, timeoutMs: number): Promise<TodoSnapshot> {
  return withTimeout(ctx.time, timeoutMs, "read todos", () => ctx.port.readTodos(sessionID)).then(
    (read): TodoSnapshot => (Array.isArray(read) ? read : "none"),
    (): TodoSnapshot => "unreadable",
  )
}
