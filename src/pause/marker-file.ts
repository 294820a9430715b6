/**
 * The pause marker: one small JSON file shared by the running plugin and the
 * `auto-resume-toggle` CLI.
 *
 * Location: `$XDG_CONFIG_HOME/opencode/auto-resume.paused`, or `~/.config/opencode/...` when
 * XDG_CONFIG_HOME is unset or not absolute.
 *
 * Format (UTF-8 JSON, one line, newline at the end):
 *
 *     {"version":1,"all":false,"sessions":["ses_..."]}
 *
 * - `version`: always 1 for this layout; anything else is a foreign file.
 * - `all`: true pauses every session.
 * - `sessions`: ids of individually paused sessions, oldest first, at most
 *   MAX_PAUSED_SESSIONS, each valid per session-id.ts.
 *
 * Writers take an exclusive lock (`<file>.lock`, created with O_EXCL) around
 * read-modify-write, so concurrent writers never drop each other's entries. A lock whose
 * owner died (same host, pid gone) or that is older than LOCK_STALE_MS is broken. The new
 * content goes to a temp file in the same folder (mode 0600) that is renamed over the marker,
 * so a reader sees the old or the new file, never half of one; readers take no lock.
 *
 * A file that is not valid JSON, not this layout, too large, or holds invalid ids reads as
 * empty (bad entries dropped) with a `problem` description; callers warn once and rewrite it.
 */
import nodeFs from "node:fs"
import os from "node:os"
import path from "node:path"
import { MAX_SESSION_ID_LENGTH, isValidSessionId, printable, sessionIdProblem } from "./session-id.ts"

export const PAUSE_FILE_NAME = "auto-resume.paused"
export const PAUSE_FILE_VERSION = 1
/** Individually paused sessions kept at most; a pause beyond this is refused. */
export const MAX_PAUSED_SESSIONS = 1000
/** Larger files are not read at all (a well-formed full file is about 140 KiB). */
export const MAX_PAUSE_FILE_BYTES = 256 * 1024
/** A lock held longer than this is presumed abandoned (a holder keeps it for milliseconds). */
export const LOCK_STALE_MS = 10_000
/** How long a writer waits for the lock before giving up. */
export const LOCK_TIMEOUT_MS = 5_000

export type PauseState = { all: boolean; sessions: string[] }

export type ReadResult = {
  state: PauseState
  /** Set when the file was malformed or foreign: it was read as `state` and needs a rewrite. */
  problem?: string
}

export class PauseFileError extends Error {
  override readonly name = "PauseFileError"
}

export function emptyPauseState(): PauseState {
  return { all: false, sessions: [] }
}

/** Where the marker lives for this environment. */
export function pauseFilePath(env: Record<string, string | undefined> = process.env, homedir: () => string = os.homedir): string {
  const xdg = env.XDG_CONFIG_HOME
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir(), ".config")
  return path.join(base, "opencode", PAUSE_FILE_NAME)
}

// -------------------------------------------------------------------------------------------
// Pure parsing and printing
// -------------------------------------------------------------------------------------------

/** Reads the marker's text. Never throws: whatever is wrong ends up in `problem`. */
export function parsePauseFile(text: string): ReadResult {
  if (text.trim() === "") return { state: emptyPauseState() }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { state: emptyPauseState(), problem: "it is not valid JSON" }
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { state: emptyPauseState(), problem: "it is not a pause file (not a JSON object)" }
  }
  const obj = data as Record<string, unknown>
  if (obj.version !== PAUSE_FILE_VERSION) {
    return { state: emptyPauseState(), problem: `it is not a version ${PAUSE_FILE_VERSION} pause file (version ${printable(obj.version)})` }
  }
  const all = obj.all ?? false
  const sessions = obj.sessions ?? []
  if (typeof all !== "boolean" || !Array.isArray(sessions)) {
    return { state: emptyPauseState(), problem: "it is not a pause file (\"all\" must be a boolean and \"sessions\" a list)" }
  }
  const kept: string[] = []
  const seen = new Set<string>()
  let invalid = 0
  let overflow = 0
  for (const id of sessions) {
    if (!isValidSessionId(id)) {
      invalid++
      continue
    }
    if (seen.has(id)) continue
    if (kept.length >= MAX_PAUSED_SESSIONS) {
      overflow++
      continue
    }
    seen.add(id)
    kept.push(id)
  }
  const problems: string[] = []
  if (invalid) problems.push(`${invalid} invalid session id(s) dropped`)
  if (overflow) problems.push(`${overflow} id(s) beyond the limit of ${MAX_PAUSED_SESSIONS} dropped`)
  return { state: { all, sessions: kept }, problem: problems.length ? problems.join("; ") : undefined }
}

export function serializePauseState(state: PauseState): string {
  return `${JSON.stringify({ version: PAUSE_FILE_VERSION, all: state.all, sessions: state.sessions })}\n`
}

/** Checks a state before it is written: valid ids, no duplicates, within the cap. */
function checkedState(state: PauseState): PauseState {
  const sessions: string[] = []
  const seen = new Set<string>()
  for (const id of state.sessions) {
    const problem = sessionIdProblem(id)
    if (problem) throw new PauseFileError(`${problem}: ${printable(id, MAX_SESSION_ID_LENGTH)}`)
    if (seen.has(id)) continue
    seen.add(id)
    sessions.push(id)
  }
  if (sessions.length > MAX_PAUSED_SESSIONS) {
    throw new PauseFileError(`too many paused sessions (limit ${MAX_PAUSED_SESSIONS}); resume some first, or pause all at once`)
  }
  return { all: state.all === true, sessions }
}

