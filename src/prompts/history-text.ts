/**
 * The history as a person reads it: a table for the terminal (auto-resume-toggle history) and a
 * few compact lines for the chat (/auto-resume history). Local time; newest last.
 */
import type { JournalEntry } from "../core/journal.ts"
import { formatLocalTime } from "./format.ts"

const MAX_CELL = 60

/** Enough of a session id to tell sessions apart: the prefix and the (random) tail. */
export function shortSessionID(id: string): string {
  return id.length > 14 ? `${id.slice(0, 4)}…${id.slice(-8)}` : id
}

/** `2026-12-02 14:03:05` in the local time zone. */
export function localStamp(epochMs: number): string {
  const d = new Date(epochMs)
  if (!Number.isFinite(d.getTime())) return "?"
  const two = (n: number) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
}

function cell(text: string): string {
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text
}

function outcomeCell(e: JournalEntry): string {
  return e.note ? `${e.outcome} (${e.note})` : e.outcome
}

export function journalTable(entries: readonly JournalEntry[]): string {
  const head = ["TIME", "SESSION", "TRIGGER", "EVIDENCE", "ACTION", "OUTCOME"]
  const rows = entries.map((e) => [localStamp(e.time), shortSessionID(e.sessionID), cell(e.trigger), cell(e.evidence), cell(e.action), outcomeCell(e)])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  // The last column is not padded: a long note must not push trailing spaces onto every line.
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")
  return [line(head), ...rows.map(line)].join("\n")
}

/** The chat's view: how many, then one line per intervention. */
export function sessionHistoryText(entries: readonly JournalEntry[], total: number): string {
  if (entries.length === 0) return `auto-resume history for this session: no interventions recorded.`
  const head = `auto-resume history for this session (${entries.length === total ? total : `last ${entries.length} of ${total}`}), newest last:`
  const lines = entries.map((e) => `- ${formatLocalTime(e.time)}: ${e.trigger} (${e.evidence}) -> ${e.action}: ${outcomeCell(e)}`)
  return [head, ...lines].join("\n")
}
