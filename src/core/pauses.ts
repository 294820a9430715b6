/**
 * Where the core asks whether a session is paused. The in-memory store is enough for the
 * core and its tests; the marker-file store (src/stores/file-pauses.ts) implements the same interface.
 */
export interface PauseSource {
  isPaused(sessionID: string): boolean
}

export class MemoryPauses implements PauseSource {
  private readonly paused = new Set<string>()
  private all = false

  isPaused(sessionID: string): boolean {
    return this.all || this.paused.has(sessionID)
  }

  pause(sessionID: string): void {
    this.paused.add(sessionID)
  }

  resume(sessionID: string): void {
    this.paused.delete(sessionID)
  }

  pauseAll(paused: boolean): void {
    this.all = paused
    if (!paused) this.paused.clear()
  }
}
