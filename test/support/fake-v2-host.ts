/**
 * A fake OpenCode 2.x host: the documented plugin `ctx` surface and nothing more
 * (../../../shared/host/v2-opencode-2.x.md), recording every call the plugin makes.
 *
 * - Events are `{ id, created, type, data, location?, durable? }` with the payload under
 *   `data`; ephemeral ones (usage, deltas, progress) carry no `durable`. Every open
 *   subscription gets every event, like a broadcast bus.
 * - Host-side helpers (`userTurn`, `textDelta`, `toolStart`, `userEsc`, ...) play what a user and
 *   a model would do, writing the history `session.context` returns.
 * - Plugin calls react the way the document describes: a prompt into an idle session is stored
 *   and starts a run; into a running one it joins the inbox and is promoted at the next
 *   provider-turn boundary (the run carries on); `interrupt` ends the run with reason "user"
 *   (the host cannot tell the plugin's interrupt from ESC) and drops queued items.
 * - As the corrections of 2026-12-01 have it: no `session.status` / `session.idle` (busy and
 *   idle only from `session.execution.*`); `form.created` carries `{ form: { id, sessionID,
 *   ... } }` and no `durable`, its reply only `data.id`; errors are `{ type, message, status? }`;
 *   tool results carry `content`; the subagent tool is `subagent` (`background: true` returns
 *   at once); a step ends with `tokens { input, output, reasoning, cache { read, write } }`.
 * - As the corrections of 2026-12-03 have it (each refused the way the host refuses it, see
 *   test/unit/v2/fake-host-corrections.test.ts): a tool result carrying `output` from a tool
 *   with no output schema kills the call (`runTool` throws a ToolDefect); `session.hook(name,
 *   cb, { providerID? })` takes only the nine hook names and resolves to `{ dispose }`; the
 *   `retry` hook hears each retry the host proposes (`providerFails`) and may rewrite it, and is
 *   not called once the host's budget (4 retries) is spent; `http.response` carries the status
 *   and headers (Retry-After), the error object only `response.body`; a second `prompt` or
 *   `synthetic` with an id already used is refused with a ConflictError; no `summarize`,
 *   `active` or `subscribeGlobal`; `subscribe({ signal, types })` filters by type (or the older
 *   `subscribe(types)`, or a build that ignores the filter: `subscribeForm`);
 *   `session.status`/`session.idle` are never emitted (`emit` refuses them); the plugin list's
 *   source is `{ type: "package", target, version }` (older builds: `package`); the message
 *   route takes `order=asc|desc` and answers 400 to a limit outside 1-200.
 * - Knobs: per-method behaviour (reject, throw, hang, missing), version presets (2.0.16 has no
 *   `session.compact`, `session.remove` nor `app.server`, and lists plugins by `package`),
 *   `inboxEvents: false` for releases without inbox events, stream end/failure, and an HTTP
 *   server reachable only at `app.server.url`.
 */
import type { FetchLike, FetchResponse } from "../../src/host/v2/http.ts"

export type Behaviour = "ok" | "reject" | "throw" | "hang"

export type HostCall = { method: string; args: unknown[]; at: number }

export type FakeV2Options = {
  now?: () => number
  version?: "2.0.16" | "2.0.22"
  directory?: string
  /** `ctx.location.workspaceID`, for a host that runs the project in a workspace. */
  workspaceID?: string
  options?: unknown
  server?: { url: string; password?: string } | null
  inboxEvents?: boolean
  /** The model every step runs on. */
  model?: { id: string; providerID: string }
  /**
   * How `event.subscribe` reads its argument: `options` (newest: `{ signal?, types? }`),
   * `types` (intermediate builds: an array of types; an options object is refused), `unfiltered`
   * (takes options, ignores `types`: every event arrives).
   */
  subscribeForm?: "options" | "types" | "unfiltered"
  /** Plugin source shape in `plugin.list`: `target` (newer) or `package` (older; 2.0.16's). */
  pluginSource?: "target" | "package"
  /** A build without `session.hook`. */
  withoutHook?: boolean
  /** Runs host-side timers (the retry waits); defaults to setTimeout (fake timers in tests). */
  schedule?: (ms: number, fn: () => void) => void
}

/** The names `session.hook` accepts (2026-12-03 item 2). */
export const SESSION_HOOK_NAMES = new Set(["prompt", "context", "compaction", "generate", "title", "model.request", "http.request", "http.response", "retry"])

/** Events 2.x declares and never sends (2026-12-01 item 7, 2026-12-03 item 4). */
const NEVER_EMITTED = new Set(["session.status", "session.idle"])

/** The host's retry budget and base delay (packages/core/src/session/runner/retry.ts). */
export const HOST_RETRY_BUDGET = 4
export const HOST_RETRY_BASE_MS = 2_000
const HOST_RETRY_AFTER_MAX_MS = 15 * 60_000

/** What the host throws for a second send with an id already taken. */
export class ConflictError extends Error {
  readonly _tag = "ConflictError"
  constructor(message: string) {
    super(message)
    this.name = "ConflictError"
  }
}

