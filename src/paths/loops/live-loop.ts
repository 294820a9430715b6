/**
 * Tool-call loops caught live (`recordToolCall`): every tool start is fingerprinted (tool
 * name plus its arguments with object keys sorted) and kept in a small ring; six or more calls
 * that form a cycle of period 1 to 3 (at least three full repetitions) are reported before the
 * next call runs, so the loops path can abort the turn. Pure: no clock, no I/O, and the ring is
 * never changed in place (it lives in the path's state). The scan made when a session goes idle
 * is in detect/tool-loop.ts.
 *
 * What "the same call" means here: calls are equal when their fingerprints are equal, or when
 * they are NEAR-IDENTICAL: same tool, same argument
 * structure (same keys, same array lengths, same value types), every string equal once
 * surrounding whitespace is trimmed and inner runs of whitespace are collapsed, and every
 * number within `NEAR_NUMBER_TOLERANCE` (2) of the number at the same place in the reference
 * call. The reference for each cycle position is the newest call at that position, so drift
 * cannot accumulate: paging through a file with `offset: 0, 100, 200 ...` is never a loop,
 * while re-reading `offset: 40` / `offset: 41` is. Strings are never compared by edit
 * distance: `cat a.ts` and `cat b.ts` are different work, however close the texts are.
 */
import { fingerprintArgs, type ArgsFingerprint } from "../../detect/tool-fingerprint.ts"

/** Numbers this close count as the same in a near-identical comparison. */
export const NEAR_NUMBER_TOLERANCE = 2

export type ToolCallPrint = { tool: string } & ArgsFingerprint

export type LiveToolLoop = {
  /** 1 = the same call again and again; 2 or 3 = a cycle of that many calls. */
  period: number
  /** Calls at the tail that follow the cycle (>= LIVE_MIN_CALLS). */
  calls: number
  /** Tool names of one cycle, oldest first. */
  tools: string[]
  /** True when some calls matched only as near-identical, not exactly. */
  near: boolean
}

/** Calls kept per session. */
export const LIVE_RING_SIZE = 32
/** Fewest calls that prove a loop. */
export const LIVE_MIN_CALLS = 6
/** Fewest full repetitions of the cycle (so a 3-call cycle needs 9 calls). */
export const LIVE_MIN_REPEATS = 3
export const LIVE_MAX_PERIOD = 3

function sameCall(a: ToolCallPrint, b: ToolCallPrint): boolean {
  return a.tool === b.tool && a.exact === b.exact
}

export function nearIdenticalCall(a: ToolCallPrint, reference: ToolCallPrint): boolean {
  if (a.tool !== reference.tool || a.shape !== reference.shape || a.numbers.length !== reference.numbers.length) return false
  return a.numbers.every((x, i) => Math.abs(x - reference.numbers[i]!) <= NEAR_NUMBER_TOLERANCE)
}

/**
 * Records one call in the ring of ONE session's recent calls (oldest first): the ring to keep
 * (at most `capacity` calls), and the loop its tail now forms. After a report the ring to keep
 * is empty: the same loop is reported once, and a new report needs six fresh calls.
 */
export function recordToolCall(ring: readonly ToolCallPrint[], tool: string, args: unknown, capacity = LIVE_RING_SIZE): { ring: readonly ToolCallPrint[]; loop?: LiveToolLoop } {
  const next = [...ring, { tool, ...fingerprintArgs(args) }]
  if (next.length > capacity) next.splice(0, next.length - capacity)
  const loop = detectLiveLoop(next)
  return loop ? { ring: [], loop } : { ring: next }
}

export function detectLiveLoop(calls: readonly ToolCallPrint[]): LiveToolLoop | undefined {
  const n = calls.length
  for (let period = 1; period <= LIVE_MAX_PERIOD; period++) {
    const needed = Math.max(LIVE_MIN_CALLS, period * LIVE_MIN_REPEATS)
    if (n < needed) break
    let run = period
    let near = false
    for (let i = n - 1 - period; i >= 0; i--) {
      // Compare with the newest call at the same position in the cycle.
      const reference = calls[n - period + ((i - (n - period)) % period + period) % period]!
      const call = calls[i]!
      if (!sameCall(call, reference)) {
        if (!nearIdenticalCall(call, reference)) break
        near = true
      }
      run++
    }
    if (run < needed) continue
    const cycle = calls.slice(n - period)
    if (period > 1 && cycle.every((c) => nearIdenticalCall(c, cycle[0]!) || sameCall(c, cycle[0]!))) continue
    return { period, calls: run, tools: cycle.map((c) => c.tool), near }
  }
  return undefined
}
