/**
 * The matrix on OpenCode 2.x: the plugin's default export loaded through `setup(ctx)`, with a
 * ctx in the shapes of ../shared/host/v2-opencode-2.x.md as its "Corrections of 2026-12-01"
 * put them (they win over the older text):
 *
 * - events `{ id, created, type, data, location, durable? }`, payload under `data`; deltas,
 *   usage, progress and forms are ephemeral (no `durable`); no `session.status` or
 *   `session.idle`: busy and idle come from `session.execution.*` only;
 * - a question is a form: `form.created { form: { id, sessionID } }`, `form.replied { id }`;
 * - the subagent tool is `subagent`; a tool's result is in `content`; errors are
 *   `{ type, message, status? }`;
 * - a prompt into an idle session starts a run; into a live run it waits in the inbox and is
 *   promoted when that run reaches a step boundary; `interrupt` ends the run (reason "user")
 *   and drops the inbox. The fake model answers a run the plugin started with one short text.
 *
 * Written against the document, not against test/support/fake-v2-host.ts, so the fake host's
 * own corrections do not move this column. HTTP reads go to `ctx.app.server.url` through a
 * stubbed globalThis.fetch, restored on stop.
 */
import { readFileSync } from "node:fs"
import plugin from "../../src/index.ts"
import { flush, freshDirectory, settle, until, type MatrixHost } from "./host-common.ts"
import { common, type Who } from "./host-steps.ts"
import { SUBAGENT_TOOL, USER_AGENT, USER_MODEL, type Act, type Step } from "./steps.ts"

type Obj = Record<string, any>

const SERVER = "http://127.0.0.1:4177"
const PASSWORD = "matrix"
const EPHEMERAL = /^(session\.(text|reasoning|tool\.input)\.delta|session\.usage\.updated|session\.tool\.progress|form\.)/
const TOOLS = [{ name: "bash" }, { name: "read" }, { name: "edit" }, { name: "todowrite", options: { codemode: false } }]

let scopes = 0