/** A tool result the host's runtime refuses as a defect: the call dies, the model reads nothing. */
export class ToolDefect extends Error {
  constructor(message: string) {
    super(message)
    this.name = "ToolDefect"
  }
}

export type RetryDecision = { retry: false } | { retry: true; delay: number }
type HookEntry = { name: string; cb: (event: any) => unknown; providerID?: string; disposed: boolean }

const EPHEMERAL = new Set([
  "form.created",
  "session.usage.updated",
  "session.text.delta",
  "session.reasoning.delta",
  "session.tool.input.delta",
  "session.tool.progress",
])

type Subscription = {
  types?: Set<string>
  queue: unknown[]
  waiting?: { resolve: (r: IteratorResult<unknown>) => void; reject: (e: unknown) => void }
  closed: boolean
  error?: unknown
}

type Run = { assistantID: string; queued: Record<string, unknown>[] }

const MODEL = { id: "gpt-x", providerID: "openai" }

export class FakeV2Host {
  readonly calls: HostCall[] = []
  readonly behaviour = new Map<string, Behaviour>()
  readonly history = new Map<string, Record<string, unknown>[]>()
  readonly runs = new Map<string, Run>()
  readonly subscriptions: Subscription[] = []
  readonly registeredTools: Record<string, unknown>[] = []
  /** Commands added through `command.transform` and not disposed. */
  readonly registeredCommands: Record<string, unknown>[] = []
  readonly toolDisposals: number[] = []
  readonly httpRequests: { url: string; headers: Record<string, string> }[] = []
  toolList: unknown = { location: {}, data: [{ name: "bash" }, { name: "read" }, { name: "todowrite", options: { codemode: false } }] }
  pluginList: unknown
  modelList: unknown = { location: {}, data: [{ id: "gpt-x", providerID: "openai", limit: { context: 200_000, output: 32_000 } }] }
  /** Refuse the next subscriptions: "throw" from subscribe itself. */
  subscribeBehaviour: "ok" | "throw" = "ok"
  readonly ctx: Record<string, unknown>
  private seq = 0
  private readonly now: () => number
  private readonly directory: string
  private readonly inboxEvents: boolean
  private readonly model: { id: string; providerID: string }
  /** Models set by `session.switchModel`: in 2.x the model belongs to the session. */
  private readonly sessionModels = new Map<string, { id: string; providerID: string; variant?: string }>()
  readonly server?: { url: string; password?: string }
  /** Every retry decision the host made after its retry hooks, in order (`providerFails`). */
  readonly retryDecisions: RetryDecision[] = []
  /** Hooks registered through `session.hook`, disposed ones included (flagged). */
  readonly hooks: HookEntry[] = []
  /** Ids taken by `prompt`/`synthetic` sends, per session: a second send with one is a conflict. */
  private readonly sentIDs = new Set<string>()
  private readonly subscribeForm: NonNullable<FakeV2Options["subscribeForm"]>
  private readonly schedule: (ms: number, fn: () => void) => void
  private readonly opts: FakeV2Options

  constructor(opts: FakeV2Options = {}) {
    this.opts = opts
    this.now = opts.now ?? (() => Date.now())
    this.directory = opts.directory ?? "/work/project"
    this.inboxEvents = opts.inboxEvents ?? true
    this.model = opts.model ?? MODEL
    this.subscribeForm = opts.subscribeForm ?? "options"
    this.schedule = opts.schedule ?? ((ms, fn) => void setTimeout(fn, ms))
    const later = (opts.version ?? "2.0.22") !== "2.0.16"
    this.server = opts.server === null || !later ? undefined : (opts.server ?? { url: "http://127.0.0.1:4123", password: "s3cret" })
    const byTarget = (opts.pluginSource ?? (later ? "target" : "package")) === "target"
    this.pluginList = {
      location: {},
      data: [{ id: "opencode-auto-resume", source: byTarget ? { type: "package", target: "opencode-auto-resume", version: "0.0.0" } : { type: "package", package: "opencode-auto-resume" } }],
    }
    this.ctx = this.makeCtx(opts.options ?? {})
  }

  /**
   * Another plugin instance's view of this same host (a second location's instance, a plugin
   * loaded twice under different scopes): its own ctx and options, the same sessions, history,
   * ids and event bus.
   */
  anotherCtx(options: unknown): Record<string, unknown> {
    return this.makeCtx(options)
  }

