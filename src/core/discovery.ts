/**
 * Session discovery: a periodic look at which sessions the host says are running, for the ones
 * whose events we missed (a plugin loaded mid-run, an event stream that dropped).
 * `discoveryDelayMs` after start, then every SESSION_DISCOVERY_INTERVAL_MS.
 */
import { SESSION_DISCOVERY_INTERVAL_MS } from "../options/index.ts"
import type { CancelTimer } from "./clock.ts"
import type { EngineContext } from "./context.ts"
import { withTimeout } from "./host-calls.ts"
import { errorText } from "./logger.ts"
import type { Signal } from "./port.ts"
import type { SessionTable } from "./session-table.ts"

/** More ids than this from one listing are ignored: the host is misbehaving. */
const MAX_LISTED_SESSIONS = 500

export type DiscoveryTarget = {
  /** The host lists this session as running. */
  running(sessionID: string): void
  /** Sessions we believe busy; the ones the host no longer lists are passed to `stopped`. */
  believedBusy(): string[]
  stopped(sessionID: string): void
}

/** What the engine does with a listing: adopt a running session, mark a vanished one idle. */
export function sessionsToDiscover(ctx: EngineContext, sessions: Pick<SessionTable, "get" | "values">, checkIntervalMs: number, handle: (signal: Signal) => void): DiscoveryTarget {
  return {
    running: (id) => {
      const known = sessions.get(id)
      if (known) known.discoveryMisses = 0
      if (known?.busy) return
      ctx.logger.log("info", `session ${id}: found running by discovery; watching it`)
      handle({ type: "busy", sessionID: id, inferred: true })
    },
    believedBusy: () => [...sessions.values()].filter((s) => s.busy).map((s) => s.id),
    stopped: (id) => {
      const state = sessions.get(id)
      // Only a session quiet for a while (an idle event may still be on its way) and missing
      // from two listings in a row: one late or empty answer must not wipe its open tools.
      if (!state || ctx.time.now() - state.lastActivityAt < 2 * checkIntervalMs) return
      state.discoveryMisses = (state.discoveryMisses ?? 0) + 1
      if (state.discoveryMisses < 2) return
      ctx.logger.log("debug", `session ${id}: no longer running per discovery; marked idle`)
      handle({ type: "idle", sessionID: id })
    },
  }
}

export class SessionDiscovery {
  private timer?: CancelTimer
  private stoppedForGood = false

  constructor(
    private readonly ctx: EngineContext,
    private readonly target: DiscoveryTarget,
    private readonly settings: { discoveryDelayMs: number; sendTimeoutMs: number },
  ) {}

  start(): void {
    this.schedule(this.settings.discoveryDelayMs)
  }

  stop(): void {
    this.stoppedForGood = true
    this.timer?.()
  }

  private schedule(delayMs: number): void {
    if (this.stoppedForGood) return
    this.timer = this.ctx.time.schedule(delayMs, () => {
      void this.runOnce().finally(() => this.schedule(SESSION_DISCOVERY_INTERVAL_MS))
    })
  }

  async runOnce(): Promise<void> {
    let listed: unknown
    try {
      listed = await withTimeout(this.ctx.time, this.settings.sendTimeoutMs, "list sessions", () => this.ctx.port.listBusySessions())
    } catch (error) {
      return this.ctx.logger.fault("discovery", `session discovery failed: ${errorText(error)}`)
    }
    if (!Array.isArray(listed)) return this.ctx.logger.fault("discovery-shape", "session discovery returned something that is not a list")
    const running = new Set(listed.filter((id): id is string => typeof id === "string" && id !== "").slice(0, MAX_LISTED_SESSIONS))
    for (const id of this.target.believedBusy()) if (!running.has(id)) this.target.stopped(id)
    for (const id of running) this.target.running(id)
  }
}
