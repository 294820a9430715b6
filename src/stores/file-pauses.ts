/**
 * The running plugin's PauseSource, backed by the marker file that every OpenCode process of the
 * user shares with the others and with the CLI.
 * No process clears the file: each keeps a lease in it (rules in src/core/pause-leases.ts), so
 * another OpenCode starting leaves our pauses alone while a restart of the process that runs a
 * session still clears that session's pause. `isPaused` answers from memory and re-stats the file
 * at most every `recheckMs`, so a CLI pause is honoured within one watchdog interval. Nothing here
 * throws into callers: an I/O problem is logged once and reads as not paused.
 */
import type { TimeSource } from "../core/clock.ts"
import { emptyPauseState, sessionHold, viewHold, withAllPaused, withAllResumed, withSessionPaused, withSessionResumed } from "../core/pause-leases.ts"
import type { Hold, HoldView, PauseState } from "../core/pause-leases.ts"
import type { PauseSource } from "../core/pauses.ts"
import { errorMessage, orElse } from "./atomic-file.ts"
import { LeaseKeeper, type LeaseKeeperOptions } from "./pause-lease.ts"
import { PauseMarkerFile, pauseFilePath, printable, sessionIdProblem } from "./pause-marker.ts"

export type PauseOutcome =
  | { ok: true; paused: boolean; allPaused: boolean; /** The change lives only in memory: the file could not be written. */ memoryOnly?: string }
  | { ok: false; error: string }

/** What the slash command needs from a pause store (FilePauses, or a fake in tests). */
export interface PauseControl extends PauseSource {
  allPaused(): boolean
  pause(sessionID: string): Promise<PauseOutcome>
  resume(sessionID: string): Promise<PauseOutcome>
  /** Who holds the session's own pause and since when (undefined: not paused on its own). */
  holdOf?(sessionID: string): HoldView | undefined
  /** The same for the pause of all sessions. */
  allHoldOf?(): HoldView | undefined
}

/** True for a pause store the slash command can drive (FilePauses does; MemoryPauses does not). */
export function isPauseControl(value: unknown): value is PauseControl {
  const v = value as Partial<PauseControl> | null | undefined
  return typeof v?.isPaused === "function" && typeof v.allPaused === "function" && typeof v.pause === "function" && typeof v.resume === "function"
}

export type PauseLog = (level: "info" | "warn", message: string) => void

export type FilePausesOptions = Pick<LeaseKeeperOptions, "now" | "schedule" | "identity"> & {
  file: PauseMarkerFile | string
  /** Minimum time between two stats of the file, and the lease's refresh period; pass the watchdog's checkIntervalMs. */
  recheckMs: number
  log: PauseLog
}

/** Timers may fire a little early relative to Date.now(); a check this close counts as due. */
const RECHECK_SLACK = 0.9

export class FilePauses implements PauseControl {
  private readonly file: PauseMarkerFile
  private readonly recheckMs: number
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

