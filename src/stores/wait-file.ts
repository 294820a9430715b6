/**
 * Rate-limit waits that outlive the process: the wait file (`auto-resume.rate-waits.json` in the
 * state folder, atomic-file.ts), the store that mirrors one plugin instance's waits into it, and
 * who a wait's owner process is. What goes in and out, and which waits a starting plugin takes
 * over, is decided in src/core/carried-waits.ts; here is only the I/O.
 *
 * A file that cannot be read or parsed is an empty list plus a `problem`: one warning, then debug
 * lines; an entry that does not parse is skipped with a debug line.
 */
import fs from "node:fs"
import os from "node:os"
import type { TimeSource } from "../core/clock.ts"
import type { RecoveryEngine } from "../core/engine.ts"
import type { HostPort, LogLevel } from "../core/port.ts"
import {
  boundedWaits,
  claimWaits,
  parseWaits,
  restoredWait,
  withWait,
  withoutOwnerWaits,
  withoutWait,
  type CarriedWait,
  type RateWaitStore,
  type RestoredWait,
  type WaitOwner,
} from "../core/carried-waits.ts"
import { AtomicFile, StateFileError, describe, processAlive, stateFilePath, type AtomicFileOptions } from "./atomic-file.ts"

export const RATE_WAIT_FILE_NAME = "auto-resume.rate-waits.json"
/** Far more than MAX_CARRIED_WAITS entries take; a bigger file is not ours. */
export const MAX_RATE_WAIT_FILE_BYTES = 256 * 1024

export function rateWaitFilePath(env: Record<string, string | undefined>): string {
  return stateFilePath(RATE_WAIT_FILE_NAME, env)
}

export type WaitRead = { waits: CarriedWait[]; skipped: string[]; problem?: string }

export class RateWaitFile {
  private readonly file: AtomicFile
  private readonly now: () => number

  constructor(filePath: string, options: AtomicFileOptions = {}) {
    this.file = new AtomicFile(filePath, MAX_RATE_WAIT_FILE_BYTES, options)
    this.now = options.now ?? Date.now
  }

  get path(): string {
    return this.file.path
  }

  /** The waits in the file; never throws (a missing file is an empty list, anything wrong a `problem`). */
  read(): WaitRead {
    let text: string | undefined
    try {
      const read = this.file.read()
      if (read.problem !== undefined) return { waits: [], skipped: [], problem: read.problem }
      text = read.text
    } catch (error) {
      return { waits: [], skipped: [], problem: `it cannot be read: ${describe(error instanceof StateFileError && error.cause !== undefined ? error.cause : error)}` }
    }
    if (text === undefined || text.trim() === "") return { waits: [], skipped: [] }
    try {
      return parseWaits(JSON.parse(text))
    } catch (error) {
      return { waits: [], skipped: [], problem: `it is not a wait list (${error instanceof Error ? error.message : String(error)})` }
    }
  }

  /** Read-modify-write under the lock; returns what was read (for its problem) and what was written. Throws StateFileError. */
  update(change: (waits: CarriedWait[]) => CarriedWait[]): Promise<{ before: WaitRead; after: CarriedWait[] }> {
    return this.file.locked(() => this.rewrite(change))
  }

  /** The same, synchronously and only if the lock is free now (a process on its way out cannot wait). Throws StateFileError. */
  updateNow(change: (waits: CarriedWait[]) => CarriedWait[]): boolean {
    return this.file.lockedNow(() => this.rewrite(change)) !== undefined
  }

  private rewrite(change: (waits: CarriedWait[]) => CarriedWait[]): { before: WaitRead; after: CarriedWait[] } {
    const before = this.read()
    const after = boundedWaits(change(before.waits), this.now())
    // Nothing to keep and nothing there: no file is created for it.
    if (after.length === 0 && before.waits.length === 0 && before.problem === undefined && !this.file.exists()) return { before, after }
    this.file.replace(JSON.stringify({ waits: after }, null, 1) + "\n")
    return { before, after }
  }
}

// Who a process is, across a pid that may be reused: its pid plus when it started, read from
// /proc (boot time plus the start tick count), so two readings of the same process agree to the
// millisecond and a process started later under the same pid (or after a reboot) does not.
// Where /proc is missing, the pid alone has to do.

