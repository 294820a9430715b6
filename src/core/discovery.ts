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

/** More ids than this from one listing are ignored: the host is misbehaving. */
const MAX_LISTED_SESSIONS = 500

export type DiscoveryTarget = {
  /** The host lists this session as running. */
  running(sessionID: string): void
  /** Sessions we believe busy; the ones the host no longer lists are passed to `stopped`. */
  believedBusy(): string[]
  stopped(sessionID: string): void
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
      this.ctx.logger.fault("discovery", `session discovery failed: ${errorText(error)}`)
      return
    }
    if (!Array.isArray(listed)) {
      this.ctx.logger.fault("discovery-shape", "session discovery returned something that is not a list")
      return
    }
    const running = new Set(listed.filter((id): id is string => typeof id === "string" && id !== "").slice(0, MAX_LISTED_SESSIONS))
    for (const id of this.target.believedBusy()) if (!running.has(id)) this.target.stopped(id)
    for (const id of running) this.target.running(id)
  }
}
