/**
 * Internal timings and thresholds. They are not options: each one protects an invariant
 * (a bounded map, a ceiling on trust in a running tool), and letting users move them
 * would mostly let them break that invariant.
 */

/**
 * Pause between our own abort and the continue that follows, so the host has settled the
 * aborted run and reported it. The report is what tells our abort from the user's ESC (one
 * interruption per abort; core/intervention.ts): a host that reports late (seconds, not the few ms
 * 1.18 takes) must have done so before we prompt, or an ESC taken for our echo goes unnoticed.
 */
export const ABORT_CONTINUE_DELAY_MS = 5_000

/** Most idle sessions kept in memory before the oldest are dropped. */
export const MAX_IDLE_SESSIONS = 50

/** An idle session untouched this long (10 min) is forgotten. */
export const IDLE_CLEANUP_MS = 600_000

/** How often the plugin sweeps the host for sessions it has not seen events from (60 s). */
export const SESSION_DISCOVERY_INTERVAL_MS = 60_000

/**
 * A tool still running after 30 min is assumed wedged: even tools listed in
 * `neverInterruptTools` stop shielding the session from busy-stall recovery.
 */
export const TOOL_WEDGED_CEILING_MS = 1_800_000

/** Failed calls to the same non-existent tool before the plugin suggests the right name. */
export const UNKNOWN_TOOL_THRESHOLD = 2

/** How long the host's list of tool names is reused before being fetched again (5 min). */
export const TOOL_IDS_CACHE_MS = 300_000