  private makeCtx(options: unknown): Record<string, unknown> {
    const opts = this.opts
    const later = (opts.version ?? "2.0.22") !== "2.0.16"
    const rec = (method: string, fn: (...args: any[]) => unknown) => (...args: unknown[]) => this.invoke(method, args, fn)
    const noop = () => undefined

    const session: Record<string, unknown> = {
      create: rec("session.create", () => ({ id: this.id("ses") })),
      get: rec("session.get", (a) => ({ id: a?.sessionID, model: this.modelOf(a?.sessionID) })),
      switchAgent: rec("session.switchAgent", noop),
      switchModel: rec("session.switchModel", (a) => this.switchModel(a)),
      prompt: rec("session.prompt", (a) => this.admit("user", a)),
      generate: rec("session.generate", noop),
      command: rec("session.command", noop),
      synthetic: rec("session.synthetic", (a) => this.admit("synthetic", a)),
      interrupt: rec("session.interrupt", (a) => this.interrupt(a)),
      update: rec("session.update", noop),
      move: rec("session.move", noop),
      wait: rec("session.wait", noop),
      context: rec("session.context", (a) => [...(this.history.get(a?.sessionID) ?? [])]),
      hook: rec("session.hook", (name, cb, o) => this.hook(name, cb, o)),
    }
    if (opts.withoutHook) delete session.hook
    if (later) {
      session.compact = rec("session.compact", noop)
      session.remove = rec("session.remove", noop)
    }
    return {
      app: { name: "opencode", version: opts.version ?? "2.0.22", channel: "latest", ...(this.server ? { server: this.server } : {}) },
      location: { directory: this.directory, ...(opts.workspaceID ? { workspaceID: opts.workspaceID } : {}) },
      options,
      agent: {},
      aisdk: {},
      command: { transform: rec("command.transform", (cb) => this.transform(cb, "command")) },
      event: { subscribe: rec("event.subscribe", (a) => this.subscribe(a)) },
      experimental: {},
      integration: {},
      mcp: {},
      model: {
        list: rec("model.list", () => this.modelList),
        default: rec("model.default", () => ({ location: {}, data: (this.modelList as { data: unknown[] }).data[0] })),
      },
      generate: {},
      permission: {},
      plugin: { list: rec("plugin.list", () => this.pluginList) },
      provider: {},
      reference: {},
      rpc: {},
      session,
      shell: {},
      skill: {},
      storage: {},
      tool: { list: rec("tool.list", () => this.toolList), transform: rec("tool.transform", (cb) => this.transform(cb, "tool")) },
      vcs: {},
      websearch: {},
      worktree: {},
    }
  }

  // ---- knobs -------------------------------------------------------------------------------

  /** Makes `ctx.<area>.<name>` absent, as on a release that lacks it. */
  remove(method: string, ctx: Record<string, unknown> = this.ctx): void {
    const [area, name] = method.split(".") as [string, string]
    delete (ctx[area] as Record<string, unknown>)[name]
  }

  set(method: string, behaviour: Behaviour): void {
    this.behaviour.set(method, behaviour)
  }

  callsTo(method: string): HostCall[] {
    return this.calls.filter((c) => c.method === method)
  }

  private invoke(method: string, args: unknown[], fn: (...args: any[]) => unknown): unknown {
    this.calls.push({ method, args, at: this.now() })
    const b = this.behaviour.get(method) ?? "ok"
    if (b === "throw") throw new Error(`${method}: synchronous host failure`)
    if (b === "reject") return Promise.reject(new Error(`${method}: host rejected`))
    if (b === "hang") return new Promise(() => {})
    if (method === "event.subscribe") return fn(...args) // not a promise: an AsyncIterable
    return Promise.resolve().then(() => fn(...args))
  }

  private id(prefix: string): string {
    return `${prefix}_${String(++this.seq).padStart(4, "0")}`
  }

  // ---- events ------------------------------------------------------------------------------

  emit(
    type: string,
    data: Record<string, unknown>,
    opts: { location?: { directory: string } | null; durable?: boolean; aggregateID?: string } = {},
  ): void {
    if (NEVER_EMITTED.has(type)) throw new Error(`${type} is declared by 2.x but never emitted: a test must not send it`)
    const event: Record<string, unknown> = { id: this.id("evt"), created: this.now(), type, data }
    if (opts.location !== null) event.location = opts.location ?? { directory: this.directory }
    const aggregateID = opts.aggregateID ?? (data.sessionID as string | undefined)
    if ((opts.durable ?? !EPHEMERAL.has(type)) && aggregateID) event.durable = { aggregateID, seq: this.seq, version: 1 }
    for (const sub of this.subscriptions) if (!sub.types || sub.types.has(type)) this.deliver(sub, event)
  }

  /** Delivers anything at all as an event (malformed-event tests). */
  emitRaw(event: unknown): void {
    for (const sub of this.subscriptions) this.deliver(sub, event)
  }

  /** Sends an event with the session only in `durable.aggregateID` (the documented fallback). */
  emitDurableOnly(type: string, sessionID: string, data: Record<string, unknown> = {}): void {
    this.emit(type, data, { durable: true, aggregateID: sessionID })
  }

  private deliver(sub: Subscription, event: unknown): void {
    if (sub.closed) return
    if (sub.waiting) {
      const w = sub.waiting
      sub.waiting = undefined
      w.resolve({ value: event, done: false })
    } else sub.queue.push(event)
  }

  get openSubscriptions(): number {
    return this.subscriptions.filter((s) => !s.closed).length
  }

