/**
 * The running plugin's PauseSource, backed by the marker file (marker-file.ts).
 *
 * - At start the file is reset (once per process and path): a restart clears every pause, so
 *   a stale pause never outlives a run.
 * - `isPaused` answers from memory and re-checks the file at most every `recheckMs` with a
 *   stat; only a changed file is read. The engine asks at each watchdog decision, so a pause
 *   written by the CLI is honoured at the next check, within one watchdog interval.
 * - pause/resume/pauseAll/resumeAll (the slash command) write the file under its lock.
 * - Nothing here throws into callers. An I/O problem is logged once (until things work
 *   again) and sessions read as not paused; a malformed or foreign file is logged once and
 *   rewritten. A pause that cannot be written is still kept in memory for this run.
 */
import type { PauseSource } from "../core/pauses.ts"
import { PauseMarkerFile } from "./marker-file.ts"
import { emptyPauseState, type PauseState } from "./marker-format.ts"
import { printable, sessionIdProblem } from "./session-id.ts"

export type PauseLog = (level: "info" | "warn", message: string) => void

export type PauseOutcome =
  | { ok: true; paused: boolean; allPaused: boolean; /** The change lives only in memory: the file could not be written. */ memoryOnly?: string }
  | { ok: false; error: string }

/** What the slash command needs from a pause store (FilePauses, or a fake in tests). */
export interface PauseControl extends PauseSource {
  allPaused(): boolean
  pause(sessionID: string): Promise<PauseOutcome>
  resume(sessionID: string): Promise<PauseOutcome>
}

/** True for a pause store the slash command can drive (FilePauses does; MemoryPauses does not). */
export function isPauseControl(value: unknown): value is PauseControl {
  const v = value as Partial<PauseControl> | null | undefined
  return typeof v?.isPaused === "function" && typeof v.allPaused === "function" && typeof v.pause === "function" && typeof v.resume === "function"
}

export type FilePausesOptions = {
  /** The marker file, or its path. */
  file: PauseMarkerFile | string
  /** Minimum time between two stats of the file; pass the watchdog's checkIntervalMs. */
  recheckMs: number
  now: () => number
  log: PauseLog
  /** Reset the file in start() even if this process already did (tests). */
  alwaysReset?: boolean
}

/** Files already reset by this process, shared across module copies loaded twice. */
const RESET_KEY = Symbol.for("opencode-auto-resume.pause-file-reset")
function resetRegistry(): Set<string> {
  const g = globalThis as Record<symbol, unknown>
  let set = g[RESET_KEY] as Set<string> | undefined
  if (!(set instanceof Set)) g[RESET_KEY] = set = new Set<string>()
  return set
}

/** Timers may fire a little early relative to Date.now(); a check this close counts as due. */
const RECHECK_SLACK = 0.9

export class FilePauses implements PauseControl {
  private readonly file: PauseMarkerFile
  private readonly recheckMs: number
  private readonly now: () => number
  private readonly log: PauseLog
  private readonly alwaysReset: boolean

  private state: PauseState = emptyPauseState()
  private sessions = new Set<string>()
  /** Pauses the file could not take (write failures); honoured for this run. */
  private readonly memoryPaused = new Set<string>()
  private memoryAll = false
  private signature: string | undefined
  private lastCheckAt = Number.NEGATIVE_INFINITY
  private resetting: Promise<void> | undefined
  private warnedIo = false
  private warnedProblem = false
  private repairing: Promise<void> | undefined

  constructor(options: FilePausesOptions) {
    this.file = typeof options.file === "string" ? new PauseMarkerFile(options.file) : options.file
    this.recheckMs = Math.max(0, options.recheckMs)
    this.now = options.now
    this.log = options.log
    this.alwaysReset = options.alwaysReset ?? false
  }

  get path(): string {
    return this.file.path
  }

  /**
   * Clears the file for this run. Until it is done the file is not consulted (only pauses
   * made in this run count). Resolves when done; never rejects.
   */
  start(): Promise<void> {
    const registry = resetRegistry()
    if (!this.alwaysReset && registry.has(this.file.path)) return Promise.resolve()
    registry.add(this.file.path)
    this.resetting = (async () => {
      try {
        const { problem } = await this.file.update(() => emptyPauseState())
        if (problem) this.warnProblem(problem, true)
        this.apply(emptyPauseState(), this.safeSignature())
        this.ioRecovered()
      } catch (error) {
        this.warnIo(`could not reset the pause file at start: ${message(error)}`)
      } finally {
        this.resetting = undefined
      }
    })()
    return this.resetting
  }

  /** Resolves once a pending reset or rewrite of the file is done (for tests and shutdown). */
  async settled(): Promise<void> {
    await this.resetting
    await this.repairing
  }

  isPaused(sessionID: string): boolean {
    if (this.memoryAll || this.memoryPaused.has(sessionID)) return true
    this.refresh()
    return this.state.all || this.sessions.has(sessionID)
  }

  allPaused(): boolean {
    this.refresh()
    return this.memoryAll || this.state.all
  }

  /** Individually paused sessions (file and memory), for reports. */
  pausedSessions(): string[] {
    this.refresh()
    return [...new Set([...this.state.sessions, ...this.memoryPaused])]
  }

  /** Re-reads the file if it is due (or `force`) and changed. Never throws. */
  refresh(force = false): void {
    if (this.resetting) return
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

  pause(sessionID: string): Promise<PauseOutcome> {
    return this.change(sessionID, (s) => (s.sessions.includes(sessionID) ? s : { ...s, sessions: [...s.sessions, sessionID] }), true)
  }

  resume(sessionID: string): Promise<PauseOutcome> {
    return this.change(sessionID, (s) => ({ ...s, sessions: s.sessions.filter((id) => id !== sessionID) }), false)
  }

  pauseAll(): Promise<PauseOutcome> {
    return this.change(undefined, (s) => ({ ...s, all: true }), true)
  }

  /** Lifts every pause: the global one and each session's. */
  resumeAll(): Promise<PauseOutcome> {
    return this.change(undefined, () => emptyPauseState(), false)
  }

  private async change(sessionID: string | undefined, edit: (s: PauseState) => PauseState, pausing: boolean): Promise<PauseOutcome> {
    try {
      if (sessionID !== undefined) {
        const problem = sessionIdProblem(sessionID)
        if (problem) return { ok: false, error: `${problem}: ${printable(sessionID)}` }
      }
      if (this.resetting) await this.resetting
      if (!pausing) {
        if (sessionID === undefined) {
          this.memoryPaused.clear()
          this.memoryAll = false
        } else this.memoryPaused.delete(sessionID)
      }
      try {
        const { state, problem } = await this.file.update(edit)
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
