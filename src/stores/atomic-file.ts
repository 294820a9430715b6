/**
 * The one way the plugin's state files (the pause marker, the rate-limit wait file, the history)
 * reach the disk: one folder, one bounded read, one lock, one atomic write.
 *
 * - Folder: `$XDG_CONFIG_HOME/opencode/`, or `~/.config/opencode/` when XDG_CONFIG_HOME is unset or
 *   not absolute; created 0700. Every file in it is 0600: entries name the user's sessions.
 * - Read: without a lock (writes are atomic), never more than the file's bound: a larger file is
 *   refused with a `problem`, or read from its tail where the caller asks for that (the history).
 * - Lock: `<file>.lock`, created with O_EXCL and holding its owner's pid, host and a token, so
 *   concurrent writers (the plugin in several OpenCode processes, the toggle CLI) never drop each
 *   other's changes. A lock whose owner died (same host, pid gone) or older than LOCK_STALE_MS is
 *   broken; a writer that cannot get it within LOCK_TIMEOUT_MS gives up with an error.
 * - Write: a 0600 temp file in the same folder, fsynced and renamed over the file, so a reader never
 *   sees half a file; content over the bound is refused and the file left as it was. The history
 *   appends instead (one O_APPEND write), so lines from any process land whole and none is lost to
 *   a rename.
 */
import nodeFs from "node:fs"
import os from "node:os"
import path from "node:path"

/** The synchronous fs calls of every store, a seam so tests can substitute failing ones. */
export type StoreFs = Pick<
  typeof nodeFs,
  | "openSync"
  | "closeSync"
  | "readSync"
  | "writeSync"
  | "fsyncSync"
  | "fstatSync"
  | "fchmodSync"
  | "statSync"
  | "readFileSync"
  | "renameSync"
  | "unlinkSync"
  | "linkSync"
  | "mkdirSync"
>

/** Every failure of a store: I/O (the errno error is its `cause`), a refused content, a lock that never came free. */
export class StateFileError extends Error {
  override readonly name = "StateFileError"
}

export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

