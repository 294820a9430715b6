/**
 * The OpenCode 2.x adapter: `setup(ctx)` for a real 2.x host. Events in (`ctx.event.subscribe`),
 * signals to the core, effects out through the v2 port; the lifecycle is the shared one
 * (../instance.ts), one live instance per location (registry.ts, keyed by `ctx.location`).
 * The returned cleanup stops every timer, the subscription and the registrations.
 *
 * Unlike v1 (host/v1/stream-timeouts.ts) nothing here shortens the host's provider stream
 * timeouts: the documented 2.x context has no config hook and no way to set
 * provider options, so there is no surface to do it through.
 */
import type { TimeSource } from "../../core/clock.ts"
import { errorText } from "../../core/logger.ts"
import type { PauseSource } from "../../core/pauses.ts"
import { resolveOptions } from "../../options/index.ts"
import type { LogLevel, Signal } from "../../core/port.ts"
import { realTime, wallClock } from "../real-time.ts"
import { get, str } from "../shape.ts"
import { goalLimitsOf, startInstance, type Instance } from "../instance.ts"
import { turnSetupOf } from "../normalize.ts"
import { registerV2PauseCommand, type Disposable } from "./command.ts"
import { callCtx, hostDirectory, hostLocation } from "./context.ts"
import { belongsHere, decodeV2Event, mapDecoded, SUBSCRIBED_TYPES, ToolNamesByCall } from "./events.ts"
import { eventSubscriber } from "./subscribe.ts"
import { RunMemory } from "./run-memory.ts"
import { defaultLogPath, FileLog, formatLogLine } from "./file-log.ts"
import type { FetchLike } from "./http.ts"
import { createV2Port, type V2Port } from "./port.ts"
import { EventPump } from "./pump.ts"
import { getSlot, sharedFileLog, type Slot } from "./registry.ts"
import { slotKey } from "../registry.ts"
import { registerRetryHooks } from "./retry-hook.ts"
import { registerTaskComplete, TASK_COMPLETE_TOOL, type Registration, type TaskCompleteCall } from "./task-complete.ts"
import { HistoryWatcher } from "./user-turns.ts"

/** What tests may inject; production uses the real clock, global fetch, the log file and the pause marker file. */
export type V2Deps = {
  env?: Record<string, string | undefined>
  time?: TimeSource
  /** Replaces the pause marker file; `/auto-resume` is registered only if it can pause and resume. */
  pauses?: PauseSource
  fetch?: FetchLike
  /** Keep rate-limit waits in the wait file even with injected pauses (tests). */
  rateWaitFile?: boolean
  /** Replaces the log file (tests). */
  writeLog?: (level: LogLevel, message: string, extra?: Record<string, unknown>) => void
}

export type V2Instance = Pick<Instance, "serial" | "engine" | "stopped" | "stop"> & {
  readonly port: V2Port
  readonly pump: EventPump
  readonly slot: Slot
  /** Settles once task_complete registration has been tried. */
  readonly registered: Promise<Registration | undefined>
  /** What the engine asks whether a session is paused (the marker file unless injected). */
  readonly pauses: PauseSource
  /** Settles once `/auto-resume` registration has been tried (undefined: not registered). */
  readonly commandRegistered: Promise<Disposable | undefined>
}

/** Inbox admissions carry the admitted item: classified at once. */
const INBOX_ADMITTED = new Set(["session.inbox.enqueued", "session.input.admitted"])
/** A queued item became a message: read the history. */
const INBOX_DELIVERED = new Set(["session.inbox.delivered", "session.input.promoted"])
const RUN_ENDED = new Set(["session.execution.succeeded", "session.execution.failed", "session.execution.interrupted"])

function defaultFetch(): FetchLike | undefined {
  return typeof globalThis.fetch === "function" ? (globalThis.fetch.bind(globalThis) as unknown as FetchLike) : undefined
}

type LogWriter = NonNullable<V2Deps["writeLog"]>

function fileLogWriter(env: Record<string, string | undefined>, time: TimeSource): LogWriter {
  const path = defaultLogPath(env)
  if (!path) return () => undefined
  const file = sharedFileLog(path, () => new FileLog(path))
  return (level, message, extra) => file.write(formatLogLine(time.now(), level, message, extra))
}

