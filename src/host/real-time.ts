/**
 * The production clock behind the core's TimeSource: epoch milliseconds that never go backwards,
 * and platform timers. Not plain Date.now(): the wall clock can step back (an NTP correction, a
 * manual change, a restored VM) while the engine compares stamps taken at different moments, and
 * across such a step quiet times go negative and old work looks new.
 */
import type { TimeSource } from "../core/clock.ts"

/**
 * A clock that never goes backwards: forward it follows the wall (a laptop resumed from sleep
 * reads as time that passed); a backward step is absorbed into an offset, so the clock then runs
 * ahead of the wall by the step's size until the process restarts. Dates from outside (a
 * Retry-After) are measured against `wall` instead. One wall read per call: on some virtual
 * machines a clock read costs as much as an empty event hook (bench/hot-path.ts). Whole
 * milliseconds: the core compares stamps for equality.
 */
export function forwardOnlyClock(wall: () => number): () => number {
  let offset = 0
  let last = -Infinity
  return () => {
    let t = Math.floor(wall()) + offset
    if (t < last) {
      offset += last - t
      t = last
    }
    last = t
    return t
  }
}

/**
 * One clock per process, kept on globalThis: plugin instances hand stamps to each other (the
 * watch state a reloaded instance takes over, the process-wide record of our own prompts), so
 * they must all read the same clock, whichever copy of this module each one loaded.
 */
const PROCESS_CLOCK = Symbol.for("opencode-auto-resume.forward-only-clock")

function processClock(): () => number {
  const g = globalThis as Record<symbol, unknown>
  const known = g[PROCESS_CLOCK]
  if (typeof known === "function") return known as () => number
  const clock = forwardOnlyClock(() => Date.now())
  g[PROCESS_CLOCK] = clock
  return clock
}

/** The wall clock of `time` where it has one: what dates from outside (Retry-After) are measured against. */
export function wallClock(time: TimeSource): () => number {
  return () => (time.wall ? time.wall() : time.now())
}

export function realTime(): TimeSource {
  const now = processClock()
  return {
    now,
    wall: () => Date.now(),
    schedule(delayMs, fn) {
      const delay = Number.isFinite(delayMs) && delayMs > 0 ? Math.min(delayMs, 2_147_483_647) : 0
      const handle = setTimeout(() => {
        try {
          fn()
        } catch {
          // Timer callbacks come from the engine, which guards itself; this is the last net.
        }
      }, delay)
      // Never keep the host process alive just for a watchdog.
      ;(handle as { unref?: () => void }).unref?.()
      return () => clearTimeout(handle)
    },
  }
}
