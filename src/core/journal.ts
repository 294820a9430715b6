/**
 * The history a user reads to learn what the plugin did while nobody watched: one entry per
 * intervention, made by the core (journal-book.ts) and handed to the host through
 * HostPort.journal, which stores it (src/stores/journal-file.ts). Pure data and the few rules
 * that keep it small and printable; no I/O.
 */

/**
 * How an intervention ended: `revived` the session produced output after our action; `no effect`
 * it did not within the path's window (or the host refused the action); `held` a guard refused
 * the action (the user, a pause, ESC, an open question or tool); `gave up` a budget ran out.
 * A goal's lines (goals.ts) say where the goal stands: `active` once set, then how it ended:
 * `met`, `stood down` or `cleared`.
 */
export type JournalOutcome = "revived" | "no effect" | "held" | "gave up" | "active" | "met" | "stood down" | "cleared"

export const JOURNAL_OUTCOMES: readonly JournalOutcome[] = ["revived", "no effect", "held", "gave up", "active", "met", "stood down", "cleared"]

export type JournalEntry = {
  /** When the plugin acted (or was held), wall-clock epoch milliseconds. */
  time: number
  sessionID: string
  /** The recovery path, in a word or two: "stall", "tool loop", "rate limit"... */
  trigger: string
  /** What the path saw, short: "silent for 3m 2s", "tool bash repeated 6x". */
  evidence: string
  /** What the plugin did or meant to do: "continue", "abort + continue", "model switch"... */
  action: string
  outcome: JournalOutcome
  /** Anything else worth a reader's eye (a wait carried over from a restart, why it was held). */
  note?: string
}

/** What a recovery path tells the journal about itself; what run-effect.ts does not know. */
export type JournalTag = {
  trigger: string
  evidence: string
  /** Overrides the action named after the effect's kind. */
  action?: string
  note?: string
  /** How long after the action output still counts as its answer (default: the stall budget). */
  windowMs?: number
}

/** Caps of one field, in characters: an entry stays a short line whatever a path hands in. */
export const MAX_JOURNAL_FIELD = 160
export const MAX_JOURNAL_ID = 120

/** One printable line of at most `max` characters (control characters become spaces). */
export function journalText(value: unknown, max = MAX_JOURNAL_FIELD): string {
  const text = typeof value === "string" ? value : value === undefined || value === null ? "" : String(value)
  // eslint-disable-next-line no-control-regex
  const flat = text.slice(0, max * 2).replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat
}

/** The entry with every field capped; what the book hands the port. */
export function cappedEntry(entry: JournalEntry): JournalEntry {
  const capped: JournalEntry = {
    time: Number.isFinite(entry.time) ? entry.time : 0,
    sessionID: journalText(entry.sessionID, MAX_JOURNAL_ID),
    trigger: journalText(entry.trigger),
    evidence: journalText(entry.evidence),
    action: journalText(entry.action),
    outcome: entry.outcome,
  }
  if (entry.note) capped.note = journalText(entry.note)
  return capped
}
