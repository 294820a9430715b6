/**
 * The history of interventions on disk: `auto-resume.history.jsonl` in the state folder
 * (atomic-file.ts), one JSON line per entry, appended by every OpenCode process of the user and
 * read back by `/auto-resume history` and `auto-resume-toggle history`.
 *
 * Writing never holds up the plugin: `append` only queues the line (bounded; the oldest lines go
 * first when the disk cannot keep up) and the queue is written in the background, one batch at a
 * time, as one O_APPEND write to a 0600 file. Past `maxBytes` the file is renamed to `<file>.1`
 * (the one previous file kept) and a new one begun; that rotation runs under the state files'
 * lock, so two processes never both rotate (the second would put the new file over the kept
 * one). A batch that cannot get the lock is appended all the same and the rotation waits for a
 * later write. Failures are reported once per kind and never thrown.
 *
 * Reading takes the previous file, then the current one, oldest first, each from its tail only
 * (bounded); a line that is not an entry is skipped with a debug line (up to a few per read).
 */
import nodeFs from "node:fs"
import { JOURNAL_OUTCOMES, cappedEntry, type JournalEntry, type JournalOutcome } from "../core/journal.ts"
import type { LogLevel } from "../core/port.ts"
import { AtomicFile, StateFileError, describe, errno, errorMessage, readBounded, stateFilePath, type AtomicFileOptions } from "./atomic-file.ts"

export const JOURNAL_FILE_NAME = "auto-resume.history.jsonl"
export const JOURNAL_MAX_BYTES = 1024 * 1024
/** Lines waiting for the disk; past it the oldest are dropped (and counted in the log). */
export const JOURNAL_MAX_QUEUED = 256
/** A line longer than this was not written by us (entries are capped far below it). */
export const MAX_JOURNAL_LINE = 4096
/** What one read takes of a file at most: its newest bytes beyond the rotation size, with margin. */
export const MAX_JOURNAL_READ_BYTES = 2 * JOURNAL_MAX_BYTES
const MAX_DEBUG_LINES = 5

/** The rotated file keeps the previous megabyte: `<file>.1`. */
export const previousJournalPath = (file: string): string => `${file}.1`

export function journalFilePath(env: Record<string, string | undefined> = process.env): string {
  return stateFilePath(JOURNAL_FILE_NAME, env)
}

/** One entry as one line; the time is an ISO date, so the file reads well with `tail` and `jq`. */
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

/** A line back as an entry, or why it is not one. */
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

export type JournalFileOptions = AtomicFileOptions & {
  file: string
  maxBytes?: number
  maxQueued?: number
  log?: (level: LogLevel, message: string) => void
}

export class JournalFile {
  readonly file: string
  private readonly store: AtomicFile
  private readonly maxBytes: number
  private readonly maxQueued: number
  private readonly log: (level: LogLevel, message: string) => void
  private queue: string[] = []
  private dropped = 0
  private draining: Promise<void> | undefined
  private readonly reported = new Set<string>()

  constructor(options: JournalFileOptions) {
    const { file, maxBytes, maxQueued, log, ...storeOptions } = options
    this.file = file
    this.maxBytes = maxBytes ?? JOURNAL_MAX_BYTES
    this.maxQueued = Math.max(1, maxQueued ?? JOURNAL_MAX_QUEUED)
    this.log = log ?? (() => undefined)
    this.store = new AtomicFile(file, this.maxBytes, storeOptions)
  }

  /** Queues one entry; returns at once. Never throws. */
  append(entry: JournalEntry): void {
    try {
      this.queue.push(journalLine(entry))
      if (this.queue.length > this.maxQueued) {
        this.queue.shift()
        this.dropped++
      }
      this.draining ??= this.drain()
    } catch (error) {
      this.report("queue", `history entry not kept: ${describe(error)}`)
    }
  }

  /** Settles once every line queued so far is written (or given up on). */
  async flushed(): Promise<void> {
    while (this.draining) await this.draining
  }

