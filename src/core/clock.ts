/**
 * Time is injected into the core: the engine never reads the wall clock or arms a
 * platform timer itself. Production passes `realTime()` (src/host/real-time.ts);
 * tests pass a `SimulatedTime` (test/support/simulated-time.ts), so a three-minute stall runs
 * in microseconds.
 */
export type CancelTimer = () => void

export interface TimeSource {
  now(): number
  /**
   * The wall clock, when `now` may differ from it (the production clock runs ahead of the wall
   * after a backward step). Only for dates from outside, such as a provider's Retry-After date.
   */
  wall?(): number
  /** Runs `fn` once after `delayMs`; the returned function cancels it. */
  schedule(delayMs: number, fn: () => void): CancelTimer
}
