/**
 * A plugin instance's life, the same on both hosts: the engine and the pause store it reads,
 * the startup lines, one live instance per registry slot, and the watch state handed from the
 * instance that stops to the next. An adapter adds its intake and its registrations.
 *
 * The slot is claimed once everything that could throw is built, so a start that fails leaves
 * the running instance alone; that one stops inside the claim and leaves its sessions behind.
 */
import type { TimeSource } from "../core/clock.ts"
import { RecoveryEngine } from "../core/engine.ts"
import { recoveryPaths } from "../paths/index.ts"
import { errorText } from "../core/logger.ts"
import type { PauseSource } from "../core/pauses.ts"
import type { HostPort, LogLevel } from "../core/port.ts"
import type { ResolvedOptions } from "../options/index.ts"
import { hostPauses, type HostPauses } from "../stores/file-pauses.ts"
import { hostRateWaits } from "../stores/wait-file.ts"
import { FileGoals, goalFilePath } from "../stores/goal-file.ts"
import { claimSlot, nextSerial, releaseSlot, type HeldSlot, type SlotHolder } from "./registry.ts"
import { startupLine } from "./startup.ts"
import { withHistory } from "./with-history.ts"
import { historyStore, type HistoryStore } from "../stores/journal-file.ts"
import { exportWatchState, importWatchState, type WatchSnapshot } from "./watch-state.ts"

/** A live instance; its engine answers for instances it superseded (1.x task_complete). */
export type InstanceHolder = SlotHolder & { readonly engine: RecoveryEngine }

export type InstanceSlot = HeldSlot & {
  holder?: InstanceHolder
  /** Left by the previous holder when it stopped; taken by the next one. */
  watch?: WatchSnapshot
}

export type InstanceDeps = {
  host: "v1" | "v2"
  slot: InstanceSlot
  resolved: ResolvedOptions
  time: TimeSource
  port: HostPort
  /** Where the pause marker file lives (XDG_CONFIG_HOME, HOME), unless `pauses` replaces it (tests). */
  env: Record<string, string | undefined>
  pauses?: PauseSource
  /** The folder this instance runs for: only its waits are taken over after a restart. */
  directory?: string
  /** Keep rate-limit waits in the wait file even with injected pauses (tests of the file). */
  rateWaitFile?: boolean
  /** The history of interventions; by default the journal file beside the pause marker, none when `pauses` is injected. */
  history?: HistoryStore
  /** The sessions' goals; by default the goal file beside the pause marker, none when `pauses` is injected. */
  goals?: FileGoals
  onSessionDropped?: (sessionID: string) => void
}

export type Instance = {
  readonly serial: number
  readonly engine: RecoveryEngine
  readonly pauses: HostPauses
  /** Where the interventions are kept, when this instance keeps them. */
  readonly history: HistoryStore | undefined
  /** Where the sessions' goals are kept, when this instance keeps them (what `/auto-resume goal` writes). */
  readonly goals: FileGoals | undefined
  readonly stopped: boolean
  /** Runs `fn` when the instance stops, after its state is handed over and before the engine goes. */
  onStop(fn: () => void): void
  /** A registration that settles later: disposed when the instance stops, or at once if it has. */
  keep<T extends { dispose(): void } | undefined>(pending: Promise<T>): Promise<T>
  /** Hands the state over, stops the engine, the pauses and what `onStop` named, frees the slot. Idempotent. */
  stop(reason?: string): void
}

/** A goal's budgets as configured (a profile may change them per session: the engine's status says so then). */
export function goalLimitsOf(resolved: ResolvedOptions): { maxContinues: number; maxMs: number } {
  return { maxContinues: resolved.options.goalMaxContinues, maxMs: resolved.options.goalMaxMs }
}

export function startInstance(deps: InstanceDeps): Instance {
  const { slot, resolved, time, port } = deps
  const serial = nextSerial()
  const log = (level: LogLevel, message: string) => port.log(level, message)
  // The marker file, shared with every OpenCode process and the CLI (stores/file-pauses.ts).
  const pauses = hostPauses({ injected: deps.pauses, env: deps.env, recheckMs: resolved.options.checkIntervalMs, time, log })
  // Beside the marker; with injected pauses (tests) only when asked for.
  const waits = deps.pauses && !deps.rateWaitFile ? undefined : hostRateWaits({ env: deps.env, directory: deps.directory, time, log })
  const history = deps.history ?? (deps.pauses ? undefined : historyStore(deps.env, log))
  // Beside the marker too, shared with the CLI; re-read at most once per check interval.
  const goals = deps.goals ?? (deps.pauses ? undefined : new FileGoals({ file: goalFilePath(deps.env), recheckMs: resolved.options.checkIntervalMs, time, log }))
  const engine = new RecoveryEngine({
    port: withHistory(port, history),
    time,
    options: resolved,
    paths: recoveryPaths,
    pauses: pauses.source,
    rateWaits: waits?.store,
    goals,
    onSessionDropped: deps.onSessionDropped,
    onSessionDeleted: (sessionID) => goals?.forget(sessionID),
  })
  log("info", `${startupLine(deps.host, resolved)}; instance #${serial}`)
  for (const warning of resolved.warnings) log("warn", warning)

  let stopped = false
  const stoppers: (() => void)[] = []
  const holder: InstanceHolder = { serial, engine, stop: (reason) => stop(reason) }
  claimSlot(slot, holder)
  adoptWatchState()
  waits?.restore(engine, port, resolved.options.sendTimeoutMs)

  function adoptWatchState(): void {
    const snapshot = slot.watch
    slot.watch = undefined
    if (!resolved.options.shareWatchState || !snapshot) return
    const taken = importWatchState(engine, snapshot, time.now())
    if (taken === undefined) log("warn", "shareWatchState: this engine cannot take over session state; starting fresh")
    else if (taken > 0) log("info", `shareWatchState: took over ${taken} session(s) from the previous instance`)
  }

  function leaveWatchState(): void {
    // Left for the next instance before the engine forgets it; it takes it only with shareWatchState.
    try {
      const snapshot = exportWatchState(engine, time.now())
      if (snapshot) slot.watch = snapshot
      else if (resolved.options.shareWatchState) log("warn", "shareWatchState: this engine's session state cannot be read; the next instance starts fresh")
    } catch (error) {
      log("warn", `could not keep session state for the next instance: ${errorText(error)}`)
    }
  }

  function stop(reason = "cleanup"): void {
    if (stopped) return
    stopped = true
    leaveWatchState()
    log("info", `instance #${serial} stopped (${reason})`)
    for (const fn of stoppers) {
      try {
        fn()
      } catch (error) {
        log("warn", `stopping part of instance #${serial} failed: ${errorText(error)}`)
      }
    }
    engine.dispose()
    // The host disposing the plugin is a clean exit (the user quit): this process's waits end.
    // A replaced instance leaves them for its successor in the same process.
    if (!reason.startsWith("superseded")) waits?.store.endAll()
    // The engine settled what was pending as it stopped: on disk before the process may exit.
    history?.close()
    pauses.stop()
    releaseSlot(slot, holder)
  }

  return {
    serial,
    engine,
    pauses,
    history,
    goals,
    get stopped() {
      return stopped
    },
    onStop: (fn) => void stoppers.push(fn),
    keep: (pending) =>
      pending.then((registration) => {
        if (stopped) registration?.dispose()
        else if (registration) stoppers.push(() => registration.dispose())
        return registration
      }),
    stop,
  }
}
