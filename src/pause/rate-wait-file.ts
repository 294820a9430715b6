/**
 * The rate-limit wait file (`auto-resume.rate-waits.json`, beside the pause marker): read
 * without a lock, changed under a lock of its own (`<file>.lock`, the marker's lock logic),
 * written as a 0600 temp file renamed into place so a reader never sees half a file.
 *
 * A file that cannot be read or parsed is an empty list plus a `problem`; the caller warns
 * once. What goes in and out is decided in core/carried-waits.ts.
 */
import nodeFs from "node:fs"
import path from "node:path"
import { boundedWaits, parseWaits, type CarriedWait } from "../core/carried-waits.ts"
import { pauseFilePath } from "./marker-format.ts"
import { AtomicFileWriter, PauseFileError, describe, errno, type MarkerFs } from "./marker-io.ts"
import { MarkerLock } from "./marker-lock.ts"

export const RATE_WAIT_FILE_NAME = "auto-resume.rate-waits.json"
/** Far more than MAX_CARRIED_WAITS entries take; a bigger file is not ours. */
export const MAX_RATE_WAIT_FILE_BYTES = 256 * 1024

export function rateWaitFilePath(env: Record<string, string | undefined>): string {
  return path.join(path.dirname(pauseFilePath(env)), RATE_WAIT_FILE_NAME)
}

export type WaitRead = { waits: CarriedWait[]; skipped: string[]; problem?: string }

export type RateWaitFileOptions = { fs?: MarkerFs; now?: () => number; sleep?: (ms: number) => Promise<void>; pid?: number }

export class RateWaitFile {
  readonly path: string
  private readonly fs: MarkerFs
  private readonly now: () => number
  private readonly pid: number
  private readonly lock: MarkerLock
  private readonly writer: AtomicFileWriter

  constructor(filePath: string, options: RateWaitFileOptions = {}) {
    this.path = filePath
    this.fs = options.fs ?? nodeFs
    this.now = options.now ?? Date.now
    this.pid = options.pid ?? process.pid
    this.writer = new AtomicFileWriter(this.fs, filePath, this.pid, this.now)
    this.lock = new MarkerLock({
      lockPath: `${filePath}.lock`,
      fs: this.fs,
      now: this.now,
      pid: this.pid,
      ...(options.sleep ? { sleep: options.sleep } : {}),
      uniqueSuffix: () => this.writer.uniqueSuffix(),
      ensureDir: () => this.writer.ensureDir(),
    })
  }

  /** The waits in the file; never throws (a missing file is an empty list, anything wrong a `problem`). */
  read(): WaitRead {
    let text: string
    try {
      const st = this.fs.statSync(this.path)
      if (!st.isFile()) return { waits: [], skipped: [], problem: "it is not a regular file" }
      if (st.size > MAX_RATE_WAIT_FILE_BYTES) return { waits: [], skipped: [], problem: `it is larger than ${MAX_RATE_WAIT_FILE_BYTES} bytes` }
      text = String(this.fs.readFileSync(this.path, "utf8"))
    } catch (error) {
      if (errno(error) === "ENOENT") return { waits: [], skipped: [] }
      return { waits: [], skipped: [], problem: `it cannot be read: ${describe(error)}` }
    }
    if (text.length > MAX_RATE_WAIT_FILE_BYTES) return { waits: [], skipped: [], problem: `it is larger than ${MAX_RATE_WAIT_FILE_BYTES} bytes` }
    if (text.trim() === "") return { waits: [], skipped: [] }
    try {
      return parseWaits(JSON.parse(text))
    } catch (error) {
      return { waits: [], skipped: [], problem: `it is not a wait list (${error instanceof Error ? error.message : String(error)})` }
    }
  }

  /** Read-modify-write under the lock; returns what was read (for its problem) and what was written. Throws PauseFileError. */
  async update(change: (waits: CarriedWait[]) => CarriedWait[]): Promise<{ before: WaitRead; after: CarriedWait[] }> {
    const token = await this.lock.acquire()
    try {
      return this.rewrite(change)
    } finally {
      this.lock.release(token)
    }
  }

  /** The same, synchronously and only if the lock is free now (a process on its way out cannot wait). Throws PauseFileError. */
  updateNow(change: (waits: CarriedWait[]) => CarriedWait[]): boolean {
    const token = this.lock.tryAcquireNow()
    if (token === undefined) return false
    try {
      this.rewrite(change)
      return true
    } finally {
      this.lock.release(token)
    }
  }

  private rewrite(change: (waits: CarriedWait[]) => CarriedWait[]): { before: WaitRead; after: CarriedWait[] } {
    const before = this.read()
    const after = boundedWaits(change(before.waits), this.now())
    // Nothing to keep and nothing there: no file is created for it.
    if (after.length === 0 && before.waits.length === 0 && before.problem === undefined && !this.exists()) return { before, after }
    this.writer.write(JSON.stringify({ waits: after }, null, 1) + "\n")
    return { before, after }
  }

  private exists(): boolean {
    try {
      this.fs.statSync(this.path)
      return true
    } catch {
      return false
    }
  }
}

