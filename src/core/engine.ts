/**
 * The recovery engine: the session table, discovery and housekeeping around the paths'
 * runtime (runtime/paths.ts), which runs the recovery paths it is handed. Adapters feed it
 * `Signal`s (applied to a session's state in apply-signal.ts); it acts only through the
 * `HostPort`. It owns no real time, and one timer per session (scheduler.ts): every path's wake
 * and every effect's pause share it.
 */
import { type HostPort, type ModelRef, type Signal } from "./port.ts"
import { effectiveOptions } from "../options/index.ts"
import type { Options, ResolvedOptions } from "../options/index.ts"
import type { CancelTimer, TimeSource } from "./clock.ts"
import type { EngineContext } from "./context.ts"
import { userTurnModel } from "./fallback.ts"
import { WakeScheduler } from "./scheduler.ts"
import { SessionDiscovery, sessionsToDiscover } from "./discovery.ts"
import { ToolNames } from "./tool-names.ts"
import { ModelContextReader } from "./model-context.ts"
import { CoreLogger, errorText } from "./logger.ts"
import { MemoryPauses, type PauseSource } from "./pauses.ts"
import type { SessionState } from "./session-state.ts"
import { applySignal, noteModelOutput } from "./apply-signal.ts"
import { MAX_TRACKED_SESSIONS, SessionTable } from "./session-table.ts"
import { snapshotOf, type SessionSnapshot } from "./session-snapshot.ts"
import { takeOverSnapshots, takeOverWaits, type TakeOverDeps } from "./take-over.ts"
import { cancelRecovery } from "./intervention.ts"
import { JournalBook } from "./journal-book.ts"
import { Notices } from "./notices.ts"
import { PathRuntime, type ToolReply } from "../runtime/paths.ts"
import { FinishedTurn } from "../runtime/turn-pass.ts"
import { actGate } from "../runtime/may-act.ts"
import type { AnyPath, ToolArgs } from "../runtime/path.ts"
import { sessionStatus, type SessionStatus } from "./status.ts"
import type { RateWaitStore, RestoredWait } from "./carried-waits.ts"
import type { GoalSource } from "./goals.ts"
import type { HostRetryDecision, HostRetryProposal } from "./host-retry.ts"

export { MAX_TRACKED_SESSIONS } from "./session-table.ts"
/** The answer to a call of our tools when no path can give one. */
const NOTED: ToolReply = { ok: true, text: "Noted." }
/** How often idle sessions are swept. */
export const CLEANUP_SWEEP_MS = 60_000

export type EngineDeps = {
  port: HostPort
  time: TimeSource
  options: ResolvedOptions
  pauses?: PauseSource
  /** Keeps rate-limit waits across a restart (pause/rate-wait-store.ts); absent: in memory only. */
  rateWaits?: RateWaitStore
  /** The sessions' goals (goals.ts; stores/goal-file.ts); absent: no session has a goal. */
  goals?: GoalSource
  /**
   * The recovery paths to run (runtime/path.ts), handed in by whoever starts the engine
   * (host/instance.ts passes paths/index.ts): the engine names none of them.
   */
  paths: readonly AnyPath[]
  /** A session left the table (swept, evicted, deleted): adapters drop what they keep for it. */
  onSessionDropped?: (sessionID: string) => void
  /** The host deleted a session (tracked or not): what is kept for it beyond the table goes too (its goal). */
  onSessionDeleted?: (sessionID: string) => void
}

export class RecoveryEngine {
  private readonly sessions = new SessionTable((state) => this.forget(state))
  private readonly ctx: EngineContext
  private readonly resolved: ResolvedOptions
  private readonly idle: FinishedTurn
  private readonly discovery: SessionDiscovery
  /** The recovery paths (EngineDeps.paths), run by the runtime. */
  private readonly paths: PathRuntime
  private readonly scheduler: WakeScheduler
  /** What the user is told at once (notices.ts), heard from the history as it is made. */
  private readonly notices: Notices
  private sweepTimer?: CancelTimer
  private disposed = false
  readonly pauses: PauseSource
  private readonly onSessionDropped?: (sessionID: string) => void
  private readonly onSessionDeleted?: (sessionID: string) => void

