/**
 * The Host port on OpenCode 2.x: `ctx.session.*`, `ctx.tool.*`, `ctx.plugin.*`, `ctx.model.*`,
 * plus the host's own HTTP server for the two reads ctx does not offer.
 * Some providers refuse synthetic messages: a synthetic call that rejects, throws or is missing
 * falls back to `prompt`, and the session stays on `prompt` afterwards. One that hangs does not
 * fall back (it may still land, and a prompt too could deliver the recovery twice);
 * `sendTimeoutMs` bounds it.
 * v2 hot reload can leave two live instances that send the same prompt milliseconds apart, so
 * three guards span instances: the process-wide send log (`injectIntervalMs`), a look at the
 * last messages before each send (an identical own message with no answer and no idle marker
 * after it means this recovery is already on its way), and an id of our own on every send
 * (send-id.ts), which the host refuses a second time with a conflict: read as "already sent".
 */
import type { ResolvedOptions } from "../../options/index.ts"
import type { TimeSource } from "../../core/clock.ts"
import { withTimeout } from "../../core/host-calls.ts"
import type { HostPort, LogLevel, ModelRef, SendRequest } from "../../core/port.ts"
import { get, num, str } from "../shape.ts"
import { modelOf } from "../normalize.ts"
import { callCtx, hasMethod, MissingMethodError, unwrapData } from "./context.ts"
import { HostHttp, MESSAGE_ROUTE_CAP, type FetchLike } from "./http.ts"
import { readTodosFromTranscript } from "../../todos/transcript-reader.ts"
import { hasOwnMarker, messageText, normalizeV2Messages, OWN_METADATA_KEY } from "./messages.ts"
import type { OwnSends } from "./user-turns.ts"
import { runningSessions } from "../signals.ts"
import { bookSend, isHiddenSend, type SendLog } from "../send-log.ts"
import { createModelSwitch } from "./model-switch.ts"
import { isConflict, ownMessageID } from "./send-id.ts"

const MAX_SEND_LOG_SESSIONS = 1000
/** Messages looked at before a send to find the same recovery still pending. */
const DUPLICATE_LOOKBACK = 6
/** Messages read to find the newest todo list. */
const TODO_LOOKBACK = 60

/** Process-wide state the port shares with other instances (see registry.ts). */
export type V2PortShared = {
  own: OwnSends
  sendLog: SendLog
  /** Sessions whose provider refused a synthetic message: they get prompts from then on. */
  syntheticRefused: Set<string>
}

export type V2PortDeps = {
  ctx: unknown
  resolved: ResolvedOptions
  time: TimeSource
  shared: V2PortShared
  fetch?: FetchLike
  /** Receives one formatted line per log call. */
  writeLog: (level: LogLevel, message: string, extra?: Record<string, unknown>) => void
}

export type V2Port = HostPort & {
  /** Raw 2.x messages, oldest first (the user-turn watcher needs the idle markers). */
  readRaw(sessionID: string, limit: number): Promise<unknown[]>
}

/** Orders a message page oldest first: by timestamps when they tell, else by the route's known order. */
function oldestFirst(list: unknown[], assumeNewestFirst: boolean): unknown[] {
  const times = list.map((m) => num(get(m, "time", "created"))).filter((t): t is number => t !== undefined)
  const newestFirst = times.length >= 2 ? times[0]! > times[times.length - 1]! : assumeNewestFirst
  return newestFirst ? [...list].reverse() : list
}

function itemID(value: unknown): string | undefined {
  return str(get(value, "id")) ?? str(get(value, "item", "id"))
}

/** A `Model.Info` as 2.x lists it (the provider under any of its spellings). */
function modelRefOf(info: unknown): ModelRef | undefined {
  const providerID = str(get(info, "providerID")) ?? str(get(info, "provider", "id")) ?? str(get(info, "provider"))
  return modelOf(providerID, str(get(info, "id")) ?? str(get(info, "modelID")))
}

/** OpenCode 2.x names its subagent tool `subagent` (1.x: `task`). */
const V2_SUBAGENT_TOOLS: readonly string[] = ["subagent"]

