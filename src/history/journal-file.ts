/**
 * Appends history entries to the journal file without ever holding up the plugin: `append` only
 * queues the line (bounded; the oldest lines go first when the disk cannot keep up) and the queue
 * is written by one asynchronous append at a time. Past `maxBytes` the file is renamed to
 * `<file>.1` (the one previous file kept) and a new one begun. The file and the folder are the
 * user's alone (0600, 0700). Failures are reported once per kind and never thrown.
 */
import nodeFs from "node:fs"
import path from "node:path"
import type { JournalEntry } from "../core/journal.ts"
import type { LogLevel } from "../core/port.ts"
import { journalLine } from "./journal-line.ts"
import { previousJournalPath } from "./journal-path.ts"

export const JOURNAL_MAX_BYTES = 1024 * 1024
/** Lines waiting for the disk; past it the oldest are dropped (and counted in the log). */
export const JOURNAL_MAX_QUEUED = 256

export type JournalFs = Pick<typeof nodeFs.promises, "mkdir" | "stat" | "rename" | "open">

export type JournalFileOptions = {
  file: string
  maxBytes?: number
  maxQueued?: number
  fs?: JournalFs
  log?: (level: LogLevel, message: string) => void
}

export class JournalFile {
  readonly file: string
  private readonly maxBytes: number
  private readonly maxQueued: number
  private readonly fs: JournalFs
  private readonly log: (level: LogLevel, message: string) => void
  private queue: string[] = []
  private dropped = 0
  private draining: Promise<void> | undefined
  private readonly reported = new Set<string>()

  constructor(options: JournalFileOptions) {
    this.file = options.file
    this.maxBytes = options.maxBytes ?? JOURNAL_MAX_BYTES
    this.maxQueued = Math.max(1, options.maxQueued ?? JOURNAL_MAX_QUEUED)
    this.fs = options.fs ?? nodeFs.promises
    this.log = options.log ?? (() => undefined)
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
   * may exit before an asynchronous write would run. Never throws.
   */
  flushNow(): void {
    if (this.queue.length === 0) return
    const lines = this.queue
    this.queue = []
    try {
      nodeFs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 })
      const text = `${lines.join("\n")}\n`
      let size = 0
      try {
        size = nodeFs.statSync(this.file).size
      } catch {
        // No file yet.
      }
      if (size > 0 && size + Buffer.byteLength(text) > this.maxBytes) nodeFs.renameSync(this.file, previousJournalPath(this.file))
      nodeFs.appendFileSync(this.file, text, { mode: 0o600 })
      nodeFs.chmodSync(this.file, 0o600)
    } catch (error) {
      this.report(`write:${code(error)}`, `history: could not write ${this.file}: ${describe(error)}`)
    }
  }

  private async drain(): Promise<void> {
    // Let the caller's turn finish first: entries made together go out in one write.
    await Promise.resolve()
    try {
      while (this.queue.length > 0) {
        const lines = this.queue
        this.queue = []
        if (this.dropped > 0) {
          this.report("dropped", `history: ${this.dropped} entries dropped (the disk did not keep up)`)
          this.dropped = 0
        }
        await this.write(`${lines.join("\n")}\n`)
      }
    } finally {
      this.draining = undefined
    }
  }

  private async write(text: string): Promise<void> {
    try {
      await this.fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 })
      await this.rotateFor(Buffer.byteLength(text))
      const handle = await this.fs.open(this.file, "a", 0o600)
      try {
        // An existing file made by someone else's umask is narrowed too: entries quote the user's sessions.
        await handle.chmod(0o600)
        await handle.appendFile(text)
      } finally {
        await handle.close()
      }
    } catch (error) {
      this.report(`write:${code(error)}`, `history: could not write ${this.file}: ${describe(error)}`)
    }
  }

  private async rotateFor(bytes: number): Promise<void> {
    let size = 0
    try {
      size = (await this.fs.stat(this.file)).size
    } catch (error) {
      if (code(error) === "ENOENT") return
      throw error
    }
    if (size > 0 && size + bytes > this.maxBytes) await this.fs.rename(this.file, previousJournalPath(this.file))
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

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? "error"
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException | undefined
  return e?.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ""}` : error instanceof Error ? error.message : String(error)
}
