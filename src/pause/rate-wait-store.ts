/**
 * The engine's rate-limit waits mirrored in the wait file, for one plugin instance (one folder):
 * each save or end is queued and written in the background, in order; at start the waits a
 * gone process left for this folder are claimed and handed to the engine; a clean stop takes
 * this process's waits for the folder out of the file.
 */
import { claimWaits, restoredWait, withWait, withoutOwnerWaits, withoutWait, type CarriedWait, type RateWaitStore, type RestoredWait, type WaitOwner } from "../core/carried-waits.ts"
import type { LogLevel } from "../core/port.ts"
import { describe } from "./marker-io.ts"
import { ownerAlive, selfOwner } from "./process-start.ts"
import type { RateWaitFile } from "./rate-wait-file.ts"

export type RateWaitStoreDeps = {
  file: RateWaitFile
  directory: string | undefined
  log: (level: LogLevel, message: string) => void
  /** The wall clock: the file is shared with other processes. */
  wallNow: () => number
  self?: WaitOwner
  alive?: (owner: WaitOwner) => boolean
}

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
