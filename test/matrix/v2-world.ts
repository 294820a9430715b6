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
 * - every call the plugin makes that changes something is recorded as an `Act`;
 * - (2026-12-03) `event.subscribe({ signal, types })` sends only the types asked for (the knob
 *   `__subscribeForm` plays an intermediate build that takes `subscribe(types)` and refuses an
 *   options object, or one that ignores the filter); `prompt`/`synthetic` take a caller-chosen
 *   `id` and refuse a taken one with a ConflictError (recorded as a `duplicate` act);
 *   `session.hook(name, cb)` registers the nine documented hooks, and a provider outage
 *   (`providerDown`) runs the host's retry policy through `http.response` and `retry`: 2 s
 *   doubling (or the provider's Retry-After, up to 15 minutes), four retries, each proposal rewritable (a rewrite is recorded as a `hostRetry` act).
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
/** The names `session.hook` accepts (2026-12-03 item 2). */
const HOOK_NAMES = new Set(["prompt", "context", "compaction", "generate", "title", "model.request", "http.request", "http.response", "retry"])
/** The host's own retry policy: 2 s doubling, at most four retries (packages/core/src/session/runner/retry.ts). */
const HOST_RETRIES = 4
const HOST_RETRY_BASE_MS = 2_000
/** The longest Retry-After the host honours by itself. */
const HOST_RETRY_AFTER_MAX_MS = 15 * 60_000
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
  const subscribers: { queue: unknown[]; wake?: () => void; closed: boolean; types?: ReadonlySet<string> }[] = []
  const hooks: { name: string; cb: (event: Obj) => unknown; disposed: boolean }[] = []
  /** Message ids the sessions hold (a second send with one of them is refused). */
  const messageIDs = new Set<string>()
  /** Provider outages by session: until when (undefined: as long as the run lasts), with what error. */
  const outages = new Map<string, { error: Obj; until?: number }>()
  let closed = false
  const tools: Obj[] = []
  const commands: Obj[] = []
  let deaf = false
  let seq = 0
  const id = (prefix: string) => `${prefix}_${String(++seq).padStart(5, "0")}`
  const [providerID, modelID] = USER_MODEL.split("/") as [string, string]
  // Matrix knobs, not plugin options: magic-context loaded; the model hangs on the plugin's prompts too.
  const { __magicContext: magic, __modelHangsAfterPrompt: hangsAfterPrompt, __modelFailsAfterPrompt: failsAfterPrompt, __modelWorksAfterPrompt: worksAfterPrompt, __subscribeForm: subscribeForm, __abortReportedLater: abortReportedLater, ...pluginOptions } = options
  /** Sessions whose interrupt was answered and not reported yet (`__abortReportedLater`). */
  const unreportedAborts = new Set<string>()
  let checks = 0
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
      if (sub.closed || (sub.types && !sub.types.has(type))) continue
      sub.queue.push(event)
      sub.wake?.()
    }
  }

  /**
   * The newest build: `{ signal?, types? }`, only the types asked for. An intermediate build
   * (`__subscribeForm: "types"`) takes the array itself and refuses anything else; another
   * (`"unfiltered"`) takes `{ signal }` and sends every event whatever the types say.
   */
  function subscribe(args: unknown = {}): AsyncIterable<unknown> {
    const form = subscribeForm ?? "options"
    if (form === "types" && !Array.isArray(args)) throw new TypeError("subscribe: expected an array of event types")
    const types = Array.isArray(args) ? args : form === "unfiltered" ? undefined : (args as { types?: unknown }).types
    const signal = Array.isArray(args) ? undefined : (args as { signal?: AbortSignal }).signal
    const sub: (typeof subscribers)[number] = { queue: [], closed: false, types: Array.isArray(types) ? new Set(types.map(String)) : undefined }
    subscribers.push(sub)
    signal?.addEventListener("abort", () => {
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

  /** Staged reverts by session: the message the session goes back to (its `revert.messageID`). */
  const reverts = new Map<string, string>()

  /**
   * `session.revert.stage` at the newest user message, as the TUI's undo does: refused while the
   * session runs (BusyError) and for a message the session does not hold (MessageNotFoundError),
   * both with nothing changed; else `session.revert.staged { sessionID, revert }`.
   */
  function revert(sessionID: string): void {
    if (runs.has(sessionID)) return
    const lastUser = [...list(sessionID)].reverse().find((m) => m.type === "user")
    if (!lastUser) return
    reverts.set(sessionID, lastUser.id)
    emit("session.revert.staged", { sessionID, revert: { messageID: lastUser.id, snapshot: "snap_1", files: [] } })
  }

  /** The next prompt commits a staged revert first: the messages from its boundary on go, `session.revert.committed { to }`. */
  function commitRevert(sessionID: string): void {
    const to = reverts.get(sessionID)
    if (to === undefined) return
    reverts.delete(sessionID)
    const messages = list(sessionID)
    const from = messages.findIndex((m) => m.id === to)
    if (from >= 0) messages.splice(from)
    emit("session.revert.committed", { sessionID, messageID: to })
  }

  function userTurn(sessionID: string, message: Obj, fromPlugin: boolean): void {
    commitRevert(sessionID)
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
      void Promise.resolve().then(() => {
        if (failsAfterPrompt) return endRun(sessionID, "failed", V2_ERRORS.stream)
        if (worksAfterPrompt) {
          // A model that works: one real tool call and a report of what it found, new each time.
          const n = ++checks
          const assistant = runs.get(sessionID)?.assistant
          const callID = `call_check_${n}`
          const content = [{ type: "text", text: "ok" }]
          assistant?.content.push({ type: "tool", id: callID, name: "bash", state: { status: "completed", input: { command: "make check" }, content }, time: { created: Date.now() } })
          emit("session.tool.input.started", { sessionID, assistantMessageID: assistant?.id, id: callID, name: "bash" })
          emit("session.tool.called", { sessionID, assistantMessageID: assistant?.id, id: callID, input: { command: "make check" }, executed: false })
          emit("session.tool.success", { sessionID, assistantMessageID: assistant?.id, id: callID, content, executed: true })
          text(sessionID, `Ran check ${n}: ${n * 7} files scanned, ${n} fixed.`)
        } else text(sessionID, "On it.")
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

  function endRun(sessionID: string, outcome: "succeeded" | "failed" | "interrupted", error?: Obj, finish = "stop", reason = "user"): void {
    const run = runs.get(sessionID)
    if (!run) return
    outages.delete(sessionID)
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
    // A held-back interrupt belongs to the run that just ended, never to a later one.
    unreportedAborts.delete(sessionID)
    if (outcome === "interrupted") emit("session.execution.interrupted", { sessionID, reason })
    else if (outcome === "failed") emit("session.execution.failed", { sessionID, error })
    else emit("session.execution.succeeded", { sessionID })
    list(sessionID).push({ id: id("idl"), type: "idle", outcome })
    for (const queued of run.inbox) emit("session.inbox.cancelled", { sessionID, inboxID: queued.id })
  }

  function own(type: "user" | "synthetic", args: Obj): Obj {
    const sessionID = args.sessionID
    if (typeof args.id === "string" && messageIDs.has(args.id)) {
      acts.push({ act: "duplicate", in: whoOf(sessionID), kind: String(args.metadata?.kind ?? "") })
      throw Object.assign(new Error(`message ${args.id} already exists`), { name: "ConflictError", _tag: "ConflictError" })
    }
    const message = { id: args.id ?? id("msg"), type, text: args.text, metadata: args.metadata, time: { created: Date.now() } }
    messageIDs.add(message.id)
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

  const liveHooks = (name: string) => hooks.filter((h) => h.name === name && !h.disposed)

  /**
   * The provider refuses the run's current request. The host's retry policy: `http.response`
   * hooks hear the response (status, headers), then while its budget lasts the `retry` hooks
   * hear the proposal (`decision` rewritable; a rewrite is an act of the plugin's); a retry is
   * announced (`session.step.failed`, `session.retry.scheduled`) and made after its delay as a
   * new step; no retry fails the run with the error.
   */
  async function requestRefused(sessionID: string, attempt: number): Promise<void> {
    const outage = outages.get(sessionID)
    if (!outage || !runs.has(sessionID) || closed) return
    const setup = setupOf(sessionID)
    const model = { id: setup.modelID, providerID: setup.providerID }
    const status = typeof outage.error.status === "number" ? outage.error.status : 500
    const { retryAfter, ...reported } = outage.error
    const headers = new Headers(typeof retryAfter === "string" ? { "retry-after": retryAfter } : {})
    for (const h of liveHooks("http.response")) await h.cb({ sessionID, agent: setup.agent, model, kind: "primary", response: new Response("{}", { status, headers }) })
    // What error objects carry: no status line, no headers; only the body.
    const carried = { ...reported, response: { body: "{}" } }
    let decision: { retry: false } | { retry: true; delay: number } = { retry: false }
    if (attempt <= HOST_RETRIES) {
      // The host honours the provider's Retry-After itself, up to 15 minutes (2026-12-03 item 2).
      const honoured = typeof retryAfter === "string" ? Math.min(Number(retryAfter) * 1000, HOST_RETRY_AFTER_MAX_MS) : 0
      const proposed = { retry: true as const, delay: Math.max(HOST_RETRY_BASE_MS * 2 ** (attempt - 1), honoured) }
      const event: Obj = { sessionID, agent: setup.agent, model, error: carried, attempt: attempt + 1, decision: proposed }
      for (const h of liveHooks("retry")) await h.cb(event)
      const d = event.decision as Obj | undefined
      decision = d?.retry === true ? { retry: true, delay: typeof d.delay === "number" && Number.isFinite(d.delay) && d.delay >= 0 ? Math.ceil(d.delay) : proposed.delay } : { retry: false }
      if (!decision.retry) acts.push({ act: "hostRetry", in: whoOf(sessionID), retry: false })
      else if (decision.delay !== proposed.delay) acts.push({ act: "hostRetry", in: whoOf(sessionID), retry: true, delayMs: decision.delay })
    }
    const run = runs.get(sessionID)
    if (!run || closed) return
    if (!decision.retry) return endRun(sessionID, "failed", carried)
    emit("session.step.failed", { sessionID, assistantMessageID: run.assistant?.id, error: carried, finish: "error" })
    emit("session.retry.scheduled", { sessionID, assistantMessageID: run.assistant?.id, attempt: attempt + 1, at: Date.now() + decision.delay, error: carried })
    setTimeout(() => {
      if (!runs.has(sessionID) || closed) return
      step(sessionID)
      const still = outages.get(sessionID)
      if (still && (still.until === undefined || Date.now() < still.until)) return void requestRefused(sessionID, attempt + 1)
      outages.delete(sessionID)
      text(sessionID, "Back at it.")
      endRun(sessionID, "succeeded")
    }, decision.delay)
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
      hook: async((name: unknown, cb: unknown) => {
        if (typeof name !== "string" || !HOOK_NAMES.has(name)) throw new TypeError(`session.hook: unknown hook ${String(name)}`)
        if (typeof cb !== "function") throw new TypeError("session.hook: callback must be a function")
        const entry = { name, cb: cb as (event: Obj) => unknown, disposed: false }
        hooks.push(entry)
        return { dispose: async () => void (entry.disposed = true) }
      }),
      generate: noop,
      remove: noop,
      switchAgent: async((a: Obj) => acts.push({ act: "send", in: whoOf(a.sessionID), kind: "switchAgent", text: String(a.agent) })),
      switchModel: async((a: Obj) => acts.push({ act: "send", in: whoOf(a.sessionID), kind: "switchModel", text: JSON.stringify(a.model) })),
      prompt: async((a: Obj) => own("user", a)),
      synthetic: async((a: Obj) => own("synthetic", a)),
      interrupt: async((a: Obj) => {
        acts.push({ act: "abort", in: whoOf(a.sessionID) })
        const live = runs.has(a.sessionID)
        if (abortReportedLater && live) unreportedAborts.add(a.sessionID)
        else void Promise.resolve().then(() => endRun(a.sessionID, "interrupted"))
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
    /** The provider refuses this run's requests with `error` for `ms` (unset: the whole run); the host's retry policy runs. */
    providerDown(sessionID: string, error: Obj, ms: number | undefined): void {
      if (!runs.has(sessionID)) return
      outages.set(sessionID, ms === undefined ? { error } : { error, until: Date.now() + ms })
      void requestRefused(sessionID, 1)
    },
    /** The run an interrupt was held back for (`__abortReportedLater`) ends now, as interrupted. */
    abortReported(sessionID: string): void {
      if (unreportedAborts.delete(sessionID)) endRun(sessionID, "interrupted")
    },
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
    revert,
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
      closed = true
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
  // `retryAfter` is the response's header (seconds), heard by http.response only: the error object carries none.
  rateLimitRetryAfter: { type: "provider.rate-limit", message: "429", status: 429, retryAfter: "1200" },
  contextFull: { type: "provider.context-overflow", message: "prompt is too long: the context window is full", status: 400 },
  contentFilter: { type: "provider.content-filter", message: "Provider blocked the response" },
  modelGone: { type: "provider.no-route", message: "model gpt-x not found", status: 404 },
}
