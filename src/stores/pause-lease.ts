/**
 * Keeps one plugin instance's lease in the pause file: refreshes it, claims the unclaimed pauses of
 * its sessions, and drops those whose holder is gone (rules in src/core/pause-leases.ts). Every
 * check reads the file; it writes only when something must change or the lease is half way to
 * lapsing (src/core/lease-refresh.ts), not every interval just to move its stamp.
 *
 * By default the lease is the process's: one instance id per OpenCode process, shared by every
 * plugin instance in it (an instance reloaded within the process keeps the pauses it held) and kept
 * on globalThis so two copies of this module loaded by one process still agree. A new process always
 * gets a new id: that is what lets a restart clear the pauses of its previous run (the old id's
 * lease lapses, or is removed at a normal exit).
 */
import { randomBytes } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import { addNewest } from "../core/bounded.ts"
import { leaseTtl, mayPrune, tidyPauses, type Lease, type PauseState, type TidyResult } from "../core/pause-leases.ts"
import { leaseWriteDue } from "../core/lease-refresh.ts"
import { droppedText } from "../prompts/hold-text.ts"
import { errorMessage, orElse } from "./atomic-file.ts"
import { serializePauseState, type PauseMarkerFile } from "./pause-marker.ts"

export type LeaseIdentity = { id: string; pid?: number; host?: string }

export type LeaseKeeperOptions = {
  file: PauseMarkerFile
  /** The check period (the watchdog's checkIntervalMs); the lease lapses a few of these after its last refresh. */
  refreshMs: number
  /** Wall-clock epoch milliseconds: the file is shared with other processes. */
  now: () => number
  /** Runs the next check; absent, only `tick()` checks (tests). */
  schedule?: (delayMs: number, fn: () => void) => () => void
  /** Who we are in the file; by default this process's identity, whose lease a normal exit removes. */
  identity?: LeaseIdentity
  /** The file as a check left it, and any problem found in what was there before. */
  checked: (state: PauseState, problem: string | undefined, now: number) => void
  log: (level: "info" | "warn", text: string) => void
}

/** Sessions remembered as run by this instance (claims); the oldest is forgotten first. */
const MAX_RUN_SESSIONS = 1000
/** The file is never checked more often than this, whatever the check interval. */
const MIN_REFRESH_MS = 250

type ProcessLeases = {
  identity: LeaseIdentity
  /** When this process first wrote each lease (keyed by file and id). */
  since: Map<string, number>
  /** Files whose lease the exit hook removes. */
  files: Map<string, PauseMarkerFile>
  exitHooked: boolean
}

const KEY = Symbol.for("opencode-auto-resume.pause-lease")

function processLeases(): ProcessLeases {
  const g = globalThis as Record<symbol, unknown>
  const known = g[KEY] as ProcessLeases | undefined
  if (known && known.since instanceof Map && known.files instanceof Map) return known
  // Without a host name, status reports name the pid only.
  const host = orElse<string | undefined>(() => os.hostname(), undefined)
  const fresh: ProcessLeases = { identity: { id: `i${randomBytes(8).toString("hex")}`, pid: process.pid, host }, since: new Map(), files: new Map(), exitHooked: false }
  g[KEY] = fresh
  return fresh
}

/** Removes lease `id` from the file, now or never: a busy lock is not waited for. Never throws. */
function leaveNow(file: PauseMarkerFile, id: string): boolean {
  // A file that is gone stays gone (a test's temp folder, a user who deleted it).
  return orElse(() => fs.existsSync(file.path) && file.updateNow((s) => ({ ...s, leases: (s.leases ?? []).filter((l) => l.id !== id) })), false)
}

/**
 * On a normal exit, take this process's lease out of every file it wrote, so another
 * OpenCode (or this one restarted) drops its pauses at once instead of when the lease lapses.
 * A process killed outright never gets here; its lease simply lapses.
 */
function leaveOnExit(file: PauseMarkerFile): void {
  const leases = processLeases()
  leases.files.set(file.path, file)
  if (leases.exitHooked) return
  leases.exitHooked = true
  // Without process events the lease lapses instead.
  orElse(() => process.once("exit", () => leases.files.forEach((f) => leaveNow(f, leases.identity.id))), undefined)
}

export class LeaseKeeper {
  readonly ttlMs: number
  private readonly identity: LeaseIdentity
  /** Sessions the engine asked about: the ones this instance runs, whose pauses it claims. */
  private readonly runs = new Set<string>()
  /** When this instance last checked the file (read or wrote it): a long gap means it was frozen. */
  private lastCheckAt: number | undefined
  private ticking: Promise<void> | undefined
  private cancelTimer: (() => void) | undefined
  private stopped = false

