/**
 * The writers' lock around the pause marker's read-modify-write, so concurrent writers (the
 * plugin in several OpenCode processes, the toggle CLI) never drop each other's entries.
 *
 * The lock is a file `<marker>.lock` created with O_EXCL, holding its owner's pid, host and a
 * token. A lock whose owner died (same host, pid gone) or that is older than LOCK_STALE_MS is
 * broken; a writer that cannot get the lock within LOCK_TIMEOUT_MS gives up with an error.
 * Readers take no lock: writes are atomic renames (marker-file.ts).
 */
import { PauseFileError, describe, errno, type MarkerFs } from "./marker-io.ts"

/** A lock held longer than this is presumed abandoned (a holder keeps it for milliseconds). */
export const LOCK_STALE_MS = 10_000
/** How long a writer waits for the lock before giving up. */
export const LOCK_TIMEOUT_MS = 5_000

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

/** What the lock needs from the store that owns it; every clock and process check is injectable for tests. */
export type MarkerLockDeps = {
  lockPath: string
  fs: MarkerFs
  now: () => number
  sleep: (ms: number) => Promise<void>
  pid: number
  hostname: string
  isAlive: (pid: number) => boolean
  lockTimeoutMs: number
  lockStaleMs: number
  /** The store's name generator, shared so every name this process makes (temp files, tokens) is distinct. */
  uniqueSuffix: () => string
  /** The lock file sits next to the marker, so the folder must exist first. */
  ensureDir: () => void
}

export class MarkerLock {
  readonly lockPath: string
  private readonly fs: MarkerFs
  private readonly now: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private readonly pid: number
  private readonly hostname: string
  private readonly isAlive: (pid: number) => boolean
  private readonly lockTimeoutMs: number
  private readonly lockStaleMs: number
  private readonly uniqueSuffix: () => string
  private readonly ensureDir: () => void

  constructor(deps: MarkerLockDeps) {
    this.lockPath = deps.lockPath
    this.fs = deps.fs
    this.now = deps.now
    this.sleep = deps.sleep
    this.pid = deps.pid
    this.hostname = deps.hostname
    this.isAlive = deps.isAlive
    this.lockTimeoutMs = deps.lockTimeoutMs
    this.lockStaleMs = deps.lockStaleMs
    this.uniqueSuffix = deps.uniqueSuffix
    this.ensureDir = deps.ensureDir
  }

  /** Takes the lock, waiting with jittered backoff; returns the token `release` needs. Throws PauseFileError. */
  async acquire(): Promise<string> {
    this.ensureDir()
    const token = this.uniqueSuffix()
    const deadline = this.now() + this.lockTimeoutMs
    let wait = 2
    let holder = "another writer"
    for (let attempt = 0; ; attempt++) {
      if (this.tryCreateLock(token)) return token
      const existing = this.inspectLock()
      // Gone between our attempt and the look, or stale and now broken: try again at once
      // (bounded, in case something keeps recreating it).
      if (!existing && attempt < 100) continue
      if (existing?.stale && attempt < 100) {
        this.breakStaleLock(existing.raw)
        continue
      }
      if (existing?.info) holder = `pid ${existing.info.pid} on ${existing.info.host}`
      if (this.now() >= deadline) throw new PauseFileError(`timed out waiting for the lock ${this.lockPath} (held by ${holder})`)
      await this.sleep(wait + Math.floor(Math.random() * wait))
      wait = Math.min(wait * 2, 50)
    }
  }

  /** Takes the lock only if it is free (or stale) right now; undefined otherwise. Throws PauseFileError. */
  tryAcquireNow(): string | undefined {
    this.ensureDir()
    const token = this.uniqueSuffix()
    if (this.tryCreateLock(token)) return token
    const existing = this.inspectLock()
    if (existing?.stale) {
      this.breakStaleLock(existing.raw)
      if (this.tryCreateLock(token)) return token
    }
    return undefined
  }

  private tryCreateLock(token: string): boolean {
    let fd: number
    try {
      fd = this.fs.openSync(this.lockPath, "wx", 0o600)
    } catch (error) {
      if (errno(error) === "EEXIST") return false
      throw new PauseFileError(`cannot create the lock ${this.lockPath}: ${describe(error)}`)
    }
    try {
      const info: LockInfo = { pid: this.pid, host: this.hostname, token, at: this.now() }
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
      throw new PauseFileError(`cannot inspect the lock ${this.lockPath}: ${describe(error)}`)
    }
    let info: LockInfo | undefined
    try {
      const parsed = JSON.parse(raw) as LockInfo
      if (typeof parsed?.pid === "number" && typeof parsed.host === "string" && typeof parsed.token === "string") info = parsed
    } catch {
      // Being written right now, or junk: only age can tell.
    }
    const old = this.now() - mtimeMs > this.lockStaleMs
    const deadOwner = info !== undefined && info.host === this.hostname && info.pid !== this.pid && !this.isAlive(info.pid)
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
      throw new PauseFileError(`cannot break the stale lock ${this.lockPath}: ${describe(error)}`)
    }
    let moved = ""
    try {
      moved = String(this.fs.readFileSync(aside, "utf8"))
    } catch {
      // Unreadable: treat as the stale one.
      moved = observed
    }
    if (moved !== observed) {
      try {
        this.fs.linkSync(aside, this.lockPath)
      } catch {
        // A newer lock already exists; its owner wins.
      }
    }
    try {
      this.fs.unlinkSync(aside)
    } catch {
      // Gone already.
    }
  }

  /** Removes the lock if it is still ours; never throws. */
  release(token: string): void {
    try {
      const raw = String(this.fs.readFileSync(this.lockPath, "utf8"))
      const info = JSON.parse(raw) as LockInfo
      if (info?.token !== token) return // not ours any more (it was judged stale and broken)
      this.fs.unlinkSync(this.lockPath)
    } catch {
      // Missing or unreadable: nothing of ours to remove.
    }
  }
}
