/** Fakes shared by the pause tests. */
import type { SessionStatus } from "../../../src/core/status.ts"
import type { HoldView } from "../../../src/core/pause-leases.ts"
import type { PauseControl, PauseOutcome } from "../../../src/stores/file-pauses.ts"

export class FakePauses implements PauseControl {
  readonly paused = new Set<string>()
  all = false
  failWith?: string
  holdOf?: (id: string) => HoldView | undefined
  allHoldOf?: () => HoldView | undefined
  isPaused(id: string) {
    return this.all || this.paused.has(id)
  }
  allPaused() {
    return this.all
  }
  async pause(id: string): Promise<PauseOutcome> {
    if (this.failWith) return { ok: false, error: this.failWith }
    this.paused.add(id)
    return { ok: true, paused: true, allPaused: this.all }
  }
  async resume(id: string): Promise<PauseOutcome> {
    this.paused.delete(id)
    return { ok: true, paused: this.isPaused(id), allPaused: this.all }
  }
}

export const NOW = Date.UTC(2026, 0, 1, 12, 0, 0)

export function sampleStatus(over: Partial<SessionStatus> = {}): SessionStatus {
  return {
    sessionID: "ses_a",
    paused: false,
    busy: true,
    openTools: [{ callID: "c1", tool: "bash", ageMs: 65_000 }],
    awaitingUser: false,
    cancelledByUser: false,
    completed: false,
    episodeRetries: 1,
    stallEpisodeMaxContinues: 3,
    continuesInWindow: 2,
    loopMaxContinues: 5,
    lifetimeContinues: 4,
    lifetimeMaxContinues: 20,
    goalMaxContinues: 25,
    goalMaxMs: 14_400_000,
    profile: "fast",
    lastRecovery: { kind: "continue", reason: "no output for 3m 5s", at: NOW - 125_000, epoch: 1, outputAt: 0 },
    ...over,
  }
}

