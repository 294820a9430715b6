/**
 * `auto-resume-toggle history [sessionID] [--json]`: what the plugin did, read from the journal
 * file every OpenCode process appends to. A table in local time, newest last; `--json` prints the
 * entries as the JSON lines they are stored as. A session is named by its full id or the tail the
 * table shows. Lines that are not entries are skipped, and counted on stderr.
 */
import type { JournalEntry } from "../core/journal.ts"
import { journalTable } from "../prompts/history-text.ts"
import { journalFilePath, journalLine, newestOf, readJournal } from "../stores/journal-file.ts"
import { printable, sessionIdProblem } from "../stores/pause-marker.ts"

export type HistoryIo = { stdout: (line: string) => void; stderr: (line: string) => void; env: Record<string, string | undefined> }

export type HistoryArgs = { sessionID?: string; json: boolean } | { usage: string }

/** A tail shorter than this could name several sessions by chance. */
const MIN_TAIL = 6

export function parseHistoryArgs(argv: readonly string[]): HistoryArgs {
  let sessionID: string | undefined
  let json = false
  for (const arg of argv) {
    if (arg === "--json") json = true
    else if (arg.startsWith("-")) return { usage: `unknown option ${printable(arg)} for history` }
    else if (sessionID !== undefined) return { usage: `too many arguments for history (unexpected ${printable(arg)})` }
    else {
      const problem = sessionIdProblem(arg)
      if (problem) return { usage: `invalid session id ${printable(arg)}: ${problem}` }
      sessionID = arg
    }
  }
  return { sessionID, json }
}

/** The session's entries: its exact id, else the one whose id ends with what was given. */
function ofSession(entries: readonly JournalEntry[], id: string | undefined): JournalEntry[] {
  if (id === undefined) return [...entries]
  const exact = entries.filter((e) => e.sessionID === id)
  if (exact.length > 0 || id.length < MIN_TAIL) return exact
  return entries.filter((e) => e.sessionID.endsWith(id))
}

/** Prints the history; never fails: a missing or unreadable file is an empty history. */
export async function runHistory(args: Exclude<HistoryArgs, { usage: string }>, io: HistoryIo): Promise<void> {
  const file = journalFilePath(io.env)
  const read = readJournal(file)
  if (read.skipped > 0) io.stderr(`auto-resume-toggle: note: ${read.skipped} line(s) of ${file} are not history entries and were skipped`)
  const entries = newestOf(ofSession(read.entries, args.sessionID), undefined, Number.MAX_SAFE_INTEGER)
  if (args.json) {
    for (const e of entries) io.stdout(journalLine(e))
    return
  }
  if (entries.length === 0) {
    io.stdout(args.sessionID ? `No interventions recorded for session ${args.sessionID} (${file}).` : `No interventions recorded (${file}).`)
    return
  }
  io.stdout(journalTable(entries))
}