  /** Ends every open stream normally (the iterator reports done). */
  endStreams(): void {
    for (const sub of this.subscriptions) this.close(sub)
  }

  /** Makes every open stream throw. */
  failStreams(message = "event bus lost"): void {
    for (const sub of this.subscriptions) {
      if (sub.closed) continue
      sub.error = new Error(message)
      sub.closed = true
      const w = sub.waiting
      sub.waiting = undefined
      w?.reject(sub.error)
    }
  }

  private close(sub: Subscription): void {
    if (sub.closed) return
    sub.closed = true
    const w = sub.waiting
    sub.waiting = undefined
    w?.resolve({ value: undefined, done: true })
  }

  /**
   * The three argument forms builds have taken: `{ signal?, types? }` (newest), an array of
   * types (intermediate; an options object is refused there), or options with the filter
   * ignored. An unknown form of argument is refused as the host's schema would.
   */
  private subscribe(arg: unknown): AsyncIterable<unknown> {
    if (this.subscribeBehaviour === "throw") throw new Error("event.subscribe: bus unavailable")
    let types: unknown
    let signal: AbortSignal | undefined
    if (this.subscribeForm === "types") {
      if (arg !== undefined && !Array.isArray(arg)) throw new TypeError("event.subscribe: expected an array of event types")
      types = arg
    } else {
      if (arg !== undefined && (typeof arg !== "object" || arg === null || Array.isArray(arg))) throw new TypeError("event.subscribe: expected { signal?, types? }")
      const options = arg as { signal?: AbortSignal; types?: unknown } | undefined
      signal = options?.signal
      if (this.subscribeForm === "options") types = options?.types
    }
    if (types !== undefined && (!Array.isArray(types) || types.some((t) => typeof t !== "string"))) throw new TypeError("event.subscribe: types must be event type names")
    const sub: Subscription = { queue: [], closed: false, ...(Array.isArray(types) ? { types: new Set(types as string[]) } : {}) }
    this.subscriptions.push(sub)
    signal?.addEventListener("abort", () => this.close(sub))
    if (signal?.aborted) this.close(sub)
    return {
      [Symbol.asyncIterator]: () => ({
        next: (): Promise<IteratorResult<unknown>> => {
          if (sub.queue.length > 0) return Promise.resolve({ value: sub.queue.shift(), done: false })
          if (sub.error) return Promise.reject(sub.error)
          if (sub.closed) return Promise.resolve({ value: undefined, done: true })
          return new Promise((resolve, reject) => {
            sub.waiting = { resolve, reject }
          })
        },
        return: (): Promise<IteratorResult<unknown>> => {
          this.close(sub)
          return Promise.resolve({ value: undefined, done: true })
        },
      }),
    }
  }

  // ---- the plugin's calls --------------------------------------------------------------------

  private admit(type: "user" | "synthetic", args: Record<string, any>): Record<string, unknown> {
    const sessionID = args?.sessionID as string
    if (args?.id !== undefined) {
      // A caller-chosen id makes the send idempotent: the host refuses it the second time.
      // Session.Message.ID: a string starting with `msg_`, as the host's schema checks it.
      if (typeof args.id !== "string" || !args.id.startsWith("msg_")) throw new TypeError(`session.${type === "user" ? "prompt" : "synthetic"}: id must start with msg_`)
      if (this.sentIDs.has(args.id)) throw new ConflictError(`message ${args.id} already exists`)
      this.sentIDs.add(args.id)
    }
    const payload: Record<string, unknown> = { text: args?.text }
    if (args?.metadata) payload.metadata = args.metadata
    if (args?.description) payload.description = args.description
    const item = { id: args?.id ?? this.id("msg"), sessionID, type, payload, delivery: args?.delivery ?? "steer" }
    const message = { id: item.id, type, text: args?.text, ...(args?.metadata ? { metadata: args.metadata } : {}), time: { created: this.now() } }
    if (this.inboxEvents) this.emit("session.inbox.enqueued", { sessionID, inboxID: item.id, item })
    const run = this.runs.get(sessionID)
    if (run) run.queued.push(message)
    else {
      this.push(sessionID, message)
      if (type === "user" || args?.resume !== false) this.startRun(sessionID)
    }
    return item
  }

  private interrupt(args: { sessionID?: string }): { interrupted: boolean } {
    const sessionID = args?.sessionID ?? ""
    if (!this.runs.has(sessionID)) return { interrupted: false }
    this.endRun(sessionID, "interrupted", "user")
    return { interrupted: true }
  }

  /** `session.hook(name, cb, { providerID? })`: only the documented names; resolves to `{ dispose }`. */
  private hook(name: unknown, cb: unknown, options: unknown): Promise<{ dispose(): Promise<void> }> {
    if (typeof name !== "string" || !SESSION_HOOK_NAMES.has(name)) throw new TypeError(`session.hook: unknown hook ${String(name)}`)
    if (typeof cb !== "function") throw new TypeError("session.hook: callback must be a function")
    const providerID = (options as { providerID?: unknown } | undefined)?.providerID
    const entry: HookEntry = { name, cb: cb as HookEntry["cb"], disposed: false, ...(typeof providerID === "string" ? { providerID } : {}) }
    this.hooks.push(entry)
    return Promise.resolve({
      dispose: () => {
        entry.disposed = true
        return Promise.resolve()
      },
    })
  }

