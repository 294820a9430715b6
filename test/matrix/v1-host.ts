/**
 * The matrix on OpenCode 1.x: the plugin's default export loaded through `server(input,
 * options)`, fed with 1.18 event shapes, acting on an SDK-shaped fake client that reacts the
 * way the real 1.18.33 host was measured to (../shared/host/v1-opencode-1.18.md,
 * test/e2e/HOST-NOTES.md):
 *
 * - a prompt fires `chat.message` (parts with their metadata), `message.updated(user)`, and
 *   starts a run on an idle session; into a live run it is stored and waits (a normal end of
 *   that run picks it up, an abort drops it). The fake model answers a run the plugin started
 *   with one short text and ends it, so a recovery that worked reads as a finished turn;
 * - an abort emits `session.error MessageAbortedError`, idle, `session.idle`, the errored
 *   assistant message, idle and a second `session.idle`;
 * - a tool call is a `tool` part (pending, running, completed) around `tool.execute.before` /
 *   `after`; a call to a missing tool is the completed `invalid` part 1.18 records;
 * - `session.status` lists only non-idle sessions; `todowrite` emits `todo.updated`;
 * - a provider outage (`providerDown`): a stream failure or a rate limit is retried by the host
 *   itself five times (`session.status { type: "retry", attempt, message, next }`, 2 s doubling
 *   here), then `session.error`; a 400 (`isRetryable: false`) fails the run at once. There is no
 *   retry hook: the plugin hears the retries and has no say in them.
 */
import type { Hooks } from "@opencode-ai/plugin"
import plugin from "../../src/index.ts"
import { main as toggleMain } from "../../src/cli/auto-resume-toggle.ts"
import { flush, freshDirectory, settle, type MatrixHost } from "./host-common.ts"
import { common, type Who } from "./host-steps.ts"
import { SUBAGENT_TOOL, USER_AGENT, USER_MODEL, type Act, type Step } from "./steps.ts"

type Part = Record<string, unknown>
type Message = { info: Record<string, unknown>; parts: Part[] }

const TOOLS = ["bash", "edit", "glob", "grep", "invalid", "question", "read", "skill", "task", "todowrite", "webfetch", "write"]