  constructor(private readonly options: LeaseKeeperOptions) {
    this.ttlMs = leaseTtl(options.refreshMs)
    this.identity = options.identity ?? processLeases().identity
  }

  /** The time between two checks. */
  private get intervalMs(): number {
    return Math.max(MIN_REFRESH_MS, this.options.refreshMs)
  }

  get instanceId(): string {
    return this.identity.id
  }

  /** The first check, then (with a scheduler) one every check period. Never rejects. */
  start(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.options.schedule && this.options.identity === undefined) leaveOnExit(this.options.file)
    return this.tick()
  }

  stop(): void {
    this.stopped = true
    this.cancelTimer?.()
    this.cancelTimer = undefined
  }

  /** Stops, and takes the lease out of the file now if the lock is free. */
  leave(): boolean {
    this.stop()
    return leaveNow(this.options.file, this.identity.id)
  }

  async settled(): Promise<void> {
    await this.ticking
  }

  /** One check: a read, and the locked write when one is due. Resolves when done; never rejects. */
  tick(): Promise<void> {
    if (this.ticking) return this.ticking
    this.ticking = this.check().finally(() => {
      this.ticking = undefined
      this.scheduleNext()
    })
    return this.ticking
  }

  /** Marks a session as run by this instance, so its unclaimed pause is claimed at the next check. */
  noteRun(sessionID: string): void {
    if (!this.runs.has(sessionID)) addNewest(this.runs, sessionID, MAX_RUN_SESSIONS)
  }

  /** `state` with our lease refreshed and our sessions' pauses claimed, nothing dropped: for the slash command's writes. */
  withLease(state: PauseState, now: number): PauseState {
    return tidyPauses(state, { now, self: this.lease(now), runs: (id) => this.runs.has(id), prune: false }).state
  }

  private async check(): Promise<void> {
    if (this.stopped) return
    const now = this.options.now()
    const prune = mayPrune(this.lastCheckAt, now, Math.min(this.ttlMs, 2 * this.intervalMs))
    const unchanged = this.readUnchanged(now, prune)
    if (unchanged) {
      this.lastCheckAt = now
      this.options.checked(unchanged, undefined, now)
      return
    }
    let result: TidyResult | undefined
    let before: Lease[] = []
    try {
      const { state, problem } = await this.options.file.update((s) => {
        before = s.leases ?? []
        result = tidyPauses(s, { now, self: this.lease(now), runs: (id) => this.runs.has(id), prune })
        return result.state
      })
      this.lastCheckAt = now
      this.options.checked(state, problem, now)
      for (const dropped of result?.dropped ?? []) this.options.log("info", droppedText(dropped, before))
    } catch (error) {
      this.options.log("warn", `cannot refresh this OpenCode's lease in the pause file: ${errorMessage(error)}`)
    }
  }

  /**
   * The file as it is, when a write would leave it as it is apart from a lease stamp that need
   * not move yet (src/core/lease-refresh.ts): no lock, no temp file, no fsync. Undefined when a
   * write is due, and when the read failed or found a problem: the locked update then does what
   * it always did (it reports the failure, or rewrites the bad file).
   */
  private readUnchanged(now: number, prune: boolean): PauseState | undefined {
    try {
      const { state, problem } = this.options.file.read()
      if (problem !== undefined) return undefined
      const due = leaseWriteDue(state, { now, self: this.lease(now), runs: (id) => this.runs.has(id), prune, intervalMs: this.intervalMs }, serializePauseState)
      return due ? undefined : state
    } catch {
      return undefined
    }
  }

  private scheduleNext(): void {
    if (this.stopped || !this.options.schedule || this.cancelTimer) return
    try {
      this.cancelTimer = this.options.schedule(this.intervalMs, () => {
        this.cancelTimer = undefined
        void this.tick()
      })
    } catch (error) {
      this.options.log("warn", `cannot schedule the pause lease refresh: ${errorMessage(error)}`)
    }
  }

  /** Our lease as of `now`; `since` is when this process first wrote it to this file, the same ever after. */
  private lease(now: number): Lease {
    const { since } = processLeases()
    const key = `${this.options.file.path}#${this.identity.id}`
    if (!since.has(key)) since.set(key, now)
    const lease: Lease = { id: this.identity.id, since: since.get(key)!, at: now, ttlMs: this.ttlMs }
    if (this.identity.pid !== undefined) lease.pid = this.identity.pid
    if (this.identity.host !== undefined) lease.host = this.identity.host
    return lease
  }
}