  /** Live hooks of one name; a hook bound to a provider hears only that provider's sessions. */
  liveHooks(name: string, providerID?: string): HookEntry[] {
    return this.hooks.filter((h) => h.name === name && !h.disposed && (h.providerID === undefined || h.providerID === providerID))
  }

  /**
   * The provider fails the current step with `error` `times` times in a row, then answers. Each
   * failure runs the host's retry policy: `http.response` hooks hear the response (status,
   * headers), then while the budget lasts (HOST_RETRY_BUDGET retries) the `retry` hooks hear
   * the proposal (2 s doubling, Retry-After honoured up to 15 minutes; `retryable: false`
   * proposes no retry) and may rewrite `decision`; a retry is announced with
   * `session.retry.scheduled` and made after its delay. No retry: the run fails with the error.
   * Resolves once the last failure or answer has happened.
   */
  async providerFails(
    sessionID: string,
    error: { type: string; message: string; status?: number },
    opts: { times?: number; retryAfterMs?: number; retryable?: boolean; answer?: string } = {},
  ): Promise<{ decisions: RetryDecision[] }> {
    const decisions: RetryDecision[] = []
    let left = opts.times ?? Infinity
    let attempt = 1
    for (;;) {
      const status = error.status ?? 500
      const headers = new Headers(opts.retryAfterMs !== undefined ? { "retry-after": String(Math.ceil(opts.retryAfterMs / 1000)) } : {})
      const model = this.modelOf(sessionID)
      for (const h of this.liveHooks("http.response", model.providerID)) {
        await h.cb({ sessionID, agent: "build", model, kind: "primary", request: new Request("https://provider.invalid/v1/chat"), response: new Response("{}", { status, headers }) })
      }
      // What error objects carry: no status line, no headers; only the body.
      const carried = { ...error, response: { body: "{}" } }
      left--
      const retriesDone = attempt - 1
      let decision: RetryDecision = { retry: false }
      if (retriesDone < HOST_RETRY_BUDGET) {
        attempt++
        const backoff = HOST_RETRY_BASE_MS * 2 ** retriesDone
        const delay = Math.max(backoff, Math.min(opts.retryAfterMs ?? 0, HOST_RETRY_AFTER_MAX_MS))
        const event = { sessionID, agent: "build", model, error: carried, attempt, decision: (opts.retryable ?? true) ? ({ retry: true, delay } as RetryDecision) : ({ retry: false } as RetryDecision) }
        for (const h of this.liveHooks("retry", model.providerID)) await h.cb(event)
        const d = event.decision as { retry?: unknown; delay?: unknown }
        decision = d.retry === true ? { retry: true, delay: typeof d.delay === "number" && Number.isFinite(d.delay) && d.delay >= 0 ? Math.ceil(d.delay) : delay } : { retry: false }
        decisions.push(decision)
        this.retryDecisions.push(decision)
      }
      if (!decision.retry || !this.runs.has(sessionID)) {
        if (this.runs.has(sessionID)) this.failRun(sessionID, carried)
        return { decisions }
      }
      const msg = this.assistant(sessionID)
      this.emit("session.step.failed", { sessionID, assistantMessageID: msg?.id, error: carried, finish: "error" })
      this.emit("session.retry.scheduled", { sessionID, assistantMessageID: msg?.id, attempt, at: this.now() + decision.delay, error: carried })
      await new Promise<void>((resolve) => this.schedule(decision.delay, resolve))
      const run = this.runs.get(sessionID)
      if (!run) return { decisions }
      this.nextStep(sessionID, run)
      if (left <= 0) {
        this.textDelta(sessionID, opts.answer ?? "Back at it.")
        this.finishRun(sessionID)
        return { decisions }
      }
    }
  }

