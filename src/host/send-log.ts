/**
 * How both hosts send: hidden or shown (`visibleContinue`, `quietCorrections`), and the
 * `injectIntervalMs` spacing. The log lives in the process-wide registry slot, so a reloaded or
 * duplicated plugin cannot send twice in quick succession to the same session either.
 */

import { BoundedMap } from "../core/bounded.ts"
import type { SendKind, SendRequest } from "../core/port.ts"
import { effectiveOptions, type Options, type ResolvedOptions } from "../options/index.ts"

const MAX_SEND_LOG_SESSIONS = 1000

/** When each session last got something from us; bounded, the oldest entry goes first. */
export class SendLog {
  private readonly last = new BoundedMap<string, number>(MAX_SEND_LOG_SESSIONS, { refresh: true })

  lastSendAt(sessionID: string): number | undefined {
    return this.last.get(sessionID)
  }

  record(sessionID: string, at: number): void {
    this.last.set(sessionID, at)
  }
}

/** A send the port turned down on purpose (today: too soon after the previous one). */
export class SendRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "SendRefusedError"
  }
}

/**
 * Books a send to `sessionID` at `now`, or throws SendRefusedError when the previous one was
 * less than `intervalMs` ago. Call it before anything is awaited, so that a second instance
 * racing this one is refused. A previous send dated in the future (the wall clock was set
 * back) does not block: the gap cannot be known, and refusing until the clock caught up
 * could silence a session for hours.
 */
export function reserveSend(log: SendLog, sessionID: string, now: number, intervalMs: number): void {
  const last = log.lastSendAt(sessionID)
  const gap = last === undefined ? undefined : now - last
  if (gap !== undefined && gap >= 0 && gap < intervalMs) {
    throw new SendRefusedError(`send refused: ${gap}ms after the previous one to this session (injectIntervalMs=${intervalMs})`)
  }
  log.record(sessionID, now)
}

/** Books `request` (reserveSend) and returns the options it goes out under: its provider's. */
export function bookSend(log: SendLog, resolved: ResolvedOptions, request: SendRequest, now: number): Options {
  const options = effectiveOptions(resolved, request.setup?.model?.providerID)
  reserveSend(log, request.sessionID, now, options.injectIntervalMs)
  return options
}

/**
 * Whether a send takes the host's hidden channel (1.x a synthetic part, 2.x a synthetic
 * message): a continue is shown unless `visibleContinue` is off, a correction hidden unless
 * `quietCorrections` is off.
 */
export function isHiddenSend(kind: SendKind, options: { visibleContinue: boolean; quietCorrections: boolean }): boolean {
  return kind === "continue" ? !options.visibleContinue : options.quietCorrections
}
