/**
 * Internal timings and thresholds. They are not options: each one protects an invariant
 * (a bounded map, a ceiling on trust in a running tool), and letting users move them
 * would mostly let them break that invariant.
 */

/**
 * The longest pause between our own abort's answer and the continue after it. The continue goes
 * out as soon as the host shows the run over (an idle; 1.18 reports it before it answers the
 * abort, 2.x with the interruption); this ceiling is for a host that shows nothing, whose late
 * report of the abort must come before we prompt, or an ESC taken for our echo goes unnoticed.
 */
export const ABORT_CONTINUE_DELAY_MS = 5_000

export const MAX_IDLE_SESSIONS = 50

export const IDLE_CLEANUP_MS = 600_000

export const SESSION_DISCOVERY_INTERVAL_MS = 60_000

/** Even tools listed in `neverInterruptTools` stop shielding the session past this. */
export const TOOL_WEDGED_CEILING_MS = 1_800_000

/** Failed calls to the same non-existent tool before the plugin suggests the right name. */
export const UNKNOWN_TOOL_THRESHOLD = 2

export const TOOL_IDS_CACHE_MS = 300_000

/**
 * The longest wait between two looks at a stall whose history the host cannot show (or one
 * stall budget, if longer): the looks back off up to here, so a failing host is not asked every
 * check, and a healed one is seen again within this.
 */
export const UNREAD_HISTORY_MAX_LOOK_GAP_MS = 300_000

/**
 * How long an accepted prompt may take to show up before it is taken for one that never will:
 * OpenCode shows one within milliseconds, 5 s covers a lagging event stream, and a host that never
 * shows prompts delays the next by just this. Not sendTimeoutMs: that budgets the answer, which came.
 */
export const ECHO_GRACE_MS = 5_000