  constructor(deps: EngineDeps) {
    this.resolved = deps.options
    this.onSessionDropped = deps.onSessionDropped
    this.onSessionDeleted = deps.onSessionDeleted
    this.pauses = deps.pauses ?? new MemoryPauses()
    const logger = new CoreLogger(deps.port, () => this.resolved.options.debug)
    this.notices = new Notices(() => this.ctx)
    this.scheduler = new WakeScheduler(deps.time, (state, now) => this.ctx.mayAct(state, "touch", now)?.reason, (owner, error) => {
      logger.fault(`wake:${owner}`, `${owner} failed on its wake: ${errorText(error)}`)
    })
    this.ctx = {
      wake: (state, owner, at, run) => this.scheduler.set(state, owner, at, run),
      time: deps.time,
      port: deps.port,
      logger,
      pauses: this.pauses,
      rateWaits: deps.rateWaits,
      goals: deps.goals,
      journal: new JournalBook(() => this.ctx, (state, entry, outcome) => this.notices.heard(state, entry, outcome)),
      effective: (state) => this.effective(state),
      mayAct: actGate({
        paused: (id) => this.pauses.isPaused(id),
        pathHold: (state, now) => this.paths.holds(state, now),
        waitedOnSettled: (state, now) => this.paths.waitedOnSettled(state, now),
      }),
      userStopped: (state) => {
        if (state.dropped) state.cancelledByUser = true
        else this.handle({ type: "interrupted", sessionID: state.id, byUser: true, settledLate: true })
      },
      standDown: (state) => {
        this.paths.standDown(state)
        cancelRecovery(state.intervention)
        this.idle.cancel(state)
      },
    }
    const toolNames = new ToolNames(this.ctx, () => this.resolved.options.sendTimeoutMs)
    const modelContext = new ModelContextReader(this.ctx)
    this.paths = new PathRuntime(
      this.ctx,
      deps.paths,
      toolNames,
      // A failed look-up is no decision: the rule is handed nothing.
      (state) => (state.setup.model ? modelContext.read(state.setup.model, state.parentID === undefined, this.ctx.effective(state).sendTimeoutMs).catch(() => undefined) : Promise.resolve(undefined)),
      // The paths' look at other sessions wants them all, in no order: no re-sort of the table for it.
      { get: (id) => this.sessions.get(id), values: () => this.sessions.all() },
    )
    this.paths.checkModels(this.resolved)
    // The finished-turn rules of every path, in their priority order: the runtime knows none of them.
    this.idle = new FinishedTurn(this.ctx, this.paths.turnRules())
    this.discovery = new SessionDiscovery(this.ctx, sessionsToDiscover(this.ctx, this.sessions, this.resolved.options.checkIntervalMs, (signal) => this.handle(signal)), this.resolved.options)
    this.discovery.start()
    this.scheduleSweep()
  }

  get logger(): CoreLogger {
    return this.ctx.logger
  }

  /**
   * Feeds one normalized host signal. Never throws. `now` lets an adapter that already read
   * the clock for this event pass it on (one clock read per event).
   */
  handle(signal: Signal, now?: number): void {
    if (this.disposed) return
    if (signal?.type === "modelOutput") return this.output(signal.sessionID, signal.part, signal.delta, signal.text, now, signal)
    let state: SessionState | undefined
    const at = now ?? this.ctx.time.now()
    try {
      state = this.route(signal, at)
    } catch (error) {
      this.ctx.logger.fault("engine", `signal ${signal?.type} failed: ${errorText(error)}`)
    }
    if (state) this.paths.signal(state, signal, at)
  }

  /**
   * Model output, most of the traffic, with no signal object around it (the 1.x streaming path
   * calls this directly): the stamps, liveness and the text (`part` with `delta` or its whole
   * `text` so far) to the paths that hear them, and the signal to the paths that declared it only
   * for sessions one of them asked about (`outputWatched`, the `watch-output` effect). Never throws.
   */
  output(sessionID: string, part?: string, delta?: string, text?: string, now?: number, signal?: Extract<Signal, { type: "modelOutput" }>): void {
    if (this.disposed) return
    let state: SessionState | undefined
    const at = now ?? this.ctx.time.now()
    try {
      state = this.modelOutput(sessionID, at)
    } catch (error) {
      this.ctx.logger.fault("engine", `signal modelOutput failed: ${errorText(error)}`)
    }
    if (!state) return
    if (part !== undefined) this.paths.text(state, part, delta, text, at)
    if (state.outputWatched) this.paths.signal(state, signal ?? { type: "modelOutput", sessionID, part, delta, text }, at)
  }

  /**
   * Where a genuine user message of this session should go (fallback.ts userTurnModel): the
   * user's own model when it is aimed at the fallback model that took over, else undefined.
   * Asked by an adapter that can still change the message before the host runs it. Never throws.
   */
  userTurnModel(sessionID: string, model: ModelRef | undefined): ModelRef | undefined {
    try {
      return userTurnModel(this.sessions.get(sessionID)?.fallback, model)
    } catch {
      return undefined
    }
  }

  status(sessionID: string): SessionStatus | undefined {
    const state = this.sessions.get(sessionID)
    if (!state) return undefined
    const status = sessionStatus(state, this.ctx.time.now(), this.effective(state), this.pauses.isPaused(sessionID))
    const more = this.paths.status(state)
    const now = this.ctx.time.now()
    const held = this.paths.holds(state, now)
    const notice = this.notices.last(state)
    return { ...status, ...(more ?? {}), ...(held ? { heldBy: held } : {}), ...(notice ? { notice } : {}) }
  }