  constructor(private readonly options: FilePausesOptions) {
    this.file = typeof options.file === "string" ? new PauseMarkerFile(options.file) : options.file
    this.recheckMs = Math.max(0, options.recheckMs)
    this.keeper = new LeaseKeeper({
      file: this.file,
      refreshMs: this.recheckMs,
      now: options.now,
      schedule: options.schedule,
      identity: options.identity,
      checked: (state, problem, now) => this.took(state, this.safeSignature(), problem, true, now),
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

  /** One lease check, which refreshes the lease when due (the scheduler runs these). Resolves when done; never rejects. */
  tick(): Promise<void> {
    return this.keeper.tick()
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
    if (this.memoryPaused.has(sessionID)) return { kind: "self", at: this.options.now() }
    const hold = sessionHold(this.state, sessionID)
    return hold ? this.view(hold) : undefined
  }

  allHoldOf(): HoldView | undefined {
    this.refresh()
    if (this.memoryAll) return { kind: "self", at: this.options.now() }
    return this.state.all ? this.view(this.state.allHold) : undefined
  }

  private view(hold: Hold | undefined): HoldView {
    return viewHold(hold, this.state.leases ?? [], this.options.now(), this.keeper.instanceId)
  }

  /** Re-reads the file if it is due (or `force`) and changed. Never throws. */
  refresh(force = false): void {
    if (this.starting) return
    const now = this.options.now()
    if (!force && now - this.lastCheckAt < this.recheckMs * RECHECK_SLACK) return
    this.lastCheckAt = now
    try {
      const signature = this.file.signature()
      if (signature === this.signature) return
      const { state, problem } = this.file.read()
      // Take the signature the content belongs to; a write racing the read shows up next time.
      this.took(state, signature, problem, false, now)
    } catch (error) {
      this.warnIo(`cannot read the pause file; treating sessions as not paused: ${errorMessage(error)}`)
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

  /** `sessionID` undefined: the pause of all sessions. */
  private async change(sessionID: string | undefined, edit: (s: PauseState, now: number) => PauseState, pausing: boolean): Promise<PauseOutcome> {
    try {
      const problem = sessionID === undefined ? undefined : sessionIdProblem(sessionID)
      if (problem) return { ok: false, error: `${problem}: ${printable(sessionID)}` }
      if (this.starting) await this.starting
      if (!pausing) {
        if (sessionID === undefined) this.memoryPaused.clear()
        this.remember(sessionID, false)
      }
      try {
        const now = this.options.now()
        // The write refreshes our lease too, so a pause never names a holder missing from the file.
        const { state, problem } = await this.file.update((s) => this.keeper.withLease(edit(s, now), now))
        this.took(state, this.safeSignature(), problem, true, this.options.now())
        if (pausing) this.remember(sessionID, false)
      } catch (error) {
        const why = errorMessage(error)
        this.warnIo(`cannot write the pause file: ${why}`)
        if (/too many paused sessions/.test(why)) return { ok: false, error: why }
        // Keep the user's intent for this run even though the file could not take it.
        if (pausing) this.remember(sessionID, true)
        else if (sessionID === undefined) this.apply(emptyPauseState(), undefined)
        else this.sessions.delete(sessionID)
        return { ...this.outcome(sessionID), memoryOnly: why }
      }
      return this.outcome(sessionID)
    } catch (error) {
      return { ok: false, error: errorMessage(error) }
    }
  }

  /** Sets or clears the in-memory pause that stands in for one the file could not take. */
  private remember(sessionID: string | undefined, paused: boolean): void {
    if (sessionID === undefined) this.memoryAll = paused
    else if (paused) this.memoryPaused.add(sessionID)
    else this.memoryPaused.delete(sessionID)
  }

  /** The answer from memory, without touching the file. */
  private outcome(sessionID: string | undefined): { ok: true; paused: boolean; allPaused: boolean } {
    const all = this.memoryAll || this.state.all
    const paused = sessionID === undefined ? all : all || this.memoryPaused.has(sessionID) || this.sessions.has(sessionID)
    return { ok: true, paused, allPaused: all }
  }

  /** The file as a read or a write just found it; `rewritten`: that write already replaced a bad file. */
  private took(state: PauseState, signature: string | undefined, problem: string | undefined, rewritten: boolean, at: number): void {
    this.apply(state, signature)
    this.lastCheckAt = at
    this.warnedIo = false
    if (problem) this.warnProblem(problem, rewritten)
    else this.warnedProblem = false
  }

  private apply(state: PauseState, signature: string | undefined): void {
    this.state = state
    this.sessions = new Set(state.sessions)
    this.signature = signature
  }

  private safeSignature(): string | undefined {
    return orElse(() => this.file.signature(), undefined)
  }

  private warnIo(text: string): void {
    if (this.warnedIo) return
    this.warnedIo = true
    this.safeLog("warn", `${text} (${this.file.path}; logged once until it works again)`)
  }

  /** One warning per bad file, then a rewrite (unless the caller just rewrote it). */
  private warnProblem(problem: string, rewritten: boolean): void {
    if (!this.warnedProblem) {
      this.safeLog("warn", `the pause file ${this.file.path} was not usable (${problem}); it is read as empty and rewritten`)
    }
    this.warnedProblem = !rewritten
    if (rewritten || this.repairing) return
    this.repairing = this.file
      .update((s) => s)
      .then(({ state }) => {
        this.apply(state, this.safeSignature())
        this.warnedProblem = false
      })
      .catch((error) => this.warnIo(`cannot rewrite the pause file: ${errorMessage(error)}`))
      .finally(() => {
        this.repairing = undefined
      })
  }

  /** A broken log sink is not ours to surface. */
  private safeLog(level: "info" | "warn", text: string): void {
    orElse(() => this.options.log(level, text), undefined)
  }
}

export type HostPausesOptions = {
  /** A store to use instead of the marker file. */
  injected?: PauseSource
  /** Where the marker file lives (XDG_CONFIG_HOME, HOME). */
  env: Record<string, string | undefined>
  /** The watchdog's checkIntervalMs: a CLI pause is honoured within one check. */
  recheckMs: number
  /**
   * The adapter's time: its wall clock stamps the file (shared with other processes and the
   * CLI, so never the forward-only clock), its timer refreshes the lease.
   */
  time: TimeSource
  log: PauseLog
}

export type HostPauses = {
  readonly source: PauseSource
  /** What `/auto-resume` writes to; undefined when the injected store is read-only. */
  readonly control: PauseControl | undefined
  /** Stops refreshing the lease (the instance is disposed); its pauses stay until the lease lapses. */
  stop(): void
}

/**
 * The pause store a running plugin hands its engine on both hosts: the shared marker file, unless
 * the caller injected a store (tests); the slash command can write only to a store that offers
 * pause/resume. The lease is written and the first check made in the background.
 */
export function hostPauses(options: HostPausesOptions): HostPauses {
  if (options.injected) return { source: options.injected, control: isPauseControl(options.injected) ? options.injected : undefined, stop: () => {} }
  const file = new FilePauses({
    file: pauseFilePath(options.env),
    recheckMs: options.recheckMs,
    now: () => (options.time.wall ? options.time.wall() : options.time.now()),
    schedule: (delayMs, fn) => options.time.schedule(delayMs, fn),
    log: options.log,
  })
  void file.start()
  return { source: file, control: file, stop: () => file.stop() }
}
