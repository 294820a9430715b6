/**
 * The pause marker file: locked read-modify-writes go through a 0600 temp file in the same folder
 * renamed over the marker, so a reader (which takes no lock) never sees half a file.
 */
import nodeFs from "node:fs"
import path from "node:path"
import { MAX_PAUSE_FILE_BYTES, checkedState, emptyPauseState, parsePauseFile, serializePauseState, type PauseState, type ReadResult } from "./marker-format.ts"
import { AtomicFileWriter, PauseFileError, describe, errno, orElse, type MarkerFs } from "./marker-io.ts"
import { MarkerLock, type LockOptions } from "./marker-lock.ts"

export type MarkerFileOptions = LockOptions & { fs?: MarkerFs; now?: () => number; pid?: number }

export class PauseMarkerFile {
  readonly path: string
  readonly lockPath: string
  private readonly fs: MarkerFs
  private readonly now: () => number
  private readonly pid: number
  private readonly fileLock: MarkerLock
  private readonly writer: AtomicFileWriter

  constructor(filePath: string, options: MarkerFileOptions = {}) {
    this.path = filePath
    this.lockPath = `${filePath}.lock`
    this.fs = options.fs ?? nodeFs
    this.now = options.now ?? Date.now
    this.pid = options.pid ?? process.pid
    this.writer = new AtomicFileWriter(this.fs, filePath, this.pid, this.now)
    this.fileLock = new MarkerLock({
      ...options,
      lockPath: this.lockPath,
      fs: this.fs,
      now: this.now,
      pid: this.pid,
      uniqueSuffix: () => this.writer.uniqueSuffix(),
      ensureDir: () => this.writer.ensureDir(),
    })
  }

  /**
   * A cheap fingerprint of the file as it is now (a stat, no read), or "absent". Every write
   * renames a new file into place, so the inode changes even when size and mtime do not.
   * Throws PauseFileError on I/O errors other than a missing file.
   */
  signature(): string {
    try {
      const st = this.fs.statSync(this.path)
      return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
    } catch (error) {
      if (errno(error) === "ENOENT") return "absent"
      throw new PauseFileError(`cannot stat ${this.path}: ${describe(error)}`)
    }
  }

  /** Reads the marker without a lock. A missing file is an empty state. Throws PauseFileError on I/O errors. */
  read(): ReadResult {
    let fd: number
    try {
      fd = this.fs.openSync(this.path, "r")
    } catch (error) {
      if (errno(error) === "ENOENT") return { state: emptyPauseState() }
      throw new PauseFileError(`cannot open ${this.path}: ${describe(error)}`)
    }
    try {
      if (!this.fs.fstatSync(fd).isFile()) return { state: emptyPauseState(), problem: "it is not a regular file" }
      // One byte past the limit is enough to know the file is too large, however fast it grows.
      const buffer = Buffer.alloc(MAX_PAUSE_FILE_BYTES + 1)
      let length = 0
      let n: number
      do {
        n = this.fs.readSync(fd, buffer, length, buffer.length - length, null)
        length += Math.max(0, n)
      } while (n > 0 && length < buffer.length)
      if (length > MAX_PAUSE_FILE_BYTES) return { state: emptyPauseState(), problem: `it is larger than ${MAX_PAUSE_FILE_BYTES} bytes` }
      return parsePauseFile(buffer.subarray(0, length).toString("utf8"))
    } catch (error) {
      throw new PauseFileError(`cannot read ${this.path}: ${describe(error)}`)
    } finally {
      orElse(() => this.fs.closeSync(fd), undefined)
    }
  }

  /**
   * Read-modify-write under the lock. `change` gets the current state (empty when the file is
   * missing or malformed) and returns the new one; the result is validated, written atomically
   * and returned along with any problem found in the old file. Throws PauseFileError.
   */
  async update(change: (state: PauseState) => PauseState): Promise<{ state: PauseState; problem?: string }> {
    const token = await this.fileLock.acquire()
    try {
      return this.rewrite(change)
    } finally {
      this.fileLock.release(token)
    }
  }

  /**
   * The same, synchronously and only if the lock is free right now; false when it was not
   * (nothing changed). For a process on its way out, which cannot wait. Throws PauseFileError.
   */
  updateNow(change: (state: PauseState) => PauseState): boolean {
    const token = this.fileLock.tryAcquireNow()
    if (token === undefined) return false
    try {
      this.rewrite(change)
      return true
    } finally {
      this.fileLock.release(token)
    }
  }

  private rewrite(change: (state: PauseState) => PauseState): { state: PauseState; problem?: string } {
    const current = this.read()
    // A copy, so the caller's change may edit what it is given freely.
    const next = checkedState(change(structuredClone(current.state)))
    this.writer.write(serializePauseState(next))
    return { state: next, problem: current.problem }
  }
}
