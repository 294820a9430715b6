/**
 * The fake OpenCode 2.x host the matrix's 2.x column runs on: a plugin `ctx` in the shapes of
 * ../shared/host/v2-opencode-2.x.md as its "Corrections of 2026-12-01" put them (they win over
 * the older text), and the host-side state behind it (runs, inboxes, message history).
 *
 * - events `{ id, created, type, data, location, durable? }`, payload under `data`; deltas,
 *   usage, progress and forms are ephemeral (no `durable`); no `session.status` or
 *   `session.idle`: busy and idle come from `session.execution.*` only;
 * - a prompt into an idle session starts a run; into a live run it waits in the inbox and is
 *   promoted when that run reaches a step boundary; `interrupt` ends the run (reason "user")
 *   and drops the inbox. The fake model answers a run the plugin started with one short text;
 * - every call the plugin makes that changes something is recorded as an `Act`.
 *
 * Written against the document, not against test/support/fake-v2-host.ts, so the fake host's
 * own corrections do not move this column. HTTP reads go to `ctx.app.server.url` through a
 * stubbed globalThis.fetch, restored by `close`.
 */
import { freshDirectory } from "./host-common.ts"
import { USER_AGENT, USER_MODEL, type Act, type Who } from "./steps.ts"

export type Obj = Record<string, any>

const SERVER = "http://127.0.0.1:4177"
const PASSWORD = "matrix"
const EPHEMERAL = /^(session\.(text|reasoning|tool\.input)\.delta|session\.usage\.updated|session\.tool\.progress|form\.)/
const TOOLS = [{ name: "bash" }, { name: "read" }, { name: "edit" }, { name: "todowrite", options: { codemode: false } }]

let scopes = 0

export type V2World = ReturnType<typeof createV2World>

export function createV2World(options: Record<string, unknown>) {
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
  const { __magicContext: magic, __modelHangsAfterPrompt: hangsAfterPrompt, __modelFailsAfterPrompt: failsAfterPrompt, ...pluginOptions } = options
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
      // The model answers the plugin's prompt with a short, finished turn (or the provider fails it).
      void Promise.resolve().then(() => (failsAfterPrompt ? endRun(sessionID, "failed", V2_ERRORS.stream) : (text(sessionID, "On it."), endRun(sessionID, "succeeded"))))
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

  function endRun(sessionID: string, outcome: "succeeded" | "failed" | "interrupted", error?: Obj, finish = "stop"): void {
    const run = runs.get(sessionID)
    if (!run) return
    const assistant = run.assistant
    if (assistant) {
      assistant.time.completed = Date.now()
      if (error) assistant.error = error
      else if (outcome === "succeeded") assistant.finish = finish
      const tokens = assistant.tokens ?? { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
      if (error) emit("session.step.failed", { sessionID, assistantMessageID: assistant.id, error, tokens })
      else if (outcome === "succeeded") emit("session.step.ended", { sessionID, assistantMessageID: assistant.id, finish, cost: 0, tokens })
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
    const message = { id: args.id ?? id("msg"), type, text: args.text, metadata: args.metadata, time: { created: Date.now() } }
    if (type === "synthetic" && args.resume === false) {
      // A note that wakes nothing (the doc: synthetic wakes execution unless resume === false):
      // the user reads it, the model sees it with its next turn. Stored, no run started.
      acts.push({ act: "reply", in: whoOf(sessionID), text: String(args.text ?? "") })
      void Promise.resolve().then(() => {
        emit("session.inbox.enqueued", { sessionID, inboxID: message.id, item: { id: message.id, sessionID, type, payload: { text: message.text, metadata: message.metadata }, delivery: "steer" } })
        const run = runs.get(sessionID)
        if (run) run.inbox.push(message)
        else list(sessionID).push(message)
      })
      return { id: message.id, sessionID, type, payload: { text: args.text, metadata: args.metadata }, delivery: args.delivery ?? "steer" }
    }
    acts.push({ act: "send", in: whoOf(sessionID), kind: String(args.metadata?.kind ?? ""), text: String(args.text ?? ""), agent: args.agent, model: args.model })
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
      compact: async((a: Obj) => {
        acts.push({ act: "compact", in: whoOf(a.sessionID) })
        // Compacted outside a run: the summary is written, no continue.
        void Promise.resolve().then(() => {
          emit("session.compaction.started", { sessionID: a.sessionID })
          emit("session.compaction.ended", { sessionID: a.sessionID })
        })
      }),
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
      // A second provider's model, for the fallback row (fallbackModels entries are checked against this list).
      list: async(() => ({
        location: { directory },
        data: [
          { id: modelID, providerID, limit: { context: 200_000, output: 32_000 } },
          { id: "claude-y", providerID: "anthropic", limit: { context: 200_000, output: 32_000 } },
        ],
      })),
      default: async(() => ({ location: { directory }, data: { id: modelID, providerID, limit: { context: 200_000, output: 32_000 } } })),
    },
    plugin: {
      list: async(() => ({
        location: { directory },
        data: [
          // The newest builds' source shape (2026-12-03 item 5): the package is `target`.
          { id: "opencode-auto-resume", source: { type: "package", target: "opencode-auto-resume", version: "0.0.0" } },
          ...(magic ? [{ id: "magic-context", source: { type: "package", target: "@cortexkit/opencode-magic-context", version: "0.0.0" } }] : []),
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


  return {
    ctx,
    sessions,
    acts,
    directory,
    setups,
    tools,
    commands,
    id,
    emit,
    userTurn,
    startRun,
    endRun,
    text,
    /** The step that made tool calls ends; the host starts the next step of the same run. */
    nextStep(sessionID: string): void {
      const run = runs.get(sessionID)
      if (!run?.assistant) return
      const assistant = run.assistant
      assistant.finish = "tool-calls"
      const tokens = assistant.tokens ?? { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
      emit("session.step.ended", { sessionID, assistantMessageID: assistant.id, finish: "tool-calls", cost: 0, tokens })
      step(sessionID)
    },
    assistantOf: (who: Who) => runs.get(sessions[who])?.assistant,
    /** Runs `fn` with every event withheld from the plugin (it was not loaded yet). */
    unseen(fn: () => void): void {
      deaf = true
      try {
        fn()
      } finally {
        deaf = false
      }
    },
    close(): void {
      for (const sub of subscribers) {
        sub.closed = true
        sub.wake?.()
      }
      globalThis.fetch = realFetch
    },
  }
}

/** Errors as 2.x reports a failed execution: `{ type, message, status? }`. */
export const V2_ERRORS: Record<string, Obj> = {
  stream: { type: "provider.transport", message: "the response stream ended before the answer was complete" },
  rateLimit: { type: "provider.rate-limit", message: "429", status: 429 },
  contextFull: { type: "provider.context-overflow", message: "prompt is too long: the context window is full", status: 400 },
  contentFilter: { type: "provider.content-filter", message: "Provider blocked the response" },
}