export function startV2(ctx: unknown, deps: V2Deps = {}): V2Instance {
  const env = deps.env ?? {}
  const time = deps.time ?? realTime()
  const resolved = resolveOptions(get(ctx, "options"), env)
  const slot = getSlot(slotKey(resolved.options.registryScope), hostLocation(ctx))
  const writeLog = deps.writeLog ?? fileLogWriter(env, time)
  const port = createV2Port({
    ctx,
    resolved,
    time,
    shared: { own: slot.own, sendLog: slot.sendLog, syntheticRefused: slot.syntheticRefused },
    fetch: deps.fetch ?? defaultFetch(),
    writeLog,
  })

  const instance = startInstance({ host: "v2", slot, resolved, time, port, env, pauses: deps.pauses, directory: hostDirectory(ctx), rateWaitFile: deps.rateWaitFile })
  const { engine, serial, stop } = instance

  const tools = new ToolNamesByCall()
  const memory = new RunMemory()
  const firstStepPending = new Set<string>()
  /** Genuine turns reported before their model was known; the run's first step names it. */
  const setupPending = new Set<string>()
  const directory = hostDirectory(ctx)
  const handle = (signal: Signal) => engine.handle(signal)
  const timeoutMs = () => resolved.options.sendTimeoutMs
  const watcher = new HistoryWatcher({
    own: slot.own,
    seen: slot.seen,
    time,
    readRaw: (sessionID, limit) => port.readRaw(sessionID, limit),
    timeoutMs,
    knownSetup: (sessionID) => slot.stepSetups.get(sessionID),
    emit: handle,
    onReadError: (error) => engine.logger.fault("history-read", `reading history for user turns failed: ${errorText(error)}`),
    onSetupUnknown: (sessionID) => {
      if (setupPending.size < 1000) setupPending.add(sessionID)
    },
  })

  const wallNow = wallClock(time)
  function onEvent(raw: unknown): void {
    if (instance.stopped) return
    const event = decodeV2Event(raw, memory)
    if (!event?.sessionID || !belongsHere(event, directory)) return
    const sessionID = event.sessionID
    const { type, data } = event
    if (INBOX_ADMITTED.has(type)) watcher.inboxItem(sessionID, data)
    if (type === "session.execution.interrupted") {
      watcher.interrupted(sessionID)
      setupPending.delete(sessionID)
    }
    if (RUN_ENDED.has(type)) firstStepPending.delete(sessionID)
    if (type === "session.step.started") noteStepSetup(sessionID, data)

    const now = time.now()
    for (const signal of mapDecoded(event, sessionID, tools, wallNow, memory)) engine.handle(signal, now)

    if (type === "session.execution.started") {
      if (firstStepPending.size < 1000) firstStepPending.add(sessionID)
      void watcher.scan(sessionID)
    } else if (type === "session.step.started" && firstStepPending.delete(sessionID)) {
      // The message that started the run may only be stored by the first step.
      void watcher.scan(sessionID)
    } else if (INBOX_DELIVERED.has(type)) {
      void watcher.scan(sessionID)
    }
  }

  /**
   * 2.x names the model only when a step starts, after the user's message was admitted. A turn
   * reported without it (the first in a session) gets it afterwards as a turnSetup, so the session
   * gets its profile's budgets (a local model's slow profile) from its first turn on.
   */
  function noteStepSetup(sessionID: string, data: unknown): void {
    const providerID = str(get(data, "model", "providerID"))
    const modelID = str(get(data, "model", "id")) ?? str(get(data, "model", "modelID"))
    const agent = str(get(data, "agent"))
    if (!agent && !(providerID && modelID)) return
    const setup = turnSetupOf(agent, providerID, modelID)
    slot.stepSetups.set(sessionID, setup)
    if (setup.model && setupPending.delete(sessionID)) handle({ type: "turnSetup", sessionID, setup })
  }

  const pump = new EventPump({
    subscribe: eventSubscriber(ctx, SUBSCRIBED_TYPES, (message) => engine.logger.log("info", message)),
    onEvent,
    time,
    log: (level, message) => (level === "warn" ? engine.logger.fault("event-stream", message) : engine.logger.log(level, message)),
  })

  instance.onStop(() => {
    pump.stop()
    watcher.stop()
  })
  const log = (level: LogLevel, message: string) => engine.logger.log(level, message)
  const registered = instance.keep(
    registerTaskComplete(ctx, { log, onCall: async (call) => (call.sessionID ? engine.callTool(call.sessionID, TASK_COMPLETE_TOOL, { evidence: call.evidence }) : { ok: true, text: "Noted." }) }),
  )
  // The host's own retries, timed by the cooldown ladder (retry-hook.ts); disposed on cleanup.
  instance.keep(
    registerRetryHooks(ctx, { decide: (sessionID, proposal) => engine.hostRetry(sessionID, proposal), live: () => !instance.stopped, time, wallNow, log, timeoutMs }),
  ).catch((error: unknown) => engine.logger.log("warn", `session hooks not registered: ${errorText(error)}`))
  // `/auto-resume` writes the store the engine reads; replies are bounded like any host call.
  const control = instance.pauses.control
  const commandRegistered = instance.keep(
    control
      ? registerV2PauseCommand(ctx, { engine, pauses: control, history: instance.history, goals: instance.goals, goalLimits: goalLimitsOf(resolved), log, now: () => time.now(), syntheticRefused: slot.syntheticRefused, time, timeoutMs })
      : Promise.resolve(undefined),
  )

  return {
    serial,
    engine,
    port,
    pump,
    slot,
    registered,
    pauses: instance.pauses.source,
    commandRegistered,
    get stopped() {
      return instance.stopped
    },
    stop,
  }
}

export function setupV2(ctx: unknown, deps: V2Deps = {}): (() => void) | undefined {
  let instance: V2Instance
  try {
    instance = startV2(ctx, deps)
  } catch (error) {
    try {
      const write = deps.writeLog ?? fileLogWriter(deps.env ?? {}, deps.time ?? realTime())
      write("error", `opencode-auto-resume disabled: failed to start: ${errorText(error)}`)
    } catch {
      // Nowhere left to report it.
    }
    return undefined
  }
  return () => {
    try {
      instance.stop("cleanup")
    } catch {
      // Cleanup must never throw into the host.
    }
  }
}