export async function startV2Host(options: Record<string, unknown>): Promise<MatrixHost> {
  const sessions: Record<Who, string> = { main: "ses_matrix_main", child: "ses_matrix_child" }
  const whoOf = (id: unknown): Who => (id === sessions.child ? "child" : "main")
  const acts: Act[] = []
  const directory = freshDirectory()
  const history = new Map<string, Obj[]>()
  const runs = new Map<string, { assistant?: Obj; inbox: Obj[] }>()
  const subscribers: { queue: unknown[]; wake?: () => void; closed: boolean }[] = []
  const tools: Obj[] = []
  const commands: Obj[] = []
  let deaf = false
  let seq = 0
  const id = (prefix: string) => `${prefix}_${String(++seq).padStart(5, "0")}`
  const [providerID, modelID] = USER_MODEL.split("/") as [string, string]
  // Matrix knobs, not plugin options: magic-context loaded; the model hangs on the plugin's prompts too.
  const { __magicContext: magic, __modelHangsAfterPrompt: hangsAfterPrompt, ...pluginOptions } = options
  /** The agent and model each session runs on (2.x keeps them per session). */
  const setups = new Map<string, { agent: string; providerID: string; modelID: string }>()
  const setupOf = (sessionID: string) => setups.get(sessionID) ?? { agent: USER_AGENT, providerID, modelID }

  const list = (sessionID: string) => {
    let l = history.get(sessionID)
    if (!l) history.set(sessionID, (l = []))
    return l
  }
  function emit(type: string, data: Obj): void {
    if (deaf) return
    const sessionID = data.sessionID ?? data.form?.sessionID
    const event: Obj = { id: id("evt"), created: Date.now(), type, data, location: { directory } }
    if (!EPHEMERAL.test(type) && sessionID) event.durable = { aggregateID: sessionID, seq, version: 1 }
    for (const sub of subscribers) {
      if (sub.closed) continue
      sub.queue.push(event)
      sub.wake?.()
    }
  }

  function subscribe(args: { signal?: AbortSignal } = {}): AsyncIterable<unknown> {
    const sub: (typeof subscribers)[number] = { queue: [], closed: false }
    subscribers.push(sub)
    args.signal?.addEventListener("abort", () => {
      sub.closed = true
      sub.wake?.()
    })
    return {
      async *[Symbol.asyncIterator]() {
        while (!sub.closed) {
          if (sub.queue.length > 0) {
            yield sub.queue.shift()
            continue
          }
          await new Promise<void>((resolve) => (sub.wake = resolve))
          sub.wake = undefined
        }
      },
    }
  }

  function userTurn(sessionID: string, message: Obj, fromPlugin: boolean): void {
    emit("session.inbox.enqueued", { sessionID, inboxID: message.id, item: { id: message.id, sessionID, type: message.type, payload: { text: message.text, metadata: message.metadata }, delivery: "steer" } })
    const run = runs.get(sessionID)
    if (run) {
      run.inbox.push(message)
      return
    }
    list(sessionID).push(message)
    startRun(sessionID)
    if (fromPlugin && !hangsAfterPrompt) {
      void Promise.resolve().then(() => {
        text(sessionID, "On it.")
        endRun(sessionID, "succeeded")
      })
    }
  }

  function startRun(sessionID: string): void {
    runs.set(sessionID, { inbox: [] })
    emit("session.execution.started", { sessionID })
    step(sessionID)
  }

  function step(sessionID: string): void {
    const run = runs.get(sessionID)!
    const setup = setupOf(sessionID)
    const model = { id: setup.modelID, providerID: setup.providerID }
    const assistant: Obj = { id: id("msg"), type: "assistant", agent: setup.agent, model, content: [], time: { created: Date.now() } }
    run.assistant = assistant
    list(sessionID).push(assistant)
    emit("session.step.started", { sessionID, assistantMessageID: assistant.id, agent: setup.agent, model, started: Date.now() })
  }

  function text(sessionID: string, delta: string, kind: "text" | "reasoning" = "text"): void {
    const assistant = runs.get(sessionID)?.assistant
    const last = assistant?.content.at(-1)
    if (last?.type === kind) last.text += delta
    else assistant?.content.push({ type: kind, text: delta })
    emit(`session.${kind}.delta`, { sessionID, assistantMessageID: assistant?.id, delta })
  }

  function endRun(sessionID: string, outcome: "succeeded" | "failed" | "interrupted", error?: Obj): void {
    const run = runs.get(sessionID)
    if (!run) return
    const assistant = run.assistant
    if (assistant) {
      assistant.time.completed = Date.now()
      if (error) assistant.error = error
      else if (outcome === "succeeded") assistant.finish = "stop"
      const tokens = assistant.tokens ?? { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
      if (error) emit("session.step.failed", { sessionID, assistantMessageID: assistant.id, error, tokens })
      else if (outcome === "succeeded") emit("session.step.ended", { sessionID, assistantMessageID: assistant.id, finish: "stop", cost: 0, tokens })
    }
    if (outcome === "succeeded" && run.inbox.length > 0) {
      for (const queued of run.inbox.splice(0)) {
        list(sessionID).push(queued)
        emit("session.inbox.delivered", { sessionID, inboxID: queued.id })
      }
      step(sessionID)
      return
    }
    runs.delete(sessionID)
    if (outcome === "interrupted") emit("session.execution.interrupted", { sessionID, reason: "user" })
    else if (outcome === "failed") emit("session.execution.failed", { sessionID, error })
    else emit("session.execution.succeeded", { sessionID })
    list(sessionID).push({ id: id("idl"), type: "idle", outcome })
    for (const queued of run.inbox) emit("session.inbox.cancelled", { sessionID, inboxID: queued.id })
  }

  function own(type: "user" | "synthetic", args: Obj): Obj {
    const sessionID = args.sessionID
    acts.push({ act: "send", in: whoOf(sessionID), kind: String(args.metadata?.kind ?? ""), text: String(args.text ?? ""), agent: args.agent, model: args.model })
    const message = { id: args.id ?? id("msg"), type, text: args.text, metadata: args.metadata, time: { created: Date.now() } }
    void Promise.resolve().then(() => userTurn(sessionID, message, true))
    return { id: message.id, sessionID, type, payload: { text: args.text, metadata: args.metadata }, delivery: args.delivery ?? "steer" }
  }

  const async = <T>(fn: (...a: any[]) => T) => (...a: any[]) => Promise.resolve().then(() => fn(...a))
  const noop = async(() => undefined)
  const ctx: Obj = {
    app: { name: "opencode", version: "2.0.22", channel: "latest", server: { url: SERVER, password: PASSWORD } },
    location: { directory },
    options: { registryScope: `matrix-v2-${process.pid}-${++scopes}`, ...pluginOptions },
    agent: {},
    aisdk: {},
    event: { subscribe },
    session: {
      create: noop,
      get: noop,
      update: noop,
      move: noop,
      wait: noop,
      hook: noop,
      generate: noop,
      remove: noop,
      switchAgent: async((a: Obj) => acts.push({ act: "send", in: whoOf(a.sessionID), kind: "switchAgent", text: String(a.agent) })),
      switchModel: async((a: Obj) => acts.push({ act: "send", in: whoOf(a.sessionID), kind: "switchModel", text: JSON.stringify(a.model) })),
      prompt: async((a: Obj) => own("user", a)),
      synthetic: async((a: Obj) => own("synthetic", a)),
      interrupt: async((a: Obj) => {
        acts.push({ act: "abort", in: whoOf(a.sessionID) })
        const live = runs.has(a.sessionID)
        void Promise.resolve().then(() => endRun(a.sessionID, "interrupted"))
        return { interrupted: live }
      }),
      compact: async((a: Obj) => void acts.push({ act: "compact", in: whoOf(a.sessionID) })),
      command: async((a: Obj) => void acts.push({ act: "command", in: whoOf(a.sessionID), name: String(a.name) })),
      context: async((a: Obj) => structuredClone(history.get(a.sessionID) ?? [])),
    },
    tool: {
      list: async(() => ({ location: { directory }, data: TOOLS })),
      transform: async((cb: (editor: Obj) => void) => {
        cb({ list: () => tools, get: (name: string) => tools.find((t) => t.name === name), namespace: () => undefined, add: (t: Obj) => tools.push(t), update: () => undefined, remove: () => undefined })
        return { dispose: () => tools.splice(0) }
      }),
    },
    command: {
      transform: async((cb: (editor: Obj) => void) => {
        cb({ add: (c: Obj) => commands.push(c) })
        return { dispose: () => commands.splice(0) }
      }),
    },
    model: {
      list: async(() => ({ location: { directory }, data: [{ id: modelID, providerID, limit: { context: 200_000, output: 32_000 } }] })),
      default: async(() => ({ location: { directory }, data: { id: modelID, providerID, limit: { context: 200_000, output: 32_000 } } })),
    },
    plugin: {
      list: async(() => ({
        location: { directory },
        data: [
          { id: "opencode-auto-resume", source: { type: "package", package: "opencode-auto-resume" } },
          ...(magic ? [{ id: "magic-context", source: { type: "package", package: "@cortexkit/opencode-magic-context" } }] : []),
        ],
      })),
    },
  }
  for (const area of ["experimental", "integration", "mcp", "generate", "permission", "provider", "reference", "rpc", "shell", "skill", "storage", "vcs", "websearch", "worktree"]) ctx[area] = {}

  // The two HTTP reads 2.x offers only over its own server.
  const realFetch = globalThis.fetch
  globalThis.fetch = (async (input: unknown) => {
    const url = new URL(String(input))
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })
    if (url.origin !== SERVER) throw new Error(`connection refused: ${url.href}`)
    if (url.pathname === "/api/session/active") return json({ data: Object.fromEntries([...runs.keys()].map((s) => [s, { type: "running" }])) })
    const m = /^\/api\/session\/([^/]+)\/message$/.exec(url.pathname)
    if (m) return json({ data: [...(history.get(decodeURIComponent(m[1]!)) ?? [])].reverse().slice(0, Number(url.searchParams.get("limit") ?? 50)), cursor: null })
    return json({ error: "not found" }, 404)
  }) as typeof fetch

  const cleanups: (() => void)[] = []
  const load = async () => {
    const cleanup = plugin.setup(ctx)
    if (cleanup) cleanups.push(cleanup)
    await flush(10)
  }
  await load()

  const assistantOf = (who: Who) => runs.get(sessions[who])?.assistant
  const steps = common({
    user: (who, s) => {
      const sessionID = sessions[who]
      const [p, m] = (s.model ?? USER_MODEL).split("/") as [string, string]
      setups.set(sessionID, { agent: s.agent ?? USER_AGENT, providerID: p, modelID: m })
      userTurn(sessionID, { id: id("msg"), type: "user", text: s.text ?? "please do the task", time: { created: Date.now() } }, false)
    },
    text: (who, t) => text(sessions[who], t),
    reasoning: (who, t) => text(sessions[who], t, "reasoning"),
    tokens: (who, output, input) => {
      const assistant = assistantOf(who)
      if (!assistant) return
      assistant.tokens = { input, output, reasoning: 0, cache: { read: 0, write: 0 } }
      emit("session.usage.updated", { sessionID: sessions[who], assistantMessageID: assistant.id, cost: 0, tokens: assistant.tokens })
    },
    toolStart: (who, callID, neutral, input) => {
      const sessionID = sessions[who]
      const name = neutral === SUBAGENT_TOOL ? "subagent" : neutral
      const assistant = assistantOf(who)
      assistant?.content.push({ type: "tool", id: callID, name, state: { status: "running", input }, time: { created: Date.now() } })
      emit("session.tool.input.started", { sessionID, assistantMessageID: assistant?.id, id: callID, name })
      emit("session.tool.input.ended", { sessionID, assistantMessageID: assistant?.id, id: callID })
      emit("session.tool.called", { sessionID, assistantMessageID: assistant?.id, id: callID, input, executed: false })
    },
    toolEnd: (who, callID, output, error) => {
      const sessionID = sessions[who]
      const assistant = assistantOf(who)
      const part = assistant?.content.find((p: Obj) => p.id === callID)
      const content = [{ type: "text", text: output ?? "done" }]
      if (part) part.state = error ? { status: "error", input: part.state.input, error: { message: error } } : { status: "completed", input: part.state.input, content }
      if (error) emit("session.tool.failed", { sessionID, assistantMessageID: assistant?.id, id: callID, error: { message: error }, executed: true })
      else emit("session.tool.success", { sessionID, assistantMessageID: assistant?.id, id: callID, content, executed: true })
    },
    badTool: (who, callID, name) => {
      const sessionID = sessions[who]
      const assistant = assistantOf(who)
      const error = { type: "tool.unavailable", message: `Model tried to call unavailable tool '${name}'` }
      assistant?.content.push({ type: "tool", id: callID, name, state: { status: "error", input: {}, error }, time: { created: Date.now() } })
      emit("session.tool.input.started", { sessionID, assistantMessageID: assistant?.id, id: callID, name })
      emit("session.tool.failed", { sessionID, assistantMessageID: assistant?.id, id: callID, error, executed: false })
    },
    todos: (who, todos) => {
      // 2.x has no todo API: a todo plugin's completed `todowrite` call is the list.
      const sessionID = sessions[who]
      const assistant = assistantOf(who)
      const callID = id("call")
      const content = [{ type: "text", text: `${todos.length} todos` }]
      assistant?.content.push({ type: "tool", id: callID, name: "todowrite", state: { status: "completed", input: { todos }, content }, time: { created: Date.now() } })
      emit("session.tool.input.started", { sessionID, assistantMessageID: assistant?.id, id: callID, name: "todowrite" })
      emit("session.tool.called", { sessionID, assistantMessageID: assistant?.id, id: callID, input: { todos }, executed: false })
      emit("session.tool.success", { sessionID, assistantMessageID: assistant?.id, id: callID, content, executed: true })
    },
    end: (who) => endRun(sessions[who], "succeeded"),
    esc: (who) => endRun(sessions[who], "interrupted"),
    fail: (who, kind) => endRun(sessions[who], "failed", V2_ERRORS[kind]),
    ask: (who, kind, requestID) =>
      kind === "permission"
        ? emit("permission.asked", { id: requestID, sessionID: sessions[who], permission: "bash", patterns: ["rm -rf build"] })
        : emit("form.created", { form: { id: requestID, sessionID: sessions[who], title: "Which one?", fields: [] } }),
    answer: (who, kind, requestID) =>
      kind === "permission" ? emit("permission.replied", { sessionID: sessions[who], requestID, reply: "once" }) : emit("form.replied", { id: requestID, values: {} }),
    spawn: () => emit("session.created", { sessionID: sessions.child, parentID: sessions.main, projectID: "prj", location: { directory }, agent: "general" }),
    taskComplete: async (who) => {
      const tool = tools.find((t) => t.name === "task_complete")
      if (!tool) return
      try {
        const result = await settle(Promise.resolve(tool.execute({}, { sessionID: sessions[who], agent: USER_AGENT, messageID: "msg_x", id: id("call"), signal: new AbortController().signal, progress: () => undefined })))
        // The text the model sees is `content`; a failure is flagged in metadata.
        const content = typeof result?.content === "string" ? result.content : (result?.content ?? []).map((c: Obj) => c.text).join("\n")
        acts.push({ act: "toolAnswer", ok: result?.metadata?.error !== true && result?.metadata?.ok !== false, text: content })
      } catch (error) {
        acts.push({ act: "toolAnswer", ok: false, text: `thrown: ${error instanceof Error ? error.message : String(error)}` })
      }
    },
    pauseCommand: async (arg) => {
      const command = commands.find((c) => c.name === "auto-resume")
      if (!command) return
      const messageID = id("msg")
      const result = await settle(Promise.resolve(command.execute({ sessionID: sessions.main, prompt: { text: arg }, delivery: "steer", messageID })))
      acts.push({ act: "reply", text: JSON.stringify(result ?? { type: "immediate" }) })
    },
    cliPause: async (arg, all) => {
      const { main } = await import("../../src/cli/auto-resume-toggle.ts")
      await settle(main([all ? "--all" : sessions.main, arg], { stdout: () => undefined, stderr: () => undefined, env: process.env }))
    },
    secondInstance: () => load(),
    hostRun: () => startRun(sessions.main),
    hostRunsUnseen: () => {
      deaf = true
      startRun(sessions.main)
      deaf = false
    },
    stream: (who) => text(sessions[who], "Still working. ", "reasoning"),
  })

  const logFile = `${process.env.XDG_STATE_HOME}/opencode-auto-resume/auto-resume.log`
  const readLog = async () => {
    const file = Bun.file(logFile)
    return (await file.exists()) ? await file.text() : ""
  }

  return {
    name: "v2",
    acts,
    play: (s: Step) => steps(s),
    logs: () => {
      try {
        return readFileSync(logFile, "utf8").split("\n")
      } catch {
        return []
      }
    },
    startupLine: async () => {
      let text = ""
      await until(() => text.includes("accepted-but-inert="), 1)
      for (let i = 0; i < 200 && !text.includes("accepted-but-inert="); i++) {
        text = await readLog()
        await flush(2)
      }
      return text.split("\n").find((l) => l.includes("accepted-but-inert="))
    },
    stop: async () => {
      for (const cleanup of cleanups) cleanup()
      for (const sub of subscribers) {
        sub.closed = true
        sub.wake?.()
      }
      await flush()
      globalThis.fetch = realFetch
    },
  }
}

/** Errors as 2.x reports a failed execution: `{ type, message, status? }`. */
const V2_ERRORS: Record<string, Obj> = {
  stream: { type: "provider.stream", message: "the response stream ended before the answer was complete" },
  rateLimit: { type: "provider.rate-limit", message: "429", status: 429 },
  contextFull: { type: "provider.context-overflow", message: "prompt is too long: the context window is full", status: 400 },
  contentFilter: { type: "provider.content-filter", message: "Provider blocked the response" },
}