  /**
   * The host runs a registered tool the way its tool runtime does: the input is handed over, a
   * thrown error becomes a failure the model reads, and the result is checked: `output` without
   * a declared output schema is a defect and the call dies (ToolDefect), a declared schema
   * without `output` is a failure; otherwise the model reads `content` (as parts).
   */
  async runTool(name: string, input: unknown, context: Record<string, unknown> = {}): Promise<{ failed?: string; content: { type: string; text: string }[]; metadata?: unknown }> {
    const tool = this.registeredTools.find((t) => t.name === name) as { execute?: (i: unknown, c: unknown) => unknown; output?: unknown } | undefined
    if (typeof tool?.execute !== "function") throw new Error(`no tool ${name} is registered`)
    const full = { sessionID: "ses_main", agent: "build", messageID: this.id("msg"), id: this.id("call"), signal: new AbortController().signal, progress: () => undefined, ...context }
    let result: unknown
    try {
      result = await tool.execute(input, full)
    } catch (error) {
      return { failed: error instanceof Error ? error.message : String(error), content: [] }
    }
    if (typeof result !== "object" || result === null) throw new ToolDefect("Tool result is not an object")
    const r = result as { output?: unknown; content?: unknown; metadata?: unknown }
    if (tool.output === undefined && "output" in r) throw new ToolDefect("Tool result declared output without an output schema")
    if (tool.output !== undefined && !("output" in r)) return { failed: "Tool did not return its declared output", content: [] }
    const content = typeof r.content === "string" ? [{ type: "text", text: r.content }] : Array.isArray(r.content) && r.content.length > 0 ? (r.content as { type: string; text: string }[]) : [{ type: "text", text: JSON.stringify(r.output) ?? "" }]
    return { content, ...(r.metadata === undefined ? {} : { metadata: r.metadata }) }
  }

  private transform(cb: (editor: unknown) => void, kind: "tool" | "command"): Promise<{ dispose(): void }> {
    const added: Record<string, unknown>[] = []
    const editor =
      kind === "tool"
        ? {
            list: () => [...this.registeredTools],
            get: (id: string) => this.registeredTools.find((t) => t.name === id),
            namespace: () => undefined,
            add: (info: Record<string, unknown>) => {
              if (this.registeredTools.some((t) => t.name === info.name)) throw new Error(`tool ${String(info.name)} already exists`)
              added.push(info)
              this.registeredTools.push(info)
            },
            update: () => undefined,
            remove: () => undefined,
          }
        : {
            add: (info: Record<string, unknown>) => {
              added.push(info)
              this.registeredCommands.push(info)
            },
          }
    cb(editor)
    const index = this.toolDisposals.length
    this.toolDisposals.push(0)
    return Promise.resolve({
      dispose: () => {
        this.toolDisposals[index]!++
        const list = kind === "tool" ? this.registeredTools : this.registeredCommands
        for (const info of added) {
          const at = list.indexOf(info)
          if (at >= 0) list.splice(at, 1)
        }
      },
    })
  }

  // ---- what the user and the model do --------------------------------------------------------

  /**
   * The user runs `/<name> <text>` in a session: the host calls the registered command's
   * `execute` with the invocation shape of the doc and hands back what it returned.
   */
  async runCommand(sessionID: string, name: string, text = ""): Promise<unknown> {
    const command = this.registeredCommands.find((c) => c.name === name) as { execute?: (i: unknown) => unknown } | undefined
    if (typeof command?.execute !== "function") throw new Error(`no command /${name} is registered`)
    return await command.execute({ sessionID, prompt: { text }, delivery: "steer", messageID: this.id("msg") })
  }

  private push(sessionID: string, message: Record<string, unknown>): void {
    const list = this.history.get(sessionID) ?? []
    list.push(message)
    this.history.set(sessionID, list)
  }

  isBusy(sessionID: string): boolean {
    return this.runs.has(sessionID)
  }

  /**
   * The user types a message: stored, announced, and a run starts (or it queues).
   * `firstStep: false` plays a provider that hangs before its first step.
   */
  userTurn(sessionID: string, text = "please do the task", opts: { firstStep?: boolean } = {}): string {
    const id = this.id("msg")
    const message = { id, type: "user", text, time: { created: this.now() } }
    if (this.inboxEvents) {
      this.emit("session.inbox.enqueued", { sessionID, inboxID: id, item: { id, sessionID, type: "user", payload: { text }, delivery: "steer" } })
    }
    const run = this.runs.get(sessionID)
    if (run) run.queued.push(message)
    else {
      this.push(sessionID, message)
      this.startRun(sessionID, opts)
    }
    return id
  }

  startRun(sessionID: string, opts: { firstStep?: boolean } = {}): void {
    const run: Run = { assistantID: "", queued: [] }
    this.runs.set(sessionID, run)
    this.emit("session.execution.started", { sessionID })
    if (opts.firstStep !== false) this.nextStep(sessionID, run)
  }

  private nextStep(sessionID: string, run: Run): void {
    run.assistantID = this.id("msg")
    const model = this.modelOf(sessionID)
    this.push(sessionID, { id: run.assistantID, type: "assistant", agent: "build", model, content: [], time: { created: this.now() } })
    this.emit("session.step.started", { sessionID, assistantMessageID: run.assistantID, agent: "build", model, started: this.now() })
  }

  /** The model a session's steps run on: the last `switchModel`, else the host's default. */
  modelOf(sessionID: string): { id: string; providerID: string; variant?: string } {
    return this.sessionModels.get(sessionID) ?? this.model
  }

