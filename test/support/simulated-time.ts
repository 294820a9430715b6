/**
 * A deterministic TimeSource for tests: timers fire only when the test advances time, so a
 * three-minute stall runs in microseconds. Production uses realTime() (src/host/real-time.ts).
 */
import type { CancelTimer, TimeSource } from "../../src/core/clock.ts"

type PendingTimer = { at: number; seq: number; fn: () => void; cancelled: boolean }

/** A deterministic clock: timers fire only when the test advances time. */
export class SimulatedTime implements TimeSource {
  private current: number
  private seq = 0
  private timers: PendingTimer[] = []

  constructor(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    this.current = start
  }

  now(): number {
    return this.current
  }

  schedule(delayMs: number, fn: () => void): CancelTimer {
    const delay = Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0
    const timer: PendingTimer = { at: this.current + delay, seq: this.seq++, fn, cancelled: false }
    this.timers.push(timer)
    return () => {
      timer.cancelled = true
    }
  }

  /** Number of timers still waiting to fire. */
  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length
  }

  /** Moves time forward, firing every due timer in order (timers armed meanwhile included). */
  advance(ms: number): void {
    const target = this.current + ms
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled)
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0]
      if (!due) break
      this.timers.splice(this.timers.indexOf(due), 1)
      this.current = Math.max(this.current, due.at)
      due.fn()
    }
    this.current = target
  }

  /** Jumps the wall clock without firing timers (a suspended laptop, an NTP step). */
  jump(ms: number): void {
    this.current += ms
  }
}