/** A short reason for an error message: the errno code and syscall, else the message. */
export function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException | undefined
  return e?.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ""}` : error instanceof Error ? error.message : String(error)
}

/** `step()`, or `fallback` when it throws: for best-effort steps whose failure changes nothing that matters. */
export function orElse<T>(step: () => T, fallback: T): T {
  try {
    return step()
  } catch {
    return fallback
  }
}

/** An error's own message, for log lines that name what failed themselves. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Where the state file `name` lives (see the folder above). */
export function stateFilePath(name: string, env: Record<string, string | undefined> = process.env, homedir: () => string = os.homedir): string {
  const xdg = env.XDG_CONFIG_HOME
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir(), ".config")
  return path.join(base, "opencode", name)
}

/** What a read found: no `text` and no `problem` means there is no file. */
export type BoundedRead = { text?: string; problem?: string }

/**
 * The file's text, never more than `maxBytes` of it. A file that is not a regular file, or (unless
 * `tail`) larger than `maxBytes`, is a `problem`; with `tail` the last `maxBytes` bytes are read,
 * from the first whole line. Throws StateFileError on I/O errors other than a missing file.
 */
export function readBounded(fs: StoreFs, filePath: string, maxBytes: number, tail = false): BoundedRead {
  try {
    // A stat first: opening a FIFO or a device to read could block.
    if (!fs.statSync(filePath).isFile()) return { problem: "it is not a regular file" }
  } catch (error) {
    if (errno(error) === "ENOENT") return {}
    throw new StateFileError(`cannot stat ${filePath}: ${describe(error)}`, { cause: error })
  }
  let fd: number
  try {
    fd = fs.openSync(filePath, "r")
  } catch (error) {
    if (errno(error) === "ENOENT") return {}
    throw new StateFileError(`cannot open ${filePath}: ${describe(error)}`, { cause: error })
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) return { problem: "it is not a regular file" }
    const start = tail ? Math.max(0, st.size - maxBytes) : 0
    // One byte past the bound is enough to know the file is too large, however fast it grows.
    const cap = tail ? maxBytes : maxBytes + 1
    let buffer = Buffer.alloc(Math.min(cap, st.size - start + 1))
    let length = 0
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, start + length)
      if (n <= 0) break
      length += n
      if (length < buffer.length) continue
      if (buffer.length >= cap) break
      const grown = Buffer.alloc(Math.min(cap, buffer.length * 2))
      buffer.copy(grown)
      buffer = grown
    }
    if (!tail && length > maxBytes) return { problem: `it is larger than ${maxBytes} bytes` }
    const text = buffer.subarray(0, length).toString("utf8")
    // Read from the middle of the file: the first line is a fragment.
    return { text: start > 0 ? text.slice(text.indexOf("\n") + 1) : text }
  } catch (error) {
    throw new StateFileError(`cannot read ${filePath}: ${describe(error)}`, { cause: error })
  } finally {
    orElse(() => fs.closeSync(fd), undefined)
  }
}

/** A lock held longer than this is presumed abandoned (a holder keeps it for milliseconds). */
const LOCK_STALE_MS = 10_000
/** How long a writer waits for the lock before giving up. */
const LOCK_TIMEOUT_MS = 5_000

type LockInfo = { pid: number; host: string; token: string; at: number }

/** Whether a process with this pid is alive on this host (EPERM: alive, just not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** What a test may substitute: every clock and process check of the lock. */
export type LockOptions = {
  sleep?: (ms: number) => Promise<void>
  hostname?: string
  /** Whether a process with this pid is alive on this host. */
  isAlive?: (pid: number) => boolean
  lockTimeoutMs?: number
  lockStaleMs?: number
}

export type AtomicFileOptions = LockOptions & { fs?: StoreFs; now?: () => number; pid?: number }

/** One state file: bounded reads, changes under its lock, atomic replacement or appends. */
export class AtomicFile {
  readonly lockPath: string
  readonly fs: StoreFs
  private readonly now: () => number
  private readonly pid: number
  private readonly lock: Required<LockOptions>
  private seq = 0

  constructor(
    readonly path: string,
    /** The largest file read or written whole. */
    readonly maxBytes: number,
    options: AtomicFileOptions = {},
  ) {
    this.lockPath = `${path}.lock`
    this.fs = options.fs ?? nodeFs
    this.now = options.now ?? Date.now
    this.pid = options.pid ?? process.pid
    this.lock = {
      sleep: options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
      hostname: options.hostname ?? os.hostname(),
      isAlive: options.isAlive ?? processAlive,
      lockTimeoutMs: options.lockTimeoutMs ?? LOCK_TIMEOUT_MS,
      lockStaleMs: options.lockStaleMs ?? LOCK_STALE_MS,
    }
  }

  /** Without a lock, at most `maxBytes` (readBounded). Throws StateFileError. */
  read(): BoundedRead {
    return readBounded(this.fs, this.path, this.maxBytes)
  }

  /**
   * A cheap fingerprint of the file as it is now (a stat, no read), or "absent". Every replacement
   * renames a new file into place, so the inode changes even when size and mtime do not.
   * Throws StateFileError on I/O errors other than a missing file.
   */
  signature(): string {
    try {
      const st = this.fs.statSync(this.path)
      return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
    } catch (error) {
      if (errno(error) === "ENOENT") return "absent"
      throw new StateFileError(`cannot stat ${this.path}: ${describe(error)}`, { cause: error })
    }
  }

  exists(): boolean {
    try {
      this.fs.statSync(this.path)
      return true
    } catch {
      return false
    }
  }

  /** Creates the folder (0700). Throws StateFileError. */
  ensureDir(): void {
    const dir = path.dirname(this.path)
    try {
      this.fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    } catch (error) {
      throw new StateFileError(`cannot create ${dir}: ${describe(error)}`, { cause: error })
    }
  }

  /** Replaces the file with `content` atomically (temp file, fsync, rename), 0600; past `maxBytes` refused. Throws StateFileError. */
  replace(content: string): void {
    const bytes = Buffer.from(content, "utf8")
    if (bytes.length > this.maxBytes) throw new StateFileError(`cannot write ${this.path}: ${bytes.length} bytes is over its bound of ${this.maxBytes}`)
    this.ensureDir()
    const tmp = `${this.path}.${this.uniqueSuffix()}.tmp`
    let fd: number | undefined
    try {
      fd = this.fs.openSync(tmp, "wx", 0o600)
      this.fs.fchmodSync(fd, 0o600)
      this.writeAll(fd, bytes)
      this.fs.fsyncSync(fd)
      this.fs.closeSync(fd)
      fd = undefined
      this.fs.renameSync(tmp, this.path)
    } catch (error) {
      // Already failing, and the temp file may never have been created: clean up what there is.
      if (fd !== undefined) orElse(() => this.fs.closeSync(fd!), undefined)
      orElse(() => this.fs.unlinkSync(tmp), undefined)
      throw new StateFileError(`cannot write ${this.path}: ${describe(error)}`, { cause: error })
    }
  }

  /** Appends `content` in one O_APPEND write; the file (new or made by someone else's umask) is 0600. Throws StateFileError. */
  append(content: string): void {
    this.ensureDir()
    let fd: number | undefined
    try {
      fd = this.fs.openSync(this.path, "a", 0o600)
      this.fs.fchmodSync(fd, 0o600)
      this.writeAll(fd, Buffer.from(content, "utf8"))
    } catch (error) {
      throw new StateFileError(`cannot write ${this.path}: ${describe(error)}`, { cause: error })
    } finally {
      if (fd !== undefined) orElse(() => this.fs.closeSync(fd!), undefined)
    }
  }

  /** Runs `step` holding the lock, waiting for it with jittered backoff. Throws StateFileError. */
  async locked<T>(step: () => T): Promise<T> {
    const token = await this.acquire()
    try {
      return step()
    } finally {
      this.release(token)
    }
  }

  /**
   * The same, synchronously and only if the lock is free (or stale) right now: undefined when it
   * was not, and `step` did not run. For a process on its way out, which cannot wait. Throws StateFileError.
   */
  lockedNow<T>(step: () => T): { value: T } | undefined {
    this.ensureDir()
    const token = this.uniqueSuffix()
    if (!this.tryCreateLock(token)) {
      const existing = this.inspectLock()
      if (!existing?.stale) return undefined
      this.breakStaleLock(existing.raw)
      if (!this.tryCreateLock(token)) return undefined
    }
    try {
      return { value: step() }
    } finally {
      this.release(token)
    }
  }

  private writeAll(fd: number, bytes: Buffer): void {
    let written = 0
    while (written < bytes.length) written += this.fs.writeSync(fd, bytes, written, bytes.length - written)
  }

  /** A name no other writer of this file uses at the same moment (temp files, lock tokens). */
  private uniqueSuffix(): string {
    this.seq = (this.seq + 1) % 1_000_000
    return `${this.pid}.${this.now().toString(36)}.${this.seq}.${Math.random().toString(36).slice(2, 8)}`
  }

  private async acquire(): Promise<string> {
    this.ensureDir()
    const token = this.uniqueSuffix()
    const deadline = this.now() + this.lock.lockTimeoutMs
    let wait = 2
    let holder = "another writer"
    for (let attempt = 0; ; attempt++) {
      if (this.tryCreateLock(token)) return token
      const existing = this.inspectLock()
      // Gone between our attempt and the look, or stale and now broken: try again at once
      // (bounded, in case something keeps recreating it).
      if (attempt < 100 && (!existing || existing.stale)) {
        if (existing) this.breakStaleLock(existing.raw)
        continue
      }
      if (existing?.info) holder = `pid ${existing.info.pid} on ${existing.info.host}`
      if (this.now() >= deadline) throw new StateFileError(`timed out waiting for the lock ${this.lockPath} (held by ${holder})`)
      await this.lock.sleep(wait + Math.floor(Math.random() * wait))
      wait = Math.min(wait * 2, 50)
    }
  }

  private tryCreateLock(token: string): boolean {
    let fd: number
    try {
      fd = this.fs.openSync(this.lockPath, "wx", 0o600)
    } catch (error) {
      if (errno(error) === "EEXIST") return false
      throw new StateFileError(`cannot create the lock ${this.lockPath}: ${describe(error)}`, { cause: error })
    }
    try {
      const info: LockInfo = { pid: this.pid, host: this.lock.hostname, token, at: this.now() }
      this.fs.writeSync(fd, JSON.stringify(info))
    } finally {
      this.fs.closeSync(fd)
    }
    return true
  }

  /** The current lock and whether it may be broken; undefined when there is none. */
  private inspectLock(): { raw: string; info?: LockInfo; stale: boolean } | undefined {
    let raw: string
    let mtimeMs: number
    try {
      mtimeMs = this.fs.statSync(this.lockPath).mtimeMs
      raw = String(this.fs.readFileSync(this.lockPath, "utf8"))
    } catch (error) {
      if (errno(error) === "ENOENT") return undefined
      throw new StateFileError(`cannot inspect the lock ${this.lockPath}: ${describe(error)}`, { cause: error })
    }
    // Unparsable: being written right now, or junk; only age can tell.
    const parsed = orElse(() => JSON.parse(raw) as LockInfo | undefined, undefined)
    const info = typeof parsed?.pid === "number" && typeof parsed.host === "string" && typeof parsed.token === "string" ? parsed : undefined
    const old = this.now() - mtimeMs > this.lock.lockStaleMs
    const deadOwner = info !== undefined && info.host === this.lock.hostname && info.pid !== this.pid && !this.lock.isAlive(info.pid)
    return { raw, info, stale: old || deadOwner }
  }

  /**
   * Moves the stale lock aside under a unique name, then checks that what was moved is the
   * lock judged stale. If another writer broke it and took a fresh lock in between, that
   * fresh lock is put back (link fails rather than overwrite a newer one).
   */
  private breakStaleLock(observed: string): void {
    const aside = `${this.lockPath}.stale.${this.uniqueSuffix()}`
    try {
      this.fs.renameSync(this.lockPath, aside)
    } catch (error) {
      if (errno(error) === "ENOENT") return
      throw new StateFileError(`cannot break the stale lock ${this.lockPath}: ${describe(error)}`, { cause: error })
    }
    // Unreadable: treat it as the stale one.
    const moved = orElse(() => String(this.fs.readFileSync(aside, "utf8")), observed)
    // Failing to link back means a newer lock already exists: its owner wins.
    if (moved !== observed) orElse(() => this.fs.linkSync(aside, this.lockPath), undefined)
    orElse(() => this.fs.unlinkSync(aside), undefined)
  }

  /** Removes the lock if it is still ours; never throws. */
  private release(token: string): void {
    // Missing, unreadable or another token (ours was judged stale and broken): nothing of ours to remove.
    const info = orElse(() => JSON.parse(String(this.fs.readFileSync(this.lockPath, "utf8"))) as LockInfo | undefined, undefined)
    if (info?.token === token) orElse(() => this.fs.unlinkSync(this.lockPath), undefined)
  }
}
