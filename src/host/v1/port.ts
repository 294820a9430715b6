/**
 * The Host port on OpenCode 1.x: the SDK client the host hands to `server()`. The SDK reports
 * HTTP failures as `{ error }` rather than throwing; they become rejections so the core's
 * bounded-call wrapper sees every failure the same way. 1.x has one send channel,
 * `session.promptAsync`; a `synthetic` text part is hidden by the 1.18 TUI (the model still
 * gets it). Every part carries `metadata.autoResume`, which is how the plugin knows its own prompts.
 */
import type { TimeSource } from "../../core/clock.ts"
import { resolveOptions, type ResolvedOptions } from "../../options/index.ts"
import type { HostPort, LogLevel, ModelRef, SendRequest, Toast, TurnSetup } from "../../core/port.ts"
import { realTime } from "../real-time.ts"
import { bookSend, isHiddenSend, SendLog } from "../send-log.ts"
import { asObj, get, num, str } from "../shape.ts"
import { runningSessions } from "../signals.ts"
import { normalizeTodos, normalizeV1Messages } from "./messages.ts"

/** Marks a prompt as the plugin's own, in the stored message and in the chat.message hook. */
export const OWN_PROMPT_METADATA = { autoResume: true } as const

export const LOG_SERVICE = "auto-resume"

/** Log calls still waiting on the host; past this, lines are dropped rather than piled up. */
const MAX_PENDING_LOGS = 100

type SdkCall = (options?: unknown) => Promise<unknown>

/** The part of the SDK client we use; typed loosely because host SDK versions differ. */
export type V1Client = {
  session: {
    promptAsync: SdkCall
    abort: SdkCall
    messages?: SdkCall
    todo?: SdkCall
    status?: SdkCall
    summarize?: SdkCall
    command?: SdkCall
  }
  app: { log: SdkCall }
  tool?: { ids?: SdkCall }
  config?: { get?: SdkCall; providers?: SdkCall }
  tui?: { showToast?: SdkCall }
}

async function unwrap(result: Promise<unknown> | undefined, what: string): Promise<unknown> {
  if (!result) throw new Error(`${what} is not available on this host`)
  const value = await result
  const error = get(value, "error")
  if (error !== undefined && error !== null) {
    const detail = get(error, "data", "message") ?? get(error, "message") ?? get(error, "name") ?? "error"
    throw new Error(`${what} failed: ${String(detail).slice(0, 200)}`)
  }
  return get(value, "data")
}

export function isOwnPromptPart(part: unknown): boolean {
  return get(part, "metadata", "autoResume") === true
}

export type V1PortDeps = {
  resolved?: ResolvedOptions
  time?: TimeSource
  /** The registry slot's send log; a private one when absent. */
  sendLog?: SendLog
}

/** OpenCode 1.x runs a subagent through its `task` tool. */
const V1_SUBAGENT_TOOLS: readonly string[] = ["task"]

export function createV1Port(client: V1Client, deps: V1PortDeps = {}): HostPort {
  let pendingLogs = 0
  const session = client.session
  const path = (id: string) => ({ path: { id } })
  const resolved = deps.resolved ?? resolveOptions(undefined, {})
  const time = deps.time ?? realTime()
  const sendLog = deps.sendLog ?? new SendLog()
  const providers = async (): Promise<unknown[] | undefined> => {
    const list = get(await unwrap(client.config?.providers?.(), "providers"), "providers")
    return Array.isArray(list) ? list : undefined
  }

  return {
    subagentTools: V1_SUBAGENT_TOOLS,

    async send(request: SendRequest) {
      // Booked before the call is made, so an instance racing this one is refused.
      const options = bookSend(sendLog, resolved, request, time.now())
      const part: Record<string, unknown> = { type: "text", text: request.text, metadata: { ...OWN_PROMPT_METADATA, kind: request.kind } }
      if (isHiddenSend(request.kind, options)) part.synthetic = true
      const body: Record<string, unknown> = { parts: [part] }
      if (request.setup?.agent) body.agent = request.setup.agent
      if (request.setup?.model) body.model = request.setup.model
      await unwrap(session.promptAsync({ ...path(request.sessionID), body }), "prompt")
    },
    async abort(sessionID) {
      await unwrap(session.abort(path(sessionID)), "abort")
    },
    // `POST /tui/show-toast`: shown by an attached terminal UI, a no-op for a headless server.
    async toast(toast: Toast) {
      const tui = client.tui
      if (typeof tui?.showToast !== "function") return
      const body = { title: toast.title, message: toast.message, variant: toast.variant, duration: toast.durationMs }
      await unwrap(tui.showToast({ body }), "toast")
    },
    log(level: LogLevel, message: string, extra?: Record<string, unknown>) {
      if (pendingLogs >= MAX_PENDING_LOGS) return
      try {
        // 1.18 drops body.service from its log output, so the service is repeated in extra,
        // where it is printed as service=auto-resume and can be filtered on.
        const body = { service: LOG_SERVICE, level, message, extra: { ...extra, service: LOG_SERVICE } }
        pendingLogs++
        void Promise.resolve(client.app.log({ body }))
          .catch(() => undefined)
          .finally(() => pendingLogs--)
      } catch {
        pendingLogs = Math.max(0, pendingLogs - 1)
      }
    },
    async readMessages(sessionID, limit) {
      return normalizeV1Messages(await unwrap(session.messages?.({ ...path(sessionID), query: { limit } }), "messages")).slice(-limit)
    },
    async readTodos(sessionID) {
      return normalizeTodos(await unwrap(session.todo?.(path(sessionID)), "todo"))
    },
    async listBusySessions() {
      return runningSessions(await unwrap(session.status?.(), "status"), "v1")
    },
    async toolNames() {
      const data = await unwrap(client.tool?.ids?.(), "tool ids")
      return Array.isArray(data) ? data.filter((x): x is string => typeof x === "string") : []
    },
    async compact(sessionID: string, setup?: TurnSetup) {
      const body = setup?.model ? { providerID: setup.model.providerID, modelID: setup.model.modelID } : undefined
      await unwrap(session.summarize?.({ ...path(sessionID), body }), "summarize")
    },
    async command(sessionID, name, args) {
      await unwrap(session.command?.({ ...path(sessionID), body: { command: name, arguments: args } }), "command")
    },
    async pluginNames() {
      const plugins = get(await unwrap(client.config?.get?.(), "config"), "plugin")
      if (!Array.isArray(plugins)) return []
      return plugins.map((p) => (Array.isArray(p) ? p[0] : p)).filter((x): x is string => typeof x === "string")
    },
    async listModels() {
      return ((await providers()) ?? []).flatMap((provider): ModelRef[] => {
        const providerID = str(get(provider, "id"))
        const models = asObj(get(provider, "models"))
        return providerID && models ? Object.keys(models).map((modelID) => ({ providerID, modelID })) : []
      })
    },
    async modelLimits(model: ModelRef) {
      const list = await providers()
      if (!list) return undefined
      const limit = get(list.find((p) => get(p, "id") === model.providerID), "models", model.modelID, "limit")
      const context = num(get(limit, "context"))
      const output = num(get(limit, "output"))
      return context && output !== undefined ? { context, output } : undefined
    },
  }
}
