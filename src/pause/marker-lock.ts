/**
 * The writers' lock around the pause marker's read-modify-write, so concurrent writers (the
 * plugin in several OpenCode processes, the toggle CLI) never drop each other's entries.
 *
 * The lock is a file `<marker>.lock` created with O_EXCL, holding its owner's pid, host and a
 * token. A lock whose owner died (same host, pid gone) or that is older than LOCK_STALE_MS is
 * broken; a writer that cannot get the lock within LOCK_TIMEOUT_MS gives up with an error.
 * Readers take no lock: writes are atomic renames (marker-file.ts).
 */
import os from "node:os"
import { PauseFileError, describe, errno, orElse, type MarkerFs } from "./marker-io.ts"

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

/** What a test may substitute: every clock and process check. */
export type LockOptions = {
  sleep?: (ms: number) => Promise<void>
  hostname?: string
  /** Whether a process with this pid is alive on this host. */
  isAlive?: (pid: number) => boolean
  lockTimeoutMs?: number
  lockStaleMs?: number
}

/** What the lock needs from the store that owns it. */
export type MarkerLockDeps = LockOptions & {
  lockPath: string
  fs: MarkerFs
  now: () => number
  pid: number
  /** The store's name generator, shared so every name this process makes (temp files, tokens) is distinct. */
  uniqueSuffix: () => string
  /** The lock file sits next to the marker, so the folder must exist first. */
  ensureDir: () => void
}

export class MarkerLock {
  readonly lockPath: string
  private readonly fs: MarkerFs
  private readonly deps: Required<MarkerLockDeps>

  constructor(deps: MarkerLockDeps) {
    this.lockPath = deps.lockPath
    this.fs = deps.fs
    this.deps = {
      ...deps,
      sleep: deps.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
      hostname: deps.hostname ?? os.hostname(),
      isAlive: deps.isAlive ?? processAlive,
      lockTimeoutMs: deps.lockTimeoutMs ?? LOCK_TIMEOUT_MS,
      lockStaleMs: deps.lockStaleMs ?? LOCK_STALE_MS,
    }
  }

  /** Takes the lock, waiting with jittered backoff; returns the token `release` needs. Throws PauseFileError. */
  async acquire(): Promise<string> {
    this.deps.ensureDir()
    const token = this.deps.uniqueSuffix()
    const deadline = this.deps.now() + this.deps.lockTimeoutMs
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
      if (this.deps.now() >= deadline) throw new PauseFileError(`timed out waiting for the lock ${this.lockPath} (held by ${holder})`)
      await this.deps.sleep(wait + Math.floor(Math.random() * wait))
      wait = Math.min(wait * 2, 50)
    }
  }

  /** Takes the lock only if it is free (or stale) right now; undefined otherwise. Throws PauseFileError. */
  tryAcquireNow(): string | undefined {
    this.deps.ensureDir()
    const token = this.deps.uniqueSuffix()
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
      const info: LockInfo = { pid: this.deps.pid, host: this.deps.hostname, token, at: this.deps.now() }
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
    // Unparsable: being written right now, or junk; only age can tell.
    const parsed = orElse(() => JSON.parse(raw) as LockInfo | undefined, undefined)
    const info = typeof parsed?.pid === "number" && typeof parsed.host === "string" && typeof parsed.token === "string" ? parsed : undefined
    const old = this.deps.now() - mtimeMs > this.deps.lockStaleMs
    const deadOwner = info !== undefined && info.host === this.deps.hostname && info.pid !== this.deps.pid && !this.deps.isAlive(info.pid)
    return { raw, info, stale: old || deadOwner }
  }

  /**
   * Moves the stale lock aside under a unique name, then checks that what was moved is the
   * lock judged stale. If another writer broke it and took a fresh lock in between, that
   * fresh lock is put back (link fails rather than overwrite a newer one).
   */
  private breakStaleLock(observed: string): void {
    const aside = `${this.lockPath}.stale.${this.deps.uniqueSuffix()}`
    try {
      this.fs.renameSync(this.lockPath, aside)
    } catch (error) {
      if (errno(error) === "ENOENT") return
      throw new PauseFileError(`cannot break the stale lock ${this.lockPath}: ${describe(error)}`)
    }
    // Unreadable: treat it as the stale one.
    const moved = orElse(() => String(this.fs.readFileSync(aside, "utf8")), observed)
    // Failing to link back means a newer lock already exists: its owner wins.
    if (moved !== observed) orElse(() => this.fs.linkSync(aside, this.lockPath), undefined)
    orElse(() => this.fs.unlinkSync(aside), undefined)
  }

  /** Removes the lock if it is still ours; never throws. */
  release(token: string): void {
    // Missing, unreadable or another token (ours was judged stale and broken): nothing of ours to remove.
    const info = orElse(() => JSON.parse(String(this.fs.readFileSync(this.lockPath, "utf8"))) as LockInfo | undefined, undefined)
    if (info?.token === token) orElse(() => this.fs.unlinkSync(this.lockPath), undefined)
  }
}