// -------------------------------------------------------------------------------------------
// The file
// -------------------------------------------------------------------------------------------

/** The synchronous fs calls the store uses; tests substitute failing ones. */
export type MarkerFs = Pick<
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

export type MarkerFileOptions = {
  fs?: MarkerFs
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  pid?: number
  hostname?: string
  /** Whether a process with this pid is alive on this host. */
  isAlive?: (pid: number) => boolean
  lockTimeoutMs?: number
  lockStaleMs?: number
}

type LockInfo = { pid: number; host: string; token: string; at: number }

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  return e?.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ""}` : error instanceof Error ? error.message : String(error)
}

export class PauseMarkerFile {
  readonly path: string
  readonly lockPath: string
  private readonly fs: MarkerFs
  private readonly now: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private readonly pid: number
  private readonly hostname: string
  private readonly isAlive: (pid: number) => boolean
  private readonly lockTimeoutMs: number
  private readonly lockStaleMs: number
  private seq = 0

  constructor(filePath: string, options: MarkerFileOptions = {}) {
    this.path = filePath
    this.lockPath = `${filePath}.lock`
    this.fs = options.fs ?? nodeFs
    this.now = options.now ?? Date.now
    this.sleep = options.sleep ?? realSleep
    this.pid = options.pid ?? process.pid
    this.hostname = options.hostname ?? os.hostname()
    this.isAlive = options.isAlive ?? processAlive
    this.lockTimeoutMs = options.lockTimeoutMs ?? LOCK_TIMEOUT_MS
    this.lockStaleMs = options.lockStaleMs ?? LOCK_STALE_MS
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
      const st = this.fs.fstatSync(fd)
      if (!st.isFile()) return { state: emptyPauseState(), problem: "it is not a regular file" }
      if (st.size > MAX_PAUSE_FILE_BYTES) return { state: emptyPauseState(), problem: `it is larger than ${MAX_PAUSE_FILE_BYTES} bytes` }
      const buffer = Buffer.alloc(MAX_PAUSE_FILE_BYTES + 1)
      let length = 0
      for (;;) {
        const n = this.fs.readSync(fd, buffer, length, buffer.length - length, null)
        if (n <= 0) break
        length += n
        if (length > MAX_PAUSE_FILE_BYTES) return { state: emptyPauseState(), problem: `it is larger than ${MAX_PAUSE_FILE_BYTES} bytes` }
      }
      return parsePauseFile(buffer.subarray(0, length).toString("utf8"))
    } catch (error) {
      throw new PauseFileError(`cannot read ${this.path}: ${describe(error)}`)
    } finally {
      try {
        this.fs.closeSync(fd)
      } catch {
        // Nothing useful to do.
      }
    }
  }

  /**
   * Read-modify-write under the lock. `change` gets the current state (empty when the file is
   * missing or malformed) and returns the new one; the result is validated, written atomically
   * and returned along with any problem found in the old file. Throws PauseFileError.
   */
  async update(change: (state: PauseState) => PauseState): Promise<{ state: PauseState; problem?: string }> {
    const token = await this.lock()
    try {
      const current = this.read()
      const next = checkedState(change({ all: current.state.all, sessions: [...current.state.sessions] }))
      this.writeAtomically(serializePauseState(next))
      return { state: next, problem: current.problem }
    } finally {
      this.unlock(token)
    }
  }

  // --- writing -------------------------------------------------------------------------------

  private ensureDir(): void {
    try {
      this.fs.mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 })
    } catch (error) {
      throw new PauseFileError(`cannot create ${path.dirname(this.path)}: ${describe(error)}`)
    }
  }

  private uniqueSuffix(): string {
    this.seq = (this.seq + 1) % 1_000_000
    return `${this.pid}.${this.now().toString(36)}.${this.seq}.${Math.random().toString(36).slice(2, 8)}`
  }

  private writeAtomically(content: string): void {
    this.ensureDir()
    const tmp = `${this.path}.${this.uniqueSuffix()}.tmp`
    let fd: number | undefined
    try {
      fd = this.fs.openSync(tmp, "wx", 0o600)
      this.fs.fchmodSync(fd, 0o600)
      const bytes = Buffer.from(content, "utf8")
      let written = 0
      while (written < bytes.length) written += this.fs.writeSync(fd, bytes, written, bytes.length - written)
      this.fs.fsyncSync(fd)
      this.fs.closeSync(fd)
      fd = undefined
      this.fs.renameSync(tmp, this.path)
    } catch (error) {
      if (fd !== undefined) {
        try {
          this.fs.closeSync(fd)
        } catch {
          // Already failing.
        }
      }
      try {
        this.fs.unlinkSync(tmp)
      } catch {
        // It may never have been created.
      }
      throw new PauseFileError(`cannot write ${this.path}: ${describe(error)}`)
    }
  }

  // --- locking -------------------------------------------------------------------------------

  private async lock(): Promise<string> {
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

  private unlock(token: string): void {
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