  /**
   * 2.x `session.switchModel({ sessionID, model: { id, providerID, variant? } })` (the client's
   * SessionSwitchModelInput; POST /api/session/{id}/model, 204): any other shape is refused, as
   * the host's schema would.
   */
  private switchModel(a: unknown): void {
    const input = a as { sessionID?: unknown; model?: { id?: unknown; providerID?: unknown; variant?: unknown } } | undefined
    const model = input?.model
    if (typeof input?.sessionID !== "string" || typeof model?.id !== "string" || typeof model.providerID !== "string") {
      throw new Error("session.switchModel: expected { sessionID, model: { id, providerID, variant? } }")
    }
    this.sessionModels.set(input.sessionID, { id: model.id, providerID: model.providerID, ...(typeof model.variant === "string" ? { variant: model.variant } : {}) })
  }

  private assistant(sessionID: string): Record<string, any> | undefined {
    const run = this.runs.get(sessionID)
    return run && this.history.get(sessionID)?.find((m) => m.id === run.assistantID)
  }

  textDelta(sessionID: string, delta = "working on it "): void {
    const msg = this.assistant(sessionID)
    if (msg) {
      const last = msg.content.at(-1)
      if (last?.type === "text") last.text += delta
      else msg.content.push({ type: "text", text: delta })
    }
    this.emit("session.text.delta", { sessionID, assistantMessageID: msg?.id, delta })
  }

  toolStart(sessionID: string, id: string, name: string, input: unknown = {}): void {
    const msg = this.assistant(sessionID)
    msg?.content.push({ type: "tool", id, name, state: { status: "running", input }, time: { start: this.now() } })
    this.emit("session.tool.input.started", { sessionID, assistantMessageID: msg?.id, id, name })
    this.emit("session.tool.input.ended", { sessionID, assistantMessageID: msg?.id, id })
    this.emit("session.tool.called", { sessionID, assistantMessageID: msg?.id, id, input, executed: false })
  }

  /** The model starts writing a call's input and the stream stops there: a `streaming` part. */
  toolInputStreaming(sessionID: string, id: string, name: string, partial = '{"comm'): void {
    const msg = this.assistant(sessionID)
    msg?.content.push({ type: "tool", id, name, state: { status: "streaming", input: partial }, time: { start: this.now() } })
    this.emit("session.tool.input.started", { sessionID, assistantMessageID: msg?.id, id, name })
    this.emit("session.tool.input.delta", { sessionID, assistantMessageID: msg?.id, id, delta: partial })
  }

  toolFailed(sessionID: string, id: string, message = "tool failed"): void {
    const msg = this.assistant(sessionID)
    const part = msg?.content.find((p: Record<string, unknown>) => p.id === id)
    if (part) part.state = { status: "error", input: part.state.input, error: { type: "tool.execution", message } }
    this.emit("session.tool.failed", { sessionID, assistantMessageID: msg?.id, id, error: { type: "tool.execution", message }, executed: true })
  }

  toolProgress(sessionID: string, id: string): void {
    this.emit("session.tool.progress", { sessionID, assistantMessageID: this.assistant(sessionID)?.id, id, metadata: { output: "..." } })
  }

  toolEnd(sessionID: string, id: string, content = "done"): void {
    const msg = this.assistant(sessionID)
    const part = msg?.content.find((p: Record<string, unknown>) => p.id === id)
    if (part) part.state = { status: "completed", input: part.state.input, content: [{ type: "text", text: content }] }
    this.emit("session.tool.success", { sessionID, assistantMessageID: msg?.id, id, content: [{ type: "text", text: content }], executed: true })
  }

  finishRun(sessionID: string): void {
    this.endRun(sessionID, "succeeded")
  }

  /** The step ends with its token figures (what the context now holds). */
  endStep(sessionID: string, tokens: { input: number; output: number; reasoning?: number; cache?: { read: number; write: number } }, finish = "stop"): void {
    const msg = this.assistant(sessionID)
    const full = { input: tokens.input, output: tokens.output, reasoning: tokens.reasoning ?? 0, cache: tokens.cache ?? { read: 0, write: 0 } }
    if (msg) {
      msg.tokens = full
      msg.finish = finish
    }
    this.emit("session.step.ended", { sessionID, assistantMessageID: msg?.id, agent: "build", model: this.modelOf(sessionID), finish, cost: 0, tokens: full })
  }

  /** The provider fails the step and the run with a 2.x error object `{ type, message, status? }`. */
  failRun(sessionID: string, error: { type: string; message: string; status?: number }): void {
    const msg = this.assistant(sessionID)
    if (msg) msg.error = error
    this.emit("session.step.failed", { sessionID, assistantMessageID: msg?.id, error, finish: "error" })
    this.endRun(sessionID, "failed", undefined, error)
  }

  /** A child session of `parentID` (what the subagent tool creates). */
  createChild(parentID: string, childID: string): void {
    this.emit("session.created", { sessionID: childID, projectID: "prj_1", location: { directory: this.directory }, parentID, agent: "general" })
  }