  /**
   * Writes what is queued now, synchronously: for the instance's stop, after which the process
   * may exit before an asynchronous write would run. A lock that is not free right now is not
   * waited for (the rotation is left to a later write). Never throws.
   */
  flushNow(): void {
    if (this.queue.length === 0) return
    const text = this.takeQueued()
    let inside = false
    try {
      const done = this.store.lockedNow(() => {
        inside = true
        this.rotateAndAppend(text)
      })
      if (!done) this.appendUnlocked(text, "the lock was busy")
    } catch (error) {
      if (inside) this.reportWrite(error)
      else this.appendUnlocked(text, errorMessage(error))
    }
  }

  private async drain(): Promise<void> {
    // Let the caller's turn finish first: entries made together go out in one write.
    await Promise.resolve()
    try {
      while (this.queue.length > 0) {
        if (this.dropped > 0) {
          this.report("dropped", `history: ${this.dropped} entries dropped (the disk did not keep up)`)
          this.dropped = 0
        }
        await this.write(this.takeQueued())
      }
    } finally {
      this.draining = undefined
    }
  }

  private takeQueued(): string {
    const lines = this.queue
    this.queue = []
    return `${lines.join("\n")}\n`
  }

  private async write(text: string): Promise<void> {
    let inside = false
    try {
      await this.store.locked(() => {
        inside = true
        this.rotateAndAppend(text)
      })
    } catch (error) {
      if (inside) this.reportWrite(error)
      else this.appendUnlocked(text, errorMessage(error))
    }
  }

  /** Under the lock: the file renamed to `<file>.1` when this batch would take it past the cap, then the append. */
  private rotateAndAppend(text: string): void {
    let size = 0
    try {
      size = this.store.fs.statSync(this.file).size
    } catch (error) {
      if (errno(error) !== "ENOENT") throw error
    }
    if (size > 0 && size + Buffer.byteLength(text) > this.maxBytes) this.store.fs.renameSync(this.file, previousJournalPath(this.file))
    this.store.append(text)
  }

  /** The lock could not be had: one O_APPEND write needs none, only the rotation does. */
  private appendUnlocked(text: string, why: string): void {
    try {
      this.store.append(text)
    } catch (error) {
      this.reportWrite(error)
      return
    }
    this.report("lock", `history: ${this.file} was appended to without its lock (${why}); it is rotated at a later write`)
  }

  private reportWrite(error: unknown): void {
    const cause = error instanceof StateFileError && error.cause !== undefined ? error.cause : error
    this.report(`write:${errno(cause) ?? "error"}`, `history: could not write ${this.file}: ${describe(cause)}`)
  }

  private report(kind: string, message: string): void {
    if (this.reported.has(kind)) return
    this.reported.add(kind)
    try {
      this.log("warn", message)
    } catch {
      // Logging must not break the history.
    }
  }
}

export type JournalRead = { entries: JournalEntry[]; skipped: number }

/** The entries of the previous file, then the current one, oldest first. Never throws. */
export function readJournal(file: string, options: { debug?: (message: string) => void } = {}): JournalRead {
  const result: JournalRead = { entries: [], skipped: 0 }
  let debugged = 0
  const debug = (message: string) => {
    if (debugged++ < MAX_DEBUG_LINES) options.debug?.(message)
  }
  for (const path of [previousJournalPath(file), file]) {
    let text: string | undefined
    try {
      const read = readBounded(nodeFs, path, MAX_JOURNAL_READ_BYTES, true)
      if (read.problem !== undefined) debug(`history: ${path} skipped: ${read.problem}`)
      text = read.text
    } catch (error) {
      debug(`history: ${errorMessage(error)}`)
    }
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

/** A running plugin's history (HostPort.journal appends to it). One per instance; every process appends to the same file. */
export function historyStore(env: Record<string, string | undefined>, log: (level: LogLevel, message: string) => void): HistoryStore {
  const file = journalFilePath(env)
  const writer = new JournalFile({ file, log })
  return {
    file,
    append: (entry) => writer.append(entry),
    recent: async (sessionID, limit) => {
      // What is still queued is part of the answer: the user asks right after the plugin acted.
      await writer.flushed()
      const { entries } = readJournal(file, { debug: (m) => log("debug", m) })
      const mine = newestOf(entries, sessionID, Number.MAX_SAFE_INTEGER)
      return { entries: mine.slice(-limit), total: mine.length }
    },
    flushed: () => writer.flushed(),
    close: () => writer.flushNow(),
  }
}