  /** The host proposes its own retry (host-retry.ts): the decision to make instead, or undefined to let it stand. Never throws. */
  hostRetry(sessionID: string, proposal: HostRetryProposal): HostRetryDecision | undefined {
    if (this.disposed || typeof sessionID !== "string" || sessionID === "") return undefined
    try {
      // Only a session this instance watches: the hook may be the whole process's, and another
      // location's session is another instance's to shape.
      const state = this.sessions.get(sessionID)
      if (!state) return undefined
      return this.paths.retryProposed(state, proposal, this.ctx.time.now())
    } catch (error) {
      this.ctx.logger.fault("engine", `host retry failed: ${errorText(error)}`)
      return undefined
    }
  }

  /**
   * A tool of ours (task_complete) was called in a session: the answer of the path that answers
   * it (RecoveryPath.tools), or a plain acknowledgement when none can; `args`: what the model
   * passed (task_complete's `evidence`). Never throws.
   */
  async callTool(sessionID: string, tool: string, args?: ToolArgs): Promise<ToolReply> {
    try {
      const now = this.ctx.time.now()
      return (await this.paths.call(this.sessions.touch(sessionID, now), tool, now, args)) ?? NOTED
    } catch (error) {
      this.ctx.logger.fault(tool, `${tool} failed: ${errorText(error)}`)
      return NOTED
    }
  }

  /** Every tracked session as plain data (see session-snapshot.ts), with the path states that outlive a reload. */
  exportSessions(): SessionSnapshot[] {
    return [...this.sessions.values()].map((state) => snapshotOf(state, this.paths.saved(state)))
  }

  /** Takes over sessions from a previous instance; skips ids already tracked. Returns how many. */
  importSessions(snapshots: readonly unknown[]): number {
    return takeOverSnapshots(this.takeOver, snapshots)
  }

  /** Rate-limit waits a previous process left behind (take-over.ts). Never throws. */
  restoreRateWaits(waits: readonly RestoredWait[]): number {
    return takeOverWaits(this.takeOver, waits)
  }

  private get takeOver(): TakeOverDeps {
    return {
      ctx: this.ctx,
      sessions: this.sessions,
      adopted: (s, saved) => this.paths.adopted(s, saved),
      restoreWait: (s, wait) => this.paths.waitRestored(s, wait, this.ctx.time.now()),
      handle: (signal) => this.handle(signal),
      disposed: () => this.disposed,
    }
  }

  get trackedSessions(): number {
    return this.sessions.size
  }

  dispose(): void {
    this.disposed = true
    this.sweepTimer?.()
    this.discovery.stop()
    this.ctx.journal?.flush()
    this.scheduler.dispose()
    this.sessions.clear()
  }

  private effective(state: SessionState): Options {
    return effectiveOptions(this.resolved, state.setup.model?.providerID)
  }

  /** Applies a signal to its session's state; returns the state when the paths should hear it. */
  private route(signal: Signal, now: number): SessionState | undefined {
    if (!signal || typeof signal.sessionID !== "string" || signal.sessionID === "") return undefined
    if (signal.type === "sessionDeleted") {
      this.sessions.deleted(signal.sessionID)
      try {
        this.onSessionDeleted?.(signal.sessionID)
      } catch (error) {
        this.ctx.logger.fault("engine", `session deletion callback failed: ${errorText(error)}`)
      }
      return undefined
    }
    const state = this.sessions.touch(signal.sessionID, now)
    state.lastSeenAt = now

    const liveness = applySignal(this.ctx, this.idle, state, signal, now)
    if (liveness) this.paths.liveness(state, liveness, now)
    return state
  }

  /** route() for model output, without its dispatch: stamps, then liveness to the paths. */
  private modelOutput(sessionID: string, now: number): SessionState | undefined {
    if (typeof sessionID !== "string" || sessionID === "") return undefined
    const state = this.sessions.touch(sessionID, now)
    state.lastSeenAt = now
    noteModelOutput(state, now)
    this.paths.liveness(state, "live", now)
    return state
  }

  private scheduleSweep(): void {
    this.sweepTimer = this.ctx.time.schedule(CLEANUP_SWEEP_MS, () => {
      this.sweep()
      if (!this.disposed) this.scheduleSweep()
    })
  }

  /** Drops idle sessions that are old or beyond the idle cap (runs every CLEANUP_SWEEP_MS). */
  sweep(): void {
    // A session with a wake still due (a judgement, a wait) stays: the wake would vanish with it.
    this.sessions.sweep(this.ctx.time.now(), (state) => this.scheduler.next(state) !== undefined || this.paths.keeps(state))
  }

  private forget(state: SessionState): void {
    this.ctx.journal?.forget(state)
    this.notices.forget(state)
    state.dropped = true
    this.scheduler.clear(state)
    cancelRecovery(state.intervention)
    // Not when the engine goes away: what the paths keep outside a session (a wait in the wait
    // file) is the next instance's to take over, or the dispose hook's to end on a clean exit.
    if (!this.disposed) this.paths?.dropped(state)
    try {
      this.onSessionDropped?.(state.id)
    } catch (error) {
      this.ctx.logger.fault("engine", `session cleanup callback failed: ${errorText(error)}`)
    }
  }
}