export async function startV1Host(options: Record<string, unknown>): Promise<MatrixHost> {
  const sessions: Record<Who, string> = { main: "ses_matrix_main", child: "ses_matrix_child" }
  const whoOf = (id: string): Who => (id === sessions.child ? "child" : "main")
  const acts: Act[] = []
  const lines: string[] = []
  const history = new Map<string, Message[]>()
  const busy = new Set<string>()
  const queued = new Map<string, number>()
  const current = new Map<string, Message>()
  const todos = new Map<string, unknown[]>()
  /** While set, the plugin gets no event (it was not loaded yet). */
  let deaf = false
  const directory = freshDirectory()
  let seq = 0
  const id = (prefix: string) => `${prefix}_${String(++seq).padStart(5, "0")}`
  const instances: Hooks[] = []
  /** Provider outages by session: until when (undefined: as long as the run lasts), with what error. */
  const outages = new Map<string, { error: Record<string, unknown>; until?: number }>()
  let stopped = false
  // Matrix knobs, not plugin options: magic-context loaded; the model hangs on the plugin's prompts too.
  const { __magicContext: magic, __modelHangsAfterPrompt: hangsAfterPrompt, __modelFailsAfterPrompt: failsAfterPrompt, __modelWorksAfterPrompt: worksAfterPrompt, __abortReportedLater: abortReportedLater, ...pluginOptions } = options
  /** Sessions whose abort was answered and not reported yet (`__abortReportedLater`). */
  const unreportedAborts = new Set<string>()
  let checks = 0

  const list = (sessionID: string) => {
    let l = history.get(sessionID)
    if (!l) history.set(sessionID, (l = []))
    return l
  }
  const event = (type: string, properties: Record<string, unknown>) => {
    if (deaf) return
    for (const hooks of instances) void hooks.event?.({ event: { type, properties } as never })
  }
  const callHook = (name: string, input: unknown, output: unknown) => {
    for (const hooks of instances) {
      const fn = (hooks as Record<string, unknown>)[name]
      if (typeof fn === "function") void Promise.resolve(fn(input, output)).catch(() => undefined)
    }
  }

  /** 1.18's revert API: the user message before the reverted turn, by session (the session's `revert.messageID`). */
  const reverts = new Map<string, string>()

  /**
   * 1.18 on a revert (SessionRevert.revert): refused while the session runs (BusyError), the
   * session unchanged when there is no message to go back to; else `session.revert` is set to
   * the user message before the reverted assistant message, and the session is updated.
   */
  function revert(sessionID: string): void {
    if (busy.has(sessionID)) return
    const lastUser = [...list(sessionID)].reverse().find((m) => m.info.role === "user")
    if (!lastUser) return
    const messageID = String(lastUser.info.id)
    reverts.set(sessionID, messageID)
    event("session.updated", { info: { id: sessionID, title: "matrix", time: { created: 0, updated: Date.now() }, revert: { messageID, snapshot: "snap_1", diff: "" } } })
  }

  /** 1.18 before any prompt of a reverted session (SessionRevert.cleanup): the reverted messages go, one `message.removed` each, then the revert. */
  function cleanupRevert(sessionID: string): void {
    const messageID = reverts.get(sessionID)
    if (messageID === undefined) return
    reverts.delete(sessionID)
    const messages = list(sessionID)
    const from = messages.findIndex((m) => m.info.id === messageID)
    for (const removed of from < 0 ? [] : messages.splice(from)) event("message.removed", { sessionID, messageID: removed.info.id })
    event("session.updated", { info: { id: sessionID, title: "matrix", time: { created: 0, updated: Date.now() } } })
  }

  function userMessage(sessionID: string, parts: Part[], agent: string, model: string, fromPlugin: boolean): void {
    cleanupRevert(sessionID)
    const [providerID, modelID] = model.split("/") as [string, string]
    const info = { id: id("msg"), sessionID, role: "user", agent, model: { providerID, modelID }, time: { created: Date.now() } }
    list(sessionID).push({ info, parts })
    callHook("chat.message", { sessionID, messageID: info.id, agent, model: { providerID, modelID } }, { message: info, parts })
    event("message.updated", { info })
    if (busy.has(sessionID)) {
      queued.set(sessionID, (queued.get(sessionID) ?? 0) + 1)
      return
    }
    startRun(sessionID)
    if (fromPlugin && !hangsAfterPrompt) {
      // The model answers the plugin's prompt with a short, finished turn (or the provider fails it).
      void Promise.resolve().then(() => {
        if (failsAfterPrompt) return endRun(sessionID, V1_ERRORS.stream)
        if (worksAfterPrompt) {
          // A model that works: one real tool call and a report of what it found, new each time.
          const n = ++checks
          part(sessionID, { type: "tool", callID: `call_check_${n}`, tool: "bash", state: { status: "completed", input: { command: "make check" }, output: "ok", title: "", metadata: {} } })
          streamText(sessionID, `Ran check ${n}: ${n * 7} files scanned, ${n} fixed.`)
        } else streamText(sessionID, "On it.")
        endRun(sessionID)
      })
    }
  }

  function startRun(sessionID: string): void {
    busy.add(sessionID)
    event("session.status", { sessionID, status: { type: "busy" } })
    nextAssistant(sessionID)
  }

  function nextAssistant(sessionID: string): void {
    const [providerID, modelID] = USER_MODEL.split("/") as [string, string]
    const info = { id: id("msg"), sessionID, role: "assistant", agent: USER_AGENT, providerID, modelID, time: { created: Date.now() }, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } }
    const message = { info, parts: [] as Part[] }
    list(sessionID).push(message)
    current.set(sessionID, message)
    event("message.updated", { info })
  }

  function part(sessionID: string, p: Part): Part {
    const message = current.get(sessionID)
    if (!message) return p
    const full = { id: id("prt"), sessionID, messageID: message.info.id, ...p }
    message.parts.push(full)
    event("message.part.updated", { part: full })
    return full
  }

  function streamText(sessionID: string, text: string, kind: "text" | "reasoning" = "text"): void {
    const message = current.get(sessionID)
    const last = message?.parts.at(-1)
    if (last && last.type === kind) {
      last.text = `${String(last.text)}${text}`
      event("message.part.delta", { sessionID, messageID: message!.info.id, partID: last.id, field: "text", delta: text })
      return
    }
    part(sessionID, { type: kind, text })
  }

  function endRun(sessionID: string, error?: Record<string, unknown>, finish = "stop"): void {
    const message = current.get(sessionID)
    if (!busy.has(sessionID)) return
    if (message) {
      ;(message.info.time as Record<string, number>).completed = Date.now()
      message.info.finish = error ? undefined : finish
      if (error) message.info.error = error
      event("message.updated", { info: message.info })
    }
    if (!error && (queued.get(sessionID) ?? 0) > 0) {
      queued.delete(sessionID)
      nextAssistant(sessionID)
      return
    }
    queued.delete(sessionID)
    if (error) event("session.error", { sessionID, error })
    busy.delete(sessionID)
    // A held-back abort belongs to the run that just ended, never to a later one.
    unreportedAborts.delete(sessionID)
    current.delete(sessionID)
    event("session.status", { sessionID, status: { type: "idle" } })
    event("session.idle", { sessionID })
  }

  /** 1.18: a user message holding a `compaction` part, then the summary message (agent "compaction", `summary: true`). */
  function compactionStarts(sessionID: string, overflow: boolean): void {
    const info = { id: id("msg"), sessionID, role: "user", agent: USER_AGENT, time: { created: Date.now() } }
    list(sessionID).push({ info, parts: [] })
    event("message.updated", { info })
    const compaction = { id: id("prt"), sessionID, messageID: info.id, type: "compaction", auto: true, ...(overflow ? { overflow: true } : {}) }
    event("message.part.updated", { part: compaction })
    if (!busy.has(sessionID)) {
      busy.add(sessionID)
      event("session.status", { sessionID, status: { type: "busy" } })
    }
    nextAssistant(sessionID)
    const summary = current.get(sessionID)!
    summary.info.summary = true
    summary.info.mode = summary.info.agent = "compaction"
    event("message.updated", { info: summary.info })
    streamText(sessionID, "Summary of the work so far.")
  }

  /** The summary is complete: `session.compacted`. */
  function compactionEnds(sessionID: string): void {
    const summary = current.get(sessionID)
    if (summary) {
      ;(summary.info.time as Record<string, number>).completed = Date.now()
      summary.info.finish = "stop"
      event("message.updated", { info: summary.info })
    }
    event("session.compacted", { sessionID })
  }

  function aborted(sessionID: string): void {
    if (!busy.has(sessionID)) return
    const error = { name: "MessageAbortedError", data: { message: "Aborted" } }
    endRun(sessionID, error)
    event("session.status", { sessionID, status: { type: "idle" } })
    event("session.idle", { sessionID })
  }

  const ok = (data: unknown = true) => Promise.resolve({ data })
  const client = {
    session: {
      promptAsync: (o: { path: { id: string }; body: { parts: Part[]; agent?: string; model?: { providerID: string; modelID: string } } }) => {
        const p = o.body.parts[0] ?? {}
        const model = o.body.model ? `${o.body.model.providerID}/${o.body.model.modelID}` : undefined
        acts.push({ act: "send", in: whoOf(o.path.id), kind: String((p.metadata as Part | undefined)?.kind ?? ""), text: String(p.text ?? ""), agent: o.body.agent, model })
        void Promise.resolve().then(() => userMessage(o.path.id, o.body.parts, o.body.agent ?? USER_AGENT, model ?? USER_MODEL, true))
        return ok(undefined)
      },
      abort: (o: { path: { id: string } }) => {
        acts.push({ act: "abort", in: whoOf(o.path.id) })
        // 1.18 aborts nothing on an idle session: only a live run's abort is held back.
        if (abortReportedLater) {
          if (busy.has(o.path.id)) unreportedAborts.add(o.path.id)
        } else void Promise.resolve().then(() => aborted(o.path.id))
        return ok(true)
      },
      messages: (o: { path: { id: string } }) => ok(structuredClone(history.get(o.path.id) ?? [])),
      todo: (o: { path: { id: string } }) => ok(todos.get(o.path.id) ?? []),
      status: () => ok(Object.fromEntries([...busy].map((s) => [s, { type: "busy" }]))),
      summarize: (o: { path: { id: string } }) => {
        acts.push({ act: "compact", in: whoOf(o.path.id) })
        // 1.18's summarize on an idle session: a compaction message, the summary, `session.compacted`, idle; no continue.
        void Promise.resolve().then(() => {
          const sessionID = o.path.id
          if (busy.has(sessionID)) return
          compactionStarts(sessionID, false)
          compactionEnds(sessionID)
          endRun(sessionID)
        })
        return ok(true)
      },
      command: (o: { path: { id: string }; body: { command: string } }) => {
        acts.push({ act: "command", in: whoOf(o.path.id), name: o.body.command })
        return ok({})
      },
    },
    app: {
      log: (o: { body: { level: string; message: string } }) => {
        lines.push(`${o.body.level} ${o.body.message}`)
        return ok(true)
      },
    },
    tool: { ids: () => ok(TOOLS) },
    config: {
      get: () => ok({ plugin: ["opencode-auto-resume", ...(magic ? ["@cortexkit/opencode-magic-context"] : [])] }),
      // A second provider's model, for the fallback row (fallbackModels entries are checked against this list).
      providers: () =>
        ok({
          providers: [
            { id: "openai", models: { "gpt-x": { limit: { context: 200_000, output: 32_000 } } } },
            { id: "anthropic", models: { "claude-y": { limit: { context: 200_000, output: 32_000 } } } },
          ],
        }),
    },
    tui: {
      // The /auto-resume command answers a busy session with an "info" toast (its reply); the
      // plugin's own notices (it gave up, a fallback model took over, the session waits on
      // the user) are warnings, named by the session they concern in the message.
      showToast: (o: { body: { message: string; variant?: string } }) => {
        if (o.body.variant === "warning") acts.push({ act: "toast", in: o.body.message.includes(sessions.child) ? "child" : "main", text: o.body.message })
        else acts.push({ act: "reply", text: o.body.message })
        return ok(true)
      },
    },
  }

  /** 1.18's own retry policy on a refused request (measured: five retries, then `session.error`; a 400 none). */
  function requestRefused(sessionID: string, attempt: number): void {
    const outage = outages.get(sessionID)
    if (!outage || !busy.has(sessionID) || stopped) return
    const data = outage.error.data as Record<string, unknown>
    if (data.isRetryable !== true || attempt > V1_HOST_RETRIES) {
      outages.delete(sessionID)
      return endRun(sessionID, outage.error)
    }
    const delay = 2_000 * 2 ** (attempt - 1)
    event("session.status", { sessionID, status: { type: "retry", attempt, message: String(data.message), next: Date.now() + delay } })
    setTimeout(() => {
      if (!busy.has(sessionID) || stopped) return
      const still = outages.get(sessionID)
      if (still && (still.until === undefined || Date.now() < still.until)) return requestRefused(sessionID, attempt + 1)
      outages.delete(sessionID)
      event("session.status", { sessionID, status: { type: "busy" } })
      streamText(sessionID, "Back at it.")
      endRun(sessionID)
    }, delay)
  }

  async function load(options = pluginOptions): Promise<void> {
    const hooks = await plugin.server({ client, directory, worktree: directory, project: {}, serverUrl: new URL("http://127.0.0.1:4096"), $: {} } as never, options)
    instances.push(hooks)
    // The host runs every plugin's config hook at start (registers /auto-resume).
    await hooks.config?.({ command: {}, provider: {} } as never)
  }
  await load()
  await flush()

  const steps = common({
    user: (who, s) => userMessage(sessions[who], [{ type: "text", text: s.text ?? "please do the task" }], s.agent ?? USER_AGENT, s.model ?? USER_MODEL, false),
    text: (who, text) => streamText(sessions[who], text),
    reasoning: (who, text) => streamText(sessions[who], text, "reasoning"),
    tokens: (who, output, input) => {
      const message = current.get(sessions[who])
      if (!message) return
      message.info.tokens = { input, output, reasoning: 0, cache: { read: 0, write: 0 } }
      event("message.updated", { info: message.info })
    },
    toolStart: (who, callID, neutral, input) => {
      const sessionID = sessions[who]
      const tool = neutral === SUBAGENT_TOOL ? "task" : neutral
      const p = part(sessionID, { type: "tool", callID, tool, state: { status: "pending", input: {} } })
      callHook("tool.execute.before", { tool, sessionID, callID }, { args: input })
      p.state = { status: "running", input, time: { start: Date.now() } }
      event("message.part.updated", { part: p })
    },
    toolEnd: (who, callID, output, error) => {
      const sessionID = sessions[who]
      const p = current.get(sessionID)?.parts.find((x) => x.callID === callID)
      callHook("tool.execute.after", { tool: p?.tool ?? "bash", sessionID, callID, args: {} }, { title: "", output: output ?? "", metadata: {} })
      if (!p) return
      const input = (p.state as Part).input
      p.state = error ? { status: "error", input, error } : { status: "completed", input, output: output ?? "done", title: "", metadata: {} }
      event("message.part.updated", { part: p })
    },
    nextStep: (who) => {
      // 1.18: the message that made the calls ends with finish "tool-calls"; the next request is a new assistant message.
      const sessionID = sessions[who]
      const message = current.get(sessionID)
      if (!message || !busy.has(sessionID)) return
      message.info.finish = "tool-calls"
      event("message.updated", { info: message.info })
      nextAssistant(sessionID)
    },
    badTool: (who, callID, name) => {
      const error = `Model tried to call unavailable tool '${name}'. Available tools: ${TOOLS.join(", ")}.`
      part(sessions[who], { type: "tool", callID, tool: "invalid", state: { status: "completed", input: { tool: name, error }, output: error } })
    },
    todos: (who, list) => {
      const sessionID = sessions[who]
      todos.set(sessionID, list)
      event("todo.updated", { sessionID, todos: list })
    },
    end: (who, finish) => endRun(sessions[who], undefined, finish),
    esc: (who) => aborted(sessions[who]),
    revert: (who) => revert(sessions[who]),
    fail: (who, kind) => endRun(sessions[who], V1_ERRORS[kind]),
    providerDown: (who, kind, ms) => {
      const sessionID = sessions[who]
      if (!busy.has(sessionID)) return
      outages.set(sessionID, ms === undefined ? { error: V1_ERRORS[kind]! } : { error: V1_ERRORS[kind]!, until: Date.now() + ms })
      requestRefused(sessionID, 1)
    },
    // 1.x has no interrupted reasons: a run the host stops by itself just ends.
    hostStops: (who) => endRun(sessions[who]),
    abortReported: (who) => {
      if (unreportedAborts.delete(sessions[who])) aborted(sessions[who])
    },
    // Measured on 1.18.33 (test/e2e/HOST-NOTES.md): the overflow is reported, then compacted within the same run.
    overflow: (who) => {
      const sessionID = sessions[who]
      const message = current.get(sessionID)
      if (message) {
        message.info.error = V1_ERRORS.overflow
        ;(message.info.time as Record<string, number>).completed = Date.now()
      }
      event("session.error", { sessionID, error: V1_ERRORS.overflow })
      if (message) event("message.updated", { info: message.info })
      compactionStarts(sessionID, true)
    },
    compacted: (who) => {
      const sessionID = sessions[who]
      compactionEnds(sessionID)
      // Its continue: a synthetic user message the chat.message hook never sees, then the next step.
      const info = { id: id("msg"), sessionID, role: "user", agent: USER_AGENT, time: { created: Date.now() } }
      list(sessionID).push({ info, parts: [{ type: "text", text: "Continue if you have next steps.", synthetic: true, metadata: { compaction_continue: true } }] })
      event("message.updated", { info })
      nextAssistant(sessionID)
    },
    ask: (who, kind, requestID) =>
      kind === "permission"
        ? event("permission.asked", { id: requestID, sessionID: sessions[who], permission: "bash", patterns: ["rm -rf build"] })
        : event("question.asked", { id: requestID, sessionID: sessions[who], questions: [{ question: "Which one?" }] }),
    answer: (who, kind, requestID) =>
      kind === "permission"
        ? event("permission.replied", { sessionID: sessions[who], requestID, reply: "once" })
        : event("question.replied", { sessionID: sessions[who], requestID, answers: [["A"]] }),
    spawn: () => event("session.created", { info: { id: sessions.child, parentID: sessions.main, title: "subagent" } }),
    taskComplete: async (who, evidence) => {
      const tool = (instances[0]!.tool as Record<string, { execute: (a: unknown, c: unknown) => Promise<string> }>).task_complete!
      try {
        acts.push({ act: "toolAnswer", ok: true, text: await settle(tool.execute(evidence === undefined ? {} : { evidence }, { sessionID: sessions[who], messageID: "msg_x", agent: USER_AGENT })) })
      } catch (error) {
        acts.push({ act: "toolAnswer", ok: false, text: error instanceof Error ? error.message : String(error) })
      }
    },
    pauseCommand: async (arg) => {
      const output = { parts: [{ type: "text", text: `/auto-resume ${arg}` }] as Part[] }
      for (const hooks of instances) {
        try {
          await settle(Promise.resolve(hooks["command.execute.before"]?.({ command: "auto-resume", sessionID: sessions.main, arguments: arg }, output as never)))
        } catch {
          // The deliberate stop of a busy session's command: the toast carried the reply.
        }
      }
      const reply = output.parts.find((p) => (p.metadata as Part | undefined)?.kind === "pause-command")
      if (reply) acts.push({ act: "reply", text: String(reply.text) })
    },
    cliPause: async (arg, all) => {
      await settle(toggleMain([all ? "--all" : sessions.main, arg], { stdout: () => undefined, stderr: () => undefined, env: process.env }))
    },
    cliGoal: async (text) => {
      await settle(toggleMain([sessions.main, "goal", ...text.split(" ")], { stdout: () => undefined, stderr: () => undefined, env: process.env }))
    },
    secondInstance: () => load(),
    // Another process: a registry of its own (a scope no other instance uses), the same host and sessions.
    secondProcess: () => load({ ...pluginOptions, registryScope: `matrix-v1-other-${directory}` }),
    hostRun: () => startRun(sessions.main),
    hostRunsUnseen: () => {
      // The host starts a run whose events the plugin never gets (it loaded after they went out).
      deaf = true
      startRun(sessions.main)
      deaf = false
    },
    stream: (who) => streamText(sessions[who], "Still working. ", "reasoning"),
    // 1.18 repeats the busy status of a live run; a wedged runtime may go on doing just that.
    heartbeat: (who) => {
      if (busy.has(sessions[who])) event("session.status", { sessionID: sessions[who], status: { type: "busy" } })
    },
  })

  return {
    name: "v1",
    acts,
    play: (step: Step) => steps(step),
    logs: () => lines,
    startupLine: async () => lines.find((l) => l.includes("accepted-but-inert=")),
    stop: async () => {
      stopped = true
      for (const hooks of instances) await (hooks as { dispose?: () => Promise<void> }).dispose?.()
      await flush()
    },
  }
}

/** 1.18.33 retried a 429 or a broken stream five times before its `session.error` (HOST-NOTES). */
const V1_HOST_RETRIES = 5

/** Errors as 1.18 reports what it gave up on. */
const V1_ERRORS: Record<string, Record<string, unknown>> = {
  stream: { name: "APIError", data: { message: "streaming response failed: connection reset", isRetryable: true } },
  rateLimit: { name: "APIError", data: { message: "Rate limit exceeded", statusCode: 429, isRetryable: true, responseHeaders: {} } },
  rateLimitRetryAfter: { name: "APIError", data: { message: "Rate limit exceeded", statusCode: 429, isRetryable: true, responseHeaders: { "retry-after": "1200" } } },
  contextFull: { name: "APIError", data: { message: "This model's maximum context length is 128000 tokens; your request exceeded the context window", statusCode: 400, isRetryable: false } },
  contentFilter: { name: "APIError", data: { message: "Provider blocked the response", statusCode: 400, isRetryable: false } },
  modelGone: { name: "APIError", data: { message: "The model `gpt-x` does not exist or you do not have access to it.", statusCode: 404, isRetryable: false } },
  overflow: { name: "ContextOverflowError", data: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens." } },
}