export function createV2Port(deps: V2PortDeps): V2Port {
  const { ctx, time, shared } = deps
  const http = new HostHttp(ctx, deps.fetch, time, () => deps.resolved.options.sendTimeoutMs)
  const models = createModelSwitch(ctx)
  let compactMissingSaid = false

  async function readRaw(sessionID: string, limit: number): Promise<unknown[]> {
    const want = Math.max(1, Math.floor(limit))
    let contextError: unknown
    if (hasMethod(ctx, "session", "context")) {
      try {
        const list = unwrapData(await callCtx(ctx, "session", "context", { sessionID }))
        if (Array.isArray(list)) return oldestFirst(list, false).slice(-want)
        contextError = new Error("session.context returned no message list")
      } catch (error) {
        contextError = error
      }
    }
    if (!http.available) throw contextError ?? new MissingMethodError("session.context")
    // Newest first, asked for outright (the route takes order=asc|desc), within its 1-200 limit.
    const page = await http.getJson(`/api/session/${encodeURIComponent(sessionID)}/message`, { order: "desc", limit: Math.min(want, MESSAGE_ROUTE_CAP) })
    const list = unwrapData(page)
    if (!Array.isArray(list)) throw new Error("the message route returned no message list")
    return oldestFirst(list, true).slice(-want)
  }

  /**
   * A look at the last messages before a send: `pending` when the same text from us is still
   * waiting for an answer; `newestID`, the newest message's id (what the send's own id is
   * derived from, send-id.ts). The read gets half the send's time budget, so a slow history
   * never pushes the send itself past it.
   */
  async function lookBeforeSend(request: SendRequest, budgetMs: number): Promise<{ pending: boolean; newestID?: string }> {
    let recent: unknown[]
    try {
      recent = await withTimeout(time, Math.max(1, Math.floor(budgetMs / 2)), "history check before a send", () => readRaw(request.sessionID, DUPLICATE_LOOKBACK))
    } catch {
      return { pending: false } // an unreadable history must not block recovery
    }
    const newestID = str(get(recent[recent.length - 1], "id"))
    for (let i = recent.length - 1; i >= 0; i--) {
      const entry = recent[i]
      const type = str(get(entry, "type"))
      if (type === "assistant" || type === "idle") return { pending: false, newestID }
      if ((type === "user" || type === "synthetic") && messageText(entry) === request.text) {
        if (hasOwnMarker(entry) || shared.own.isOwn(request.sessionID, str(get(entry, "id")), request.text, time.now())) return { pending: true, newestID }
      }
    }
    return { pending: false, newestID }
  }

  /**
   * The core gives up on a send after sendTimeoutMs and may then send its next recovery, and
   * the user may have pressed ESC (or paused, or been asked) during the history check: a call
   * made after either would go out behind the core's back.
   */
  function checkDeadline(request: SendRequest, deadline: number): void {
    if (time.now() >= deadline) throw new Error(`${request.kind} not sent: its time (sendTimeoutMs) ran out before the call could be made`)
    const held = request.stillWanted?.()
    if (held) throw new Error(`${request.kind} not sent: ${held} since it was decided`)
  }

  async function deliver(request: SendRequest, hidden: boolean, deadline: number, extra: Record<string, unknown>): Promise<void> {
    const metadata = { [OWN_METADATA_KEY]: true, kind: request.kind }
    const { sessionID, text } = request
    const remember = (item: unknown) => {
      const id = itemID(item)
      if (id) shared.own.rememberID(sessionID, id)
    }
    // Another instance sent this very recovery first: it is in the session, which is all we wanted.
    const alreadySent = (error: unknown): boolean => {
      if (!isConflict(error)) return false
      if (typeof extra.id === "string") shared.own.rememberID(sessionID, extra.id)
      deps.writeLog("info", `session ${sessionID}: ${request.kind} already sent (the host has message ${String(extra.id)}: another instance sent it first)`)
      return true
    }
    if (hidden && hasMethod(ctx, "session", "synthetic") && !shared.syntheticRefused.has(sessionID)) {
      try {
        return remember(await callCtx(ctx, "session", "synthetic", { sessionID, text, description: "auto-resume", metadata, resume: true, ...extra }))
      } catch (error) {
        if (alreadySent(error)) return
        if (shared.syntheticRefused.size < MAX_SEND_LOG_SESSIONS) shared.syntheticRefused.add(sessionID)
        const why = (error instanceof Error ? error.message : String(error)).slice(0, 200)
        deps.writeLog("warn", `session ${sessionID}: synthetic message refused (${why}); sending a visible prompt instead`)
        checkDeadline(request, deadline)
      }
    }
    try {
      remember(await callCtx(ctx, "session", "prompt", { sessionID, text, metadata, ...extra }))
    } catch (error) {
      if (!alreadySent(error)) throw error
    }
  }

  return {
    readRaw,
    subagentTools: V2_SUBAGENT_TOOLS,

    async send(request) {
      const now = time.now()
      // Reserved before anything is awaited, so a second instance racing us is refused.
      const options = bookSend(shared.sendLog, deps.resolved, request, now)
      const deadline = now + options.sendTimeoutMs
      shared.own.rememberText(request.sessionID, request.text, now)
      const look = await lookBeforeSend(request, options.sendTimeoutMs)
      if (look.pending) {
        deps.writeLog("info", `session ${request.sessionID}: ${request.kind} not sent: the same message is already waiting in the session`)
        return
      }
      checkDeadline(request, deadline)
      const extra = await models.select(request)
      checkDeadline(request, deadline)
      const id = ownMessageID(request.sessionID, request.path, request.attempt, look.newestID)
      await deliver(request, isHiddenSend(request.kind, options), deadline, id ? { ...extra, id } : extra)
    },

    restoreModel: (sessionID, model) => models.restore(sessionID, model),

    async listModels() {
      const list = unwrapData(await callCtx(ctx, "model", "list"))
      if (!Array.isArray(list)) return []
      // Model.Info `enabled: false`: listed, but the host will not run it.
      return list.filter((info) => get(info, "enabled") !== false).flatMap((info) => modelRefOf(info) ?? [])
    },

    async abort(sessionID) {
      const result = await callCtx(ctx, "session", "interrupt", { sessionID })
      // 2.x says whether there was a run to stop. `false`: it had already ended (the user's ESC
      // a moment earlier, or it finished), so an interruption just reported is not ours.
      if (get(result, "interrupted") === false) throw new Error("session.interrupt found no run to stop")
    },

    log(level, message, extra) {
      try {
        deps.writeLog(level, message, extra)
      } catch {
        // The log must never take anything down with it.
      }
    },

    async readMessages(sessionID, limit) {
      return normalizeV2Messages(await readRaw(sessionID, limit)).slice(-Math.max(1, limit))
    },

    async readTodos(sessionID) {
      // 2.x has no todo API: a todo plugin's newest completed `todowrite` call is the list.
      const found = readTodosFromTranscript(normalizeV2Messages(await readRaw(sessionID, TODO_LOOKBACK)))
      if (found === "unreadable") throw new Error("the newest todowrite call does not hold a readable todo list")
      return found === "none" ? undefined : [...found]
    },

    async listBusySessions() {
      return runningSessions(unwrapData(await http.getJson("/api/session/active")), "v2")
    },

    async toolNames() {
      const list = unwrapData(await callCtx(ctx, "tool", "list"))
      if (!Array.isArray(list)) return []
      const names: string[] = []
      for (const tool of list) {
        if (typeof tool === "string") {
          names.push(tool)
          continue
        }
        // Code-mode tools are reachable only inside `execute`: not a name the model can call.
        if (get(tool, "codemode") === true || get(tool, "options", "codemode") === true) continue
        const name = str(get(tool, "name")) ?? str(get(tool, "id"))
        const namespace = str(get(tool, "options", "namespace")) ?? str(get(tool, "namespace"))
        if (name) names.push(namespace && !name.startsWith(`${namespace}_`) ? `${namespace}_${name}` : name)
      }
      return names
    },

    async compact(sessionID) {
      // Older 2.x builds have no session.compact: said once, then refused like any missing method.
      if (!hasMethod(ctx, "session", "compact")) {
        if (!compactMissingSaid) deps.writeLog("info", "session.compact is missing on this host build: native compaction is not offered")
        compactMissingSaid = true
        throw new MissingMethodError("session.compact")
      }
      await callCtx(ctx, "session", "compact", { sessionID })
    },

    async command(sessionID, name, args) {
      await callCtx(ctx, "session", "command", { sessionID, name, text: args })
    },

    async pluginNames() {
      const list = unwrapData(await callCtx(ctx, "plugin", "list"))
      if (!Array.isArray(list)) return []
      const names = new Set<string>()
      for (const info of list) {
        // Older builds name a package source `package`, newer ones `target`.
        for (const value of [get(info, "id"), get(info, "source", "package"), get(info, "source", "target"), get(info, "source", "name"), get(info, "source", "path")]) {
          const name = str(value)
          if (name) names.add(name)
        }
      }
      return [...names]
    },

    async modelLimits(model: ModelRef) {
      const isModel = (m: unknown) => {
        const ref = modelRefOf(m)
        return ref?.providerID === model.providerID && ref.modelID === model.modelID
      }
      const list = unwrapData(await callCtx(ctx, "model", "list"))
      let info = Array.isArray(list) ? list.find(isModel) : undefined
      // A model the listing leaves out may still be the default one.
      if (!info && hasMethod(ctx, "model", "default")) {
        const fallback = unwrapData(await callCtx(ctx, "model", "default"))
        if (isModel(fallback)) info = fallback
      }
      const context = num(get(info, "limit", "context"))
      const output = num(get(info, "limit", "output"))
      const input = num(get(info, "limit", "input"))
      if (!context || output === undefined) return undefined
      return input && input > 0 ? { context, output, input } : { context, output }
    },
  }
}
