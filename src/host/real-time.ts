/**
 * The production clock: monotonic time that reads as epoch milliseconds, and platform timers,
 * behind the core's TimeSource.
 *
 * Not Date.now(): the wall clock can step backwards (an NTP correction, a manual change, a
 * restored VM), and the engine compares stamps taken at different moments (how long a session
 * has been quiet, whether a recovery belongs to the current run). Across a backward step a
 * recent stamp looks like the future: quiet times go negative, old work looks new. Time here
 * comes from performance.now(), the monotonic source the platform timers also run on, offset
 * so that it reads as epoch ms: stamps in logs and in prompts still show the local time.
 */
import type { TimeSource } from "../core/clock.ts"

/**
 * A clock that never goes backwards, from a monotonic source and the wall clock. It starts at
 * the wall time and advances with the monotonic source. The wall clock is followed forward only:
 * a laptop resumed from sleep (the monotonic source does not count the suspend on Linux or
 * macOS) or a forward step moves it ahead, so shown times stay right and a long sleep still
 * reads as time that passed; a backward step is ignored (the clock then stays ahead of the wall
 * by the step's size). Whole milliseconds: the core compares stamps for equality.
 */
export function monotonicClock(monotonic: () => number, wall: () => number): () => number {
  let offset = wall() - monotonic()
  return () => {
    const m = monotonic()
    const ahead = wall() - m
    if (ahead > offset) offset = ahead
    return Math.floor(m + offset)
  }
}

/**
 * One clock per process, kept on globalThis: plugin instances hand stamps to each other (the
 * watch state a reloaded instance takes over, the process-wide record of our own prompts), so
 * they must all read the same clock, whichever copy of this module each one loaded.
 */
const PROCESS_CLOCK = Symbol.for("opencode-auto-resume.monotonic-clock")

function processClock(): () => number {
  const g = globalThis as Record<symbol, unknown>
  const known = g[PROCESS_CLOCK]
  if (typeof known === "function") return known as () => number
  const clock = monotonicClock(() => performance.now(), () => Date.now())
  g[PROCESS_CLOCK] = clock
  return clock
}

export function realTime(): TimeSource {
  const now = processClock()
  return {
    now,
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