/** Clock ticks per second of /proc's start times; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100

let bootSeconds: number | null | undefined

function bootTime(): number | undefined {
  if (bootSeconds === undefined) {
    try {
      const m = /^btime (\d+)$/m.exec(fs.readFileSync("/proc/stat", "utf8").slice(0, 65536))
      bootSeconds = m ? Number(m[1]) : null
    } catch {
      bootSeconds = null
    }
  }
  return bootSeconds ?? undefined
}

/** When process `pid` started (epoch ms), or undefined when /proc cannot tell. */
export function processStartedAt(pid: number): number | undefined {
  const boot = bootTime()
  if (boot === undefined) return undefined
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8").slice(0, 4096)
    // pid (comm) state ppid ...: comm may hold spaces or parens, so count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[19])
    return Number.isFinite(ticks) ? boot * 1000 + Math.round((ticks * 1000) / CLOCK_TICKS) : undefined
  } catch {
    return undefined
  }
}

let self: WaitOwner | undefined

/** This process as a wait's owner. */
export function selfOwner(): WaitOwner {
  if (!self) {
    const startedAt = processStartedAt(process.pid) ?? Math.round(Date.now() - process.uptime() * 1000)
    self = { pid: process.pid, startedAt }
    try {
      self.host = os.hostname()
    } catch {
      // Without a host name the pid and start stand alone.
    }
  }
  return self
}

/**
 * Whether the owner still runs. Another host's process cannot be checked from here and counts
 * as alive (its waits are not ours to take); on this host the pid must be alive and, where /proc
 * says, have started when the owner did.
 */
export function ownerAlive(owner: WaitOwner): boolean {
  const me = selfOwner()
  if ((owner.host ?? "") !== (me.host ?? "")) return true
  if (!processAlive(owner.pid)) return false
  const started = processStartedAt(owner.pid)
  return started === undefined || started === owner.startedAt
}

export type RateWaitStoreDeps = {
  file: RateWaitFile
  directory: string | undefined
  log: (level: LogLevel, message: string) => void
  /** The wall clock: the file is shared with other processes. */
  wallNow: () => number
  self?: WaitOwner
  alive?: (owner: WaitOwner) => boolean
}

/**
 * The engine's rate-limit waits mirrored in the wait file, for one plugin instance (one folder):
 * each save or end is queued and written in the background, in order; at start the waits a
 * gone process left for this folder are claimed and handed to the engine; a clean stop takes
 * this process's waits for the folder out of the file.
 */
export class FileRateWaitStore implements RateWaitStore {
  private queue: Promise<void> = Promise.resolve()
  private closed = false
  private warned = false
  private readonly self: WaitOwner
  private readonly alive: (owner: WaitOwner) => boolean

  constructor(private readonly deps: RateWaitStoreDeps) {
    this.self = deps.self ?? selfOwner()
    this.alive = deps.alive ?? ownerAlive
  }

  save(wait: Parameters<RateWaitStore["save"]>[0]): void {
    const entry: CarriedWait = { ...wait, owner: this.self }
    if (this.deps.directory !== undefined) entry.directory = this.deps.directory
    this.enqueue(`save the wait of session ${wait.sessionID}`, (waits) => withWait(waits, entry, this.deps.wallNow()))
  }

  end(sessionID: string): void {
    this.enqueue(`end the wait of session ${sessionID}`, (waits) => withoutWait(waits, sessionID, this.deps.directory, this.self))
  }

  /** Every write queued so far has been tried (tests, and a stop that wants the file settled). */
  settled(): Promise<void> {
    return this.queue
  }

