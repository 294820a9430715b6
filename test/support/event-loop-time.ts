/**
 * A simulated clock that behaves like an event loop: timers fire one at a time, in due order,
 * and the promise jobs each one queues run to completion before the next timer fires.
 *
 * `SimulatedTime` (src/core/clock.ts) fires every due timer inside one synchronous loop, so a
 * host call that times out and the retry timer that follows it see no promise settle in
 * between. Property and fault tests want the real ordering, so they use this clock instead.
 * Same TimeSource contract, same `jump` meaning (wall clock moves, nothing fires).
 */
import type { CancelTimer, TimeSource } from "../../src/core/clock.ts"

type Timer = { at: number; seq: number; fn: () => void; owner: string; live: boolean }

const NOOP = () => {}

/** Timers fired at one instant, one after another, before the clock calls it a storm. */
export const TIMER_STORM = 10_000

export class TimerStormError extends Error {
  constructor(at: number, count: number) {
    super(`timer storm: ${count} timers fired at one instant (t=${at}) without time passing`)
    this.name = "TimerStormError"
  }
}

/** Runs every queued promise job (a macrotask boundary drains the microtask queue). */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

export class EventLoopTime implements TimeSource {
  private current: number
  private seq = 0
  /** Kept sorted by (at, seq); small in practice, so a sorted insert is cheap enough. */
  private queue: Timer[] = []
  /** Cancelled timers still in the queue; compacted when they are the majority. */
  private dead = 0

  constructor(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    this.current = start
  }

  now(): number {
    return this.current
  }

  schedule(delayMs: number, fn: () => void): CancelTimer {
    return this.scheduleAs("engine", delayMs, fn)
  }

  /** Like `schedule`, with an owner tag so tests can tell their own timers from the engine's. */
  scheduleAs(owner: string, delayMs: number, fn: () => void): CancelTimer {
    const delay = Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0
    const timer: Timer = { at: this.current + delay, seq: this.seq++, fn, owner, live: true }
    let lo = 0
    let hi = this.queue.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const m = this.queue[mid]!
      if (m.at < timer.at || (m.at === timer.at && m.seq < timer.seq)) lo = mid + 1
      else hi = mid
    }
    this.queue.splice(lo, 0, timer)
    return () => {
      if (!timer.live) return
      timer.live = false
      // Let go of the callback at once, as clearTimeout does: a cancelled timer must not keep
      // what it closes over alive until its due time (memory figures would be wrong).
      timer.fn = NOOP
      if (++this.dead > 64 && this.dead > this.queue.length / 2) {
        this.queue = this.queue.filter((t) => t.live)
        this.dead = 0
      }
    }
  }

  /** Live timers, optionally only those of one owner. */
  pending(owner?: string): number {
    let n = 0
    for (const t of this.queue) if (t.live && (owner === undefined || t.owner === owner)) n++
    return n
  }

  private nextDue(target: number): Timer | undefined {
    while (this.queue.length > 0 && !this.queue[0]!.live) {
      this.queue.shift()
      this.dead = Math.max(0, this.dead - 1)
    }
    const head = this.queue[0]
    return head && head.at <= target ? head : undefined
  }

  /**
   * Moves time forward by `ms`, firing due timers one by one. After each timer the promise
   * jobs it queued are drained and `afterEach` runs (tests check invariants there).
   * A throwing timer callback goes to `onError` when given (the clock keeps going), otherwise it
   * propagates to the caller: either way it is a finding, not noise.
   */
  async advance(ms: number, afterEach?: () => void | Promise<void>, onError?: (error: unknown) => void): Promise<void> {
    const target = this.current + Math.max(0, ms)
    let sameInstant = 0
    for (;;) {
      const due = this.nextDue(target)
      if (!due) break
      this.queue.shift()
      due.live = false
      sameInstant = due.at <= this.current ? sameInstant + 1 : 0
      if (sameInstant > TIMER_STORM) {
        // Timers re-arming themselves without time passing: with real timers this spins a core.
        const storm = new TimerStormError(this.current, sameInstant)
        if (!onError) throw storm
        onError(storm)
        this.queue = this.queue.filter((t) => t.live && t.at > this.current)
        break
      }
      this.current = Math.max(this.current, due.at)
      if (onError) {
        try {
          due.fn()
        } catch (error) {
          onError(error)
        }
      } else due.fn()
      await drainMicrotasks()
      if (afterEach) await afterEach()
    }
    this.current = target
  }

  /** Steps the wall clock (either way) without firing anything: a suspended laptop, an NTP step. */
  jump(ms: number): void {
    this.current += ms
  }
}