  /**
   * The parent calls the `subagent` tool and the child starts. A foreground call stays open
   * until `toolEnd`; `background: true` returns at once with `status: "running"`.
   */
  subagentCall(parentID: string, callID: string, childID: string, opts: { background?: boolean } = {}): void {
    const input: Record<string, unknown> = { agent: "general", description: "look around", prompt: "find the config files" }
    if (opts.background) input.background = true
    this.toolStart(parentID, callID, "subagent", input)
    this.createChild(parentID, childID)
    this.userTurn(childID, "find the config files")
    if (opts.background) this.toolEnd(parentID, callID, JSON.stringify({ status: "running", sessionID: childID }))
  }

  /** A form (the question tool's) opens in `sessionID`: `data.form.sessionID`, ephemeral. */
  askForm(sessionID: string, formID: string): void {
    this.emit("form.created", { form: { id: formID, sessionID, title: "Which one?", fields: [{ id: "choice", type: "select", options: ["a", "b"] }] } })
  }

  replyForm(formID: string): void {
    this.emit("form.replied", { id: formID, values: { choice: "a" } })
  }

  cancelForm(formID: string): void {
    this.emit("form.cancelled", { id: formID })
  }

  userEsc(sessionID: string): void {
    this.endRun(sessionID, "interrupted", "user")
  }

  /** The host ends the run for a reason of its own: shutdown, a newer run superseding it, inactivity. */
  hostInterrupts(sessionID: string, reason: "shutdown" | "superseded" | "inactivity"): void {
    this.endRun(sessionID, "interrupted", reason)
  }

  /**
   * Ends the run. Items queued in its inbox are promoted at the provider-turn boundary: on a
   * normal end they become messages and the same run carries on with a new step (no idle in
   * between); an interruption drops them.
   */
  private endRun(sessionID: string, outcome: "succeeded" | "failed" | "interrupted", reason?: string, error?: unknown): void {
    const run = this.runs.get(sessionID)
    if (!run) return
    const msg = this.history.get(sessionID)?.find((m) => m.id === run.assistantID)
    if (msg) (msg.time as Record<string, number>).completed = this.now()
    if (outcome === "succeeded" && run.queued.length > 0) {
      for (const q of run.queued.splice(0)) {
        this.push(sessionID, q)
        if (this.inboxEvents) this.emit("session.inbox.delivered", { sessionID, inboxID: q.id })
      }
      this.nextStep(sessionID, run)
      return
    }
    this.runs.delete(sessionID)
    // An interrupted run's step fails as `aborted` first (the step's error on the message too).
    if (outcome === "interrupted" && msg) {
      msg.error = { type: "aborted", message: "Aborted" }
      this.emit("session.step.failed", { sessionID, assistantMessageID: msg.id, error: msg.error })
    }
    const data = outcome === "interrupted" ? { sessionID, reason } : outcome === "failed" ? { sessionID, error } : { sessionID }
    this.emit(`session.execution.${outcome}`, data)
    this.push(sessionID, { id: this.id("idl"), type: "idle", outcome })
    for (const q of run.queued) if (this.inboxEvents) this.emit("session.inbox.cancelled", { sessionID, inboxID: q.id })
  }

  askPermission(sessionID: string, id: string): void {
    this.emit("permission.asked", { id, sessionID, permission: "bash", patterns: ["rm -rf build"] })
  }

  replyPermission(sessionID: string, id: string): void {
    this.emit("permission.replied", { sessionID, requestID: id, reply: "once" })
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  /** A fetch that answers only at `app.server.url`, checking the Basic credentials. */
  readonly fetch: FetchLike = async (url, init) => {
    this.httpRequests.push({ url, headers: { ...init.headers } })
    const answer = (status: number, body: unknown): FetchResponse => ({ ok: status < 300, status, json: async () => body })
    if (!this.server || !url.startsWith(this.server.url)) throw new Error(`connection refused: ${url}`)
    if (this.server.password) {
      const expected = `Basic ${Buffer.from(`opencode:${this.server.password}`).toString("base64")}`
      if (init.headers.authorization !== expected) return answer(401, { error: "unauthorized" })
    }
    const u = new URL(url)
    const path = u.pathname.slice(new URL(this.server.url).pathname.replace(/\/+$/, "").length)
    if (path === "/api/session/active") {
      const data: Record<string, unknown> = {}
      for (const id of this.runs.keys()) data[id] = { type: "running" }
      return answer(200, { data })
    }
    const m = /^\/api\/session\/([^/]+)\/message$/.exec(path)
    if (m) {
      // limit 1-200 and order asc|desc, as the route's schema has them; anything else is a 400.
      const limit = Number(u.searchParams.get("limit") ?? 50)
      const order = u.searchParams.get("order") ?? "desc"
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) return answer(400, { error: "limit must be an integer from 1 to 200" })
      if (order !== "asc" && order !== "desc") return answer(400, { error: "order must be asc or desc" })
      const all = [...(this.history.get(decodeURIComponent(m[1]!)) ?? [])]
      const list = order === "desc" ? all.reverse().slice(0, limit) : all.slice(0, limit)
      return answer(200, { data: list, cursor: null })
    }
    return answer(404, { error: "not found" })
  }
}
