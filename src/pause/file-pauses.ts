/**
 * The running plugin's PauseSource, backed by the marker file that every OpenCode process of the
 * user shares with the others and with the CLI.
 * No process clears the file: each keeps a lease in it (rules in src/core/pause-leases.ts), so
 * another OpenCode starting leaves our pauses alone while a restart of the process that runs a
 * session still clears that session's pause. `isPaused` answers from memory and re-stats the file
 * at most every `recheckMs`, so a CLI pause is honoured within one watchdog interval. Nothing here
 * throws into callers: an I/O problem is logged once and reads as not paused.
 */
import { emptyPauseState, sessionHold, viewHold, withAllPaused, withAllResumed, withSessionPaused, withSessionResumed, type HoldView, type PauseState } from "../core/pause-leases.ts"
import { LeaseKeeper } from "./lease-keeper.ts"
import type { PauseControl, PauseOutcome } from "./pause-control.ts"
import { PauseMarkerFile } from "./marker-file.ts"
import type { LeaseIdentity } from "./process-lease.ts"
import { printable, sessionIdProblem } from "./session-id.ts"

export type PauseLog = (level: "info" | "warn", message: string) => void

export type FilePausesOptions = {
  file: PauseMarkerFile | string
  /** Minimum time between two stats of the file, and the lease's refresh period; pass the watchdog's checkIntervalMs. */
  recheckMs: number
  /** Wall-clock epoch milliseconds: the file is shared with other processes. */
  now: () => number
  log: PauseLog
  /** Runs the next lease refresh; absent, the lease is refreshed only by `tick()` (tests). */
  schedule?: (delayMs: number, fn: () => void) => () => void
  /** Who this store is in the file; by default this process's identity (process-lease.ts). */
  identity?: LeaseIdentity
}

/** Timers may fire a little early relative to Date.now(); a check this close counts as due. */
const RECHECK_SLACK = 0.9

export class FilePauses implements PauseControl {
  private readonly file: PauseMarkerFile
  private readonly recheckMs: number
  private readonly now: () => number
  private readonly log: PauseLog
  private readonly keeper: LeaseKeeper

  private state: PauseState = emptyPauseState()
  private sessions = new Set<string>()
  /** Pauses the file could not take (write failures); honoured for this run. */
  private readonly memoryPaused = new Set<string>()
  private memoryAll = false
  private signature: string | undefined
  private lastCheckAt = Number.NEGATIVE_INFINITY
  private starting: Promise<void> | undefined
  private warnedIo = false
  private warnedProblem = false
  private repairing: Promise<void> | undefined

  constructor(options: FilePausesOptions) {
    this.file = typeof options.file === "string" ? new PauseMarkerFile(options.file) : options.file
    this.recheckMs = Math.max(0, options.recheckMs)
    this.now = options.now
    this.log = options.log
    this.keeper = new LeaseKeeper({
      file: this.file,
      refreshMs: this.recheckMs,
      now: this.now,
      schedule: options.schedule,
      identity: options.identity,
      checked: (state, problem, now) => this.checked(state, problem, now),
      log: (level, text) => (level === "warn" ? this.warnIo(text) : this.safeLog(level, text)),
    })
  }

  get path(): string {
    return this.file.path
  }

  get instanceId(): string {
    return this.keeper.instanceId
  }

  /** Writes the lease and does the first check; until it is done the file is not consulted. Never rejects. */
  start(): Promise<void> {
    this.starting = this.keeper.start().finally(() => {
      this.starting = undefined
    })
    return this.starting
  }

  /** Stops refreshing the lease. The pauses stay in the file, held until the lease lapses (or another instance of this process refreshes it). */
  stop(): void {
    this.keeper.stop()
  }

  /** Takes this store's lease out of the file now, if the lock is free (what a normal exit does). */
  leave(): boolean {
    return this.keeper.leave()
  }

  /** One lease refresh and check (the scheduler runs these). Resolves when done; never rejects. */
  tick(): Promise<void> {
    return this.keeper.tick()
  }

  private checked(state: PauseState, problem: string | undefined, now: number): void {
    this.apply(state, this.safeSignature())
    this.lastCheckAt = now
    this.ioRecovered()
    if (problem) this.warnProblem(problem, true)
  }

  /** Resolves once a pending check or rewrite of the file is done (for tests and shutdown). */
  async settled(): Promise<void> {
    await this.starting
    await this.keeper.settled()
    await this.repairing
  }

  isPaused(sessionID: string): boolean {
    this.keeper.noteRun(sessionID)
    if (this.memoryAll || this.memoryPaused.has(sessionID)) return true
    this.refresh()
    return this.state.all || this.sessions.has(sessionID)
  }

  allPaused(): boolean {
    this.refresh()
    return this.memoryAll || this.state.all
  }

  holdOf(sessionID: string): HoldView | undefined {
    this.refresh()
    const now = this.now()
    if (this.memoryPaused.has(sessionID)) return { kind: "self", at: now }
    const hold = sessionHold(this.state, sessionID)
    return hold ? viewHold(hold, this.state.leases ?? [], now, this.keeper.instanceId) : undefined
  }

  allHoldOf(): HoldView | undefined {
    this.refresh()
    const now = this.now()
    if (this.memoryAll) return { kind: "self", at: now }
    return this.state.all ? viewHold(this.state.allHold, this.state.leases ?? [], now, this.keeper.instanceId) : undefined
  }

