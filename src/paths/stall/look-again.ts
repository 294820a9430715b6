/**
 * When to look again at a stall whose abort was vetoed. Each look asks the host twice (is it
 * running, its newest message): a host that cannot show its history must not be asked that every
 * check for as long as it fails, so then the wait grows with how long the looks at this stall have
 * been failing (about doubling each time), from checkIntervalMs up to UNREAD_HISTORY_MAX_LOOK_GAP_MS
 * (or one stall budget, if longer). Progress, or a recovery going out, starts a new stall. A history
 * that reads (a tool still running in it) is looked at every check, as checkIntervalMs says.
 */
import type { Options } from "../../options/index.ts"
import { UNREAD_HISTORY_MAX_LOOK_GAP_MS } from "../../options/index.ts"
import { UNREAD_HISTORY_VETO } from "../../core/abort-veto.ts"
import { stallBudgetMs } from "../../core/watchdog.ts"

/** Since when the looks at one stall (one progress baseline) keep finding its history unreadable. */
export type UnreadStreak = { baseline: number; since: number }

/** The wait before the next look, and the streak to keep (undefined: none runs). */
export function vetoedLookAgain(options: Options, streak: UnreadStreak | undefined, baseline: number, why: string, now: number): { delayMs: number; streak: UnreadStreak | undefined } {
  if (!why.startsWith(UNREAD_HISTORY_VETO)) return { delayMs: options.checkIntervalMs, streak: undefined }
  const current = streak && streak.baseline === baseline ? streak : { baseline, since: now }
  const longest = Math.max(stallBudgetMs(options), UNREAD_HISTORY_MAX_LOOK_GAP_MS)
  return { delayMs: Math.max(options.checkIntervalMs, Math.min(now - current.since, longest)), streak: current }
}
