/**
 * A running plugin's history: the journal file it appends to (through HostPort.journal) and reads
 * back for `/auto-resume history`. One per instance; every process appends to the same file.
 */
import type { JournalEntry } from "../core/journal.ts"
import type { LogLevel } from "../core/port.ts"
import { JournalFile } from "./journal-file.ts"
import { journalFilePath } from "./journal-path.ts"
import { newestOf, readJournal } from "./journal-read.ts"

export type HistoryStore = {
  readonly file: string
  append(entry: JournalEntry): void
  /** The newest `limit` entries of a session, oldest first, and how many it has in all. */
  recent(sessionID: string, limit: number): Promise<{ entries: JournalEntry[]; total: number }>
  /** Settles once what was appended so far is on disk (tests, and a stop that can wait). */
  flushed(): Promise<void>
  /** Writes what is still queued before the instance goes (synchronously: the process may exit next). */
  close(): void
}

export function historyStore(env: Record<string, string | undefined>, log: (level: LogLevel, message: string) => void): HistoryStore {
  const file = journalFilePath(env)
  const writer = new JournalFile({ file, log })
  return {
    file,
    append: (entry) => writer.append(entry),
    recent: async (sessionID, limit) => {
      // What is still queued is part of the answer: the user asks right after the plugin acted.
      await writer.flushed()
      const { entries } = await readJournal(file, { debug: (m) => log("debug", m) })
      const mine = newestOf(entries, sessionID, Number.MAX_SAFE_INTEGER)
      return { entries: mine.slice(-limit), total: mine.length }
    },
    flushed: () => writer.flushed(),
    close: () => writer.flushNow(),
  }
}