  /** Re-reads the file if it is due (or `force`) and changed. Never throws. */
  refresh(force = false): void {
    if (this.starting) return
    const now = this.now()
    if (!force && now - this.lastCheckAt < this.recheckMs * RECHECK_SLACK) return
    this.lastCheckAt = now
    try {
      const signature = this.file.signature()
      if (signature === this.signature) return
      const { state, problem } = this.file.read()
      // Take the signature the content belongs to; a write racing the read shows up next time.
      this.apply(state, signature)
      this.ioRecovered()
      if (problem) this.warnProblem(problem, false)
      else this.warnedProblem = false
    } catch (error) {
      this.warnIo(`cannot read the pause file; treating sessions as not paused: ${message(error)}`)
      this.apply(emptyPauseState(), undefined)
    }
  }

  /** Pauses the session, held by this instance from now on (a pause already there keeps its time). */
  pause(sessionID: string): Promise<PauseOutcome> {
    this.keeper.noteRun(sessionID)
    return this.change(sessionID, (s, now) => withSessionPaused(s, sessionID, this.keeper.instanceId, now), true)
  }

  resume(sessionID: string): Promise<PauseOutcome> {
    return this.change(sessionID, (s) => withSessionResumed(s, sessionID), false)
  }

  pauseAll(): Promise<PauseOutcome> {
    return this.change(undefined, (s, now) => withAllPaused(s, this.keeper.instanceId, now), true)
  }

  /** Lifts every pause: the global one and each session's (the leases stay). */
  resumeAll(): Promise<PauseOutcome> {
    return this.change(undefined, withAllResumed, false)
  }

  private async change(sessionID: string | undefined, edit: (s: PauseState, now: number) => PauseState, pausing: boolean): Promise<PauseOutcome> {
    try {
      if (sessionID !== undefined) {
        const problem = sessionIdProblem(sessionID)
        if (problem) return { ok: false, error: `${problem}: ${printable(sessionID)}` }
      }
      if (this.starting) await this.starting
      if (!pausing) {
        if (sessionID === undefined) {
          this.memoryPaused.clear()
          this.memoryAll = false
        } else this.memoryPaused.delete(sessionID)
      }
      try {
        const now = this.now()
        // The write refreshes our lease too, so a pause never names a holder missing from the file.
        const { state, problem } = await this.file.update((s) => this.keeper.withLease(edit(s, now), now))
        this.apply(state, this.safeSignature())
        this.lastCheckAt = this.now()
        this.ioRecovered()
        if (problem) this.warnProblem(problem, true)
        else this.warnedProblem = false
        if (pausing && sessionID !== undefined) this.memoryPaused.delete(sessionID)
        if (pausing && sessionID === undefined) this.memoryAll = false
      } catch (error) {
        const why = message(error)
        this.warnIo(`cannot write the pause file: ${why}`)
        if (/too many paused sessions/.test(why)) return { ok: false, error: why }
        // Keep the user's intent for this run even though the file could not take it.
        if (pausing && sessionID !== undefined) this.memoryPaused.add(sessionID)
        if (pausing && sessionID === undefined) this.memoryAll = true
        if (!pausing && sessionID === undefined) this.apply(emptyPauseState(), undefined)
        if (!pausing && sessionID !== undefined) this.sessions.delete(sessionID)
        return { ...this.outcome(sessionID), memoryOnly: why }
      }
      return this.outcome(sessionID)
    } catch (error) {
      return { ok: false, error: message(error) }
    }
  }

  /** The answer from memory, without touching the file. */
  private outcome(sessionID: string | undefined): { ok: true; paused: boolean; allPaused: boolean } {
    const all = this.memoryAll || this.state.all
    const paused = sessionID === undefined ? all : all || this.memoryPaused.has(sessionID) || this.sessions.has(sessionID)
    return { ok: true, paused, allPaused: all }
  }

  private apply(state: PauseState, signature: string | undefined): void {
    this.state = state
    this.sessions = new Set(state.sessions)
    this.signature = signature
  }

  private safeSignature(): string | undefined {
    try {
      return this.file.signature()
    } catch {
      return undefined
    }
  }

  private warnIo(text: string): void {
    if (this.warnedIo) return
    this.warnedIo = true
    this.safeLog("warn", `${text} (${this.file.path}; logged once until it works again)`)
  }

  private ioRecovered(): void {
    this.warnedIo = false
  }

  /** One warning per bad file, then a rewrite (unless the caller just rewrote it). */
  private warnProblem(problem: string, alreadyRewritten: boolean): void {
    if (!this.warnedProblem) {
      this.safeLog("warn", `the pause file ${this.file.path} was not usable (${problem}); it is read as empty and rewritten`)
    }
    this.warnedProblem = true
    if (alreadyRewritten) {
      this.warnedProblem = false
      return
    }
    if (this.repairing) return
    this.repairing = this.file
      .update((s) => s)
      .then(({ state }) => {
        this.apply(state, this.safeSignature())
        this.warnedProblem = false
      })
      .catch((error) => this.warnIo(`cannot rewrite the pause file: ${message(error)}`))
      .finally(() => {
        this.repairing = undefined
      })
  }

  private safeLog(level: "info" | "warn", text: string): void {
    try {
      this.log(level, text)
    } catch {
      // A broken log sink is not our problem to surface.
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
