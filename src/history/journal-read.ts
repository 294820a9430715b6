/**
 * Reads the history back: the previous file, then the current one, oldest first. A line that is
 * not an entry is skipped with one debug line (up to a few per read); a file too large is read
 * from its tail only, so a foreign or runaway file cannot make a read unbounded.
 */
import nodeFs from "node:fs"
import type { JournalEntry } from "../core/journal.ts"
import { parseJournalLine } from "./journal-line.ts"
import { previousJournalPath } from "./journal-path.ts"
import { JOURNAL_MAX_BYTES } from "./journal-file.ts"

/** What one read takes of a file at most: its newest bytes beyond the rotation size, with margin. */
export const MAX_JOURNAL_READ_BYTES = 2 * JOURNAL_MAX_BYTES
const MAX_DEBUG_LINES = 5

export type JournalRead = { entries: JournalEntry[]; skipped: number }

export type JournalReadOptions = { debug?: (message: string) => void; fs?: Pick<typeof nodeFs.promises, "open"> }

export async function readJournal(file: string, options: JournalReadOptions = {}): Promise<JournalRead> {
  const result: JournalRead = { entries: [], skipped: 0 }
  let debugged = 0
  const debug = (message: string) => {
    if (debugged++ < MAX_DEBUG_LINES) options.debug?.(message)
  }
  for (const path of [previousJournalPath(file), file]) {
    const text = await readTail(path, options.fs ?? nodeFs.promises, debug)
    if (text === undefined) continue
    const lines = text.split("\n")
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim()
      if (line === "") continue
      const parsed = parseJournalLine(line)
      if (parsed.ok) result.entries.push(parsed.entry)
      else {
        result.skipped++
        debug(`history: ${path} line ${i + 1} skipped: ${parsed.why}`)
      }
    }
  }
  return result
}

/** The newest entries of one session (or of all), oldest first. */
export function newestOf(entries: readonly JournalEntry[], sessionID: string | undefined, limit: number): JournalEntry[] {
  const mine = sessionID === undefined ? entries : entries.filter((e) => e.sessionID === sessionID)
  return [...mine].sort((a, b) => a.time - b.time).slice(-Math.max(0, limit))
}

async function readTail(path: string, fs: Pick<typeof nodeFs.promises, "open">, debug: (m: string) => void): Promise<string | undefined> {
  let handle: nodeFs.promises.FileHandle
  try {
    handle = await fs.open(path, "r")
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code !== "ENOENT") debug(`history: cannot open ${path}: ${(error as Error)?.message ?? String(error)}`)
    return undefined
  }
  try {
    const size = (await handle.stat()).size
    const length = Math.min(size, MAX_JOURNAL_READ_BYTES)
    const buffer = Buffer.alloc(length)
    await handle.read(buffer, 0, length, size - length)
    let text = buffer.toString("utf8")
    // Read from the middle of the file: the first line is a fragment.
    if (length < size) text = text.slice(text.indexOf("\n") + 1)
    return text
  } catch (error) {
    debug(`history: cannot read ${path}: ${(error as Error)?.message ?? String(error)}`)
    return undefined
  } finally {
    await handle.close().catch(() => undefined)
  }
}