  /**
   * Claims the waits left for this folder by a process that is gone and hands them over,
   * with the sessions the host runs right now (a running one is not continued until it idles).
   */
  async restore(listRunning: () => Promise<readonly string[]>, adopt: (waits: RestoredWait[]) => void): Promise<number> {
    let claimed: CarriedWait[] = []
    await this.run("take over waits from a previous run", async () => {
      const check = { self: this.self, directory: this.deps.directory, alive: this.alive, wallNow: this.deps.wallNow() }
      const result = await this.deps.file.update((waits) => {
        const outcome = claimWaits(waits, check)
        claimed = outcome.claimed
        return outcome.waits
      })
      this.report(result.before)
    })
    if (claimed.length === 0 || this.closed) return 0
    let running = new Set<string>()
    try {
      running = new Set(await listRunning())
    } catch (error) {
      this.deps.log("debug", `rate-limit waits: could not list running sessions (${describe(error)}); treating them as idle`)
    }
    const wallNow = this.deps.wallNow()
    adopt(claimed.map((w) => restoredWait(w, wallNow, running)))
    return claimed.length
  }

  /** A clean stop (the user quit): this process's waits for the folder leave the file now, or as soon as the lock is free. */
  endAll(): void {
    if (this.closed) return
    this.closed = true
    const change = (waits: CarriedWait[]) => withoutOwnerWaits(waits, this.deps.directory, this.self)
    try {
      if (this.deps.file.updateNow(change)) return
    } catch (error) {
      this.deps.log("warn", `rate-limit waits: could not end this process's waits in ${this.deps.file.path}: ${describe(error)}`)
    }
    // The lock is busy: after whatever is queued, if the process lives that long.
    this.queue = this.queue.then(() => this.run("end this process's waits", async () => void (await this.deps.file.update(change))))
  }

  private enqueue(what: string, change: (waits: CarriedWait[]) => CarriedWait[]): void {
    if (this.closed) return
    this.queue = this.queue.then(() => this.run(what, async () => this.report((await this.deps.file.update(change)).before)))
  }

  private async run(what: string, step: () => Promise<void>): Promise<void> {
    try {
      await step()
    } catch (error) {
      this.deps.log(this.warned ? "debug" : "warn", `rate-limit waits: could not ${what} in ${this.deps.file.path}: ${describe(error)}`)
      this.warned = true
    }
  }

  /** One warning for a file that could not be read; a debug line per malformed entry. */
  private report(read: { skipped: string[]; problem?: string }): void {
    if (read.problem) {
      this.deps.log(this.warned ? "debug" : "warn", `rate-limit waits: ${this.deps.file.path} was read as empty: ${read.problem}`)
      this.warned = true
    }
    for (const why of read.skipped.slice(0, 20)) this.deps.log("debug", `rate-limit waits: skipped an entry of ${this.deps.file.path}: ${why}`)
  }
}

export type HostRateWaits = {
  readonly store: FileRateWaitStore
  /** Claims the waits a gone process left for this folder and resumes them in `engine` (in the background). */
  restore(engine: RecoveryEngine, port: HostPort, timeoutMs: number): void
}

/** The wait store an instance hands its engine on both hosts, and the take-over of a previous run's waits once the engine runs. */
export function hostRateWaits(options: {
  env: Record<string, string | undefined>
  directory: string | undefined
  time: TimeSource
  log: (level: LogLevel, message: string) => void
}): HostRateWaits {
  const { time, log } = options
  const wallNow = () => (time.wall ? time.wall() : time.now())
  const file = new RateWaitFile(rateWaitFilePath(options.env), { now: wallNow })
  const store = new FileRateWaitStore({ file, directory: options.directory, log, wallNow })
  return {
    store,
    restore(engine, port, timeoutMs) {
      const listRunning = () => bounded(time, timeoutMs, () => port.listBusySessions())
      void store
        .restore(listRunning, (waits) => {
          const taken = engine.restoreRateWaits(waits)
          if (taken > 0) log("info", `rate-limit waits: took over ${taken} wait(s) left by a previous run that did not exit cleanly`)
        })
        .catch((error) => log("warn", `rate-limit waits: taking over a previous run's waits failed: ${describe(error)}`))
    },
  }
}

/** `call`, or a rejection once `ms` have passed. */
function bounded<T>(time: TimeSource, ms: number, call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = time.schedule(ms, () => reject(new Error(`no answer within ${ms} ms`)))
    Promise.resolve()
      .then(call)
      .then(
        (value) => {
          cancel()
          resolve(value)
        },
        (error) => {
          cancel()
          reject(error)
        },
      )
  })
}
