/** The production clock: wall time and platform timers, behind the core's TimeSource. */
import type { TimeSource } from "../core/clock.ts"

export function realTime(): TimeSource {
  return {
    now: () => Date.now(),
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
