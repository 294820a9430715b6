/**
 * One history entry as one JSON line, and back. The line carries the time as an ISO date, so the
 * file reads well with `tail` and `jq`; anything that does not read back as an entry is rejected
 * with the reason, and the reader skips it.
 */
import { JOURNAL_OUTCOMES, cappedEntry, type JournalEntry, type JournalOutcome } from "../core/journal.ts"

/** A line longer than this was not written by us (entries are capped far below it). */
export const MAX_JOURNAL_LINE = 4096

export function journalLine(entry: JournalEntry): string {
  const e = cappedEntry(entry)
  const line: Record<string, string> = {
    time: new Date(e.time).toISOString(),
    sessionID: e.sessionID,
    trigger: e.trigger,
    evidence: e.evidence,
    action: e.action,
    outcome: e.outcome,
  }
  if (e.note) line.note = e.note
  return JSON.stringify(line)
}

export type ParsedLine = { ok: true; entry: JournalEntry } | { ok: false; why: string }

export function parseJournalLine(text: string): ParsedLine {
  if (text.length > MAX_JOURNAL_LINE) return { ok: false, why: `longer than ${MAX_JOURNAL_LINE} characters` }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { ok: false, why: "not JSON" }
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { ok: false, why: "not a JSON object" }
  const o = data as Record<string, unknown>
  const time = typeof o.time === "string" ? Date.parse(o.time) : NaN
  if (!Number.isFinite(time)) return { ok: false, why: "no valid time" }
  for (const key of ["sessionID", "trigger", "evidence", "action"] as const) {
    if (typeof o[key] !== "string") return { ok: false, why: `no ${key}` }
  }
  if (o.sessionID === "") return { ok: false, why: "no sessionID" }
  if (!JOURNAL_OUTCOMES.includes(o.outcome as JournalOutcome)) return { ok: false, why: "no known outcome" }
  if (o.note !== undefined && typeof o.note !== "string") return { ok: false, why: "a note that is not text" }
  const entry: JournalEntry = {
    time,
    sessionID: o.sessionID as string,
    trigger: o.trigger as string,
    evidence: o.evidence as string,
    action: o.action as string,
    outcome: o.outcome as JournalOutcome,
  }
  if (typeof o.note === "string" && o.note !== "") entry.note = o.note
  return { ok: true, entry: cappedEntry(entry) }
}
