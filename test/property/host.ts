/**
 * The scripted host: answers every call the plugin makes as the scenario's call script says
 * (ok, reject, throw, hang, late, junk), tells the oracle about each call, and shows the
 * plugin what an accepted call did (our prompt appearing, the run aborting) after a delay.
 *
 * The host is truthful about accepted calls: a delivered prompt always shows up in the
 * session, and a delivered abort of a running session always ends it with an interruption.
 * Lying hosts are the fault tests' business (test/faults/).
 *
 * It is exposed two ways: as a core `HostPort`, and as a fake OpenCode 1.x SDK client for the
 * real v1 port (src/host/v1/port.ts), so both adapters are driven by the same script.
 */
import type { TodoItem, TranscriptMessage } from "../../src/core/transcript.ts"
import type { HostPort, LogLevel, SendRequest } from "../../src/core/port.ts"
import type { EventLoopTime } from "../support/event-loop-time.ts"
import { callName, SAYINGS, type HostEvent } from "./events.ts"
import { OK_CALL, type CallScript } from "./model.ts"
import type { MutatingMethod, Oracle } from "./oracle.ts"

type Flavour = "core" | "v1" | "v2"

/** What a v2 call resolves with when the host carried it out; v2-host.ts builds the real answer. */
export const HOST_OK: unique symbol = Symbol("host ok")

/** Every host method the plugin can call, as the fault tests name them. */
export type PortMethod = MutatingMethod | "readMessages" | "readTodos" | "listBusySessions" | "toolNames" | "pluginNames" | "modelLimits" | "log"

export const PORT_METHODS: readonly PortMethod[] = [
  "send",
  "abort",
  "compact",
  "command",
  "readMessages",
  "readTodos",
  "listBusySessions",
  "toolNames",
  "pluginNames",
  "modelLimits",
  "log",
]

/** A fault forced on every call of one method (fault tests); overrides the call script. */
export type FaultPlan = Partial<Record<PortMethod, CallScript["outcome"]>>

const JUNK: unknown[] = ["garbage", 42, [], { unexpected: true }, null, undefined, { data: { nested: [1, 2] } }]

export type LogLine = { level: string; message: string }

/** Messages kept per session for history reads (the judge reads the newest dozen). */
const HISTORY_KEPT = 16

export class ScriptedHost {
  private mutations = 0
  private reads = 0
  readonly logs: LogLine[] = []
  /** Calls per method, faulty or not. */
  readonly callCounts = new Map<PortMethod, number>()
  /** Faults per method; `healed` turns them all off. */
  faults: FaultPlan = {}
  healed = false
  private readonly history = new Map<string, TranscriptMessage[]>()
  private messageSeq = 0

  constructor(
    private readonly scripts: readonly CallScript[],
    private readonly time: EventLoopTime,
    private readonly oracle: Oracle,
    private readonly deliver: (e: HostEvent) => void,
    /** Whether reads may answer with junk (off in the property runs, see `read`). */
    private readonly junkReads = false,
    /** 2.x: an interruption ends the run, so an abort's echo is not followed by an idle. */
    private readonly abortEndsRun = false,
  ) {}

  private script(cursor: number, method: PortMethod): CallScript {
    this.callCounts.set(method, (this.callCounts.get(method) ?? 0) + 1)
    const forced = this.healed ? undefined : this.faults[method]
    if (forced) return { outcome: forced, lateMs: 50, echoDelayMs: 0, idleAfterAbort: true }
    return this.scripts.length === 0 ? OK_CALL : this.scripts[cursor % this.scripts.length]!
  }

  private answer(flavour: Flavour): unknown {
    return flavour === "v1" ? { data: true } : flavour === "v2" ? HOST_OK : undefined
  }

  /** One session-changing call, answered per script. May throw synchronously (by script). */
  mutate(method: MutatingMethod, sessionID: string, sendKind: string | undefined, flavour: Flavour, begunAt?: number): Promise<unknown> {
    const script = this.script(this.mutations++, method)
    const record = this.oracle.call(method, sessionID, script, sendKind, begunAt)
    const land = () => {
      this.oracle.settle(record, script.outcome)
      this.oracle.landed(record)
      this.time.scheduleAs("host", script.echoDelayMs, () => this.echo(method, sessionID, script))
    }
    switch (script.outcome) {
      case "throw":
        this.oracle.settle(record, "threw synchronously")
        throw new Error(`host ${method} exploded`)
      case "reject":
        this.oracle.settle(record, "rejected")
        if (flavour === "v1" && record.n % 2 === 0) return Promise.resolve({ error: { name: "BadRequestError", data: { message: "rejected by host" } } })
        return Promise.reject(new Error(`host ${method} rejected`))
      case "hang":
        return new Promise(() => {})
      case "ok":
        land()
        return Promise.resolve(this.answer(flavour))
      case "junk":
        land()
        return Promise.resolve(JUNK[record.n % JUNK.length])
      case "late":
      case "overdue": {
        const timeout = record.timeoutMs
        const delay = script.outcome === "late" ? Math.min(script.lateMs, timeout - 1) : timeout + script.lateMs
        return new Promise((resolve) => {
          this.time.scheduleAs("host", delay, () => {
            land()
            resolve(this.answer(flavour))
          })
        })
      }
    }
  }

  /** What an accepted call visibly did to the session. */
  private echo(method: MutatingMethod, sessionID: string, script: CallScript): void {
    if (method === "send" || method === "command") {
      this.deliver({ t: "ownEcho", s: sessionID })
      if (!this.oracle.isBusy(sessionID)) this.deliver({ t: "busy", s: sessionID })
      return
    }
    if (method === "abort" && this.oracle.isBusy(sessionID)) {
      this.deliver({ t: "abortEcho", s: sessionID })
      if (script.idleAfterAbort && !this.abortEndsRun) this.deliver({ t: "idle", s: sessionID })
    }
  }

  /** Keeps the session's history in step with what the host reported (for history reads). */
  record(e: HostEvent, id: string): void {
    if (e.t === "deleted") {
      this.history.delete(id)
      return
    }
    const list = this.history.get(id) ?? []
    const now = this.time.now()
    const push = (m: Omit<TranscriptMessage, "id" | "createdAt">) => {
      list.push({ id: `msg_${++this.messageSeq}`, createdAt: now, ...m })
      if (list.length > HISTORY_KEPT) list.shift()
    }
    const lastAssistant = () => {
      const last = list[list.length - 1]
      if (last?.role === "assistant" && last.completedAt === undefined) return last
      push({ role: "assistant", parts: [], agent: "build" })
      return list[list.length - 1]!
    }
    switch (e.t) {
      case "user":
        push({ role: "user", parts: [{ kind: "text", text: "please go on" }], agent: "build" })
        break
      case "ownEcho":
        push({ role: "user", parts: [{ kind: "text", text: "continue", synthetic: true }], own: true })
        break
      case "say": {
        const m = lastAssistant()
        m.parts.push({ kind: "text", text: SAYINGS[e.text % SAYINGS.length]! })
        m.outputTokens = 300
        m.finish = "stop"
        m.completedAt = now
        break
      }
      case "toolStart":
        lastAssistant().parts.push({ kind: "tool", callID: callName(id, e.call), tool: e.tool, status: "running", input: { n: e.call } })
        break
      case "toolEnd":
        for (const m of list) for (const p of m.parts) if (p.kind === "tool" && p.callID === callName(id, e.call)) p.status = "completed"
        break
      case "esc":
      case "abortEcho": {
        const last = list[list.length - 1]
        if (last?.role === "assistant") {
          last.errorName = "MessageAbortedError"
          last.completedAt ??= now
        }
        break
      }
      default:
        return
    }
    this.history.set(id, list)
  }

  private messagesOf(id: string, flavour: Flavour): unknown[] {
    const list = this.history.get(id) ?? []
    if (flavour === "core") return list.map((m) => structuredClone(m))
    return list.map((m) => ({
      info: {
        id: m.id,
        sessionID: id,
        role: m.role,
        agent: m.agent,
        finish: m.finish,
        error: m.errorName ? { name: m.errorName } : undefined,
        tokens: { output: m.outputTokens ?? 0, reasoning: 0 },
        time: { created: m.createdAt, completed: m.completedAt },
      },
      parts: m.parts.map((p) =>
        p.kind === "tool"
          ? { type: "tool", callID: p.callID, tool: p.tool, state: { status: p.status, input: p.input } }
          : p.kind === "text"
            ? { type: "text", text: p.text, synthetic: p.synthetic, metadata: m.own ? { autoResume: true } : undefined }
            : { type: "reasoning", text: p.text },
      ),
    }))
  }

  /** A read: no effect on the session; answered per script with plausible or junk data. */
  read<T>(method: PortMethod, fallback: T, flavour: Flavour): Promise<unknown> {
    const script = this.script(this.reads++, method)
    const forced = !this.healed && this.faults[method] !== undefined
    const wrap = (v: unknown) => (flavour === "v1" ? { data: v } : v)
    switch (script.outcome) {
      case "throw":
        throw new Error("host read exploded")
      case "reject":
        return Promise.reject(new Error("host read rejected"))
      case "hang":
        return new Promise(() => {})
      case "junk":
        // Malformed read answers are the fault tests' subject (test/faults/). Some junk is a
        // plausible lie rather than noise (an empty list: "nothing is running"), so the property
        // runs leave it to the soak's --junk-reads.
        if (!this.junkReads && !forced) return Promise.resolve(wrap(fallback))
        return Promise.resolve(flavour === "v1" ? JUNK[this.reads % JUNK.length] : wrap(JUNK[this.reads % JUNK.length]))
      case "late":
        return new Promise((resolve) => this.time.scheduleAs("host", script.lateMs, () => resolve(wrap(fallback))))
      case "overdue":
        // Past any sendTimeoutMs the generators use.
        return new Promise((resolve) => this.time.scheduleAs("host", 30_000 + script.lateMs, () => resolve(wrap(fallback))))
      case "ok":
        return Promise.resolve(wrap(fallback))
    }
  }

  log(level: string, message: string): void {
    this.logs.push({ level, message })
    this.oracle.hostLog(`${level} ${message}`)
  }

  /** The log call as the host answers it: a faulty log sink throws, rejects, hangs or is slow. */
  private logCall(level: string, message: string, flavour: Flavour): unknown {
    this.log(level, message)
    const fault = this.healed ? undefined : this.faults.log
    this.callCounts.set("log", (this.callCounts.get("log") ?? 0) + 1)
    if (fault === "throw") throw new Error("log sink exploded")
    if (flavour === "core") return undefined
    if (fault === "reject") return Promise.reject(new Error("log sink rejected"))
    if (fault === "hang") return new Promise(() => {})
    if (fault === "junk") return Promise.resolve("junk")
    if (fault === "late" || fault === "overdue") return new Promise((resolve) => this.time.scheduleAs("host", 30_000, () => resolve({ data: true })))
    return Promise.resolve({ data: true })
  }

  /** The host as the core sees it. */
  corePort(): HostPort {
    return {
      send: (request: SendRequest) => this.mutate("send", request.sessionID, request.kind, "core") as Promise<void>,
      abort: (sessionID: string) => this.mutate("abort", sessionID, undefined, "core") as Promise<void>,
      compact: (sessionID: string) => this.mutate("compact", sessionID, undefined, "core") as Promise<void>,
      command: (sessionID: string) => this.mutate("command", sessionID, undefined, "core") as Promise<void>,
      log: (level: LogLevel, message: string) => void this.logCall(level, message, "core"),
      readMessages: (id: string, limit: number) => this.read("readMessages", this.messagesOf(id, "core").slice(-limit), "core") as Promise<TranscriptMessage[]>,
      readTodos: () => this.read<TodoItem[] | undefined>("readTodos", undefined, "core") as Promise<TodoItem[] | undefined>,
      listBusySessions: () => this.read<string[]>("listBusySessions", this.oracle.busyIds(), "core") as Promise<string[]>,
      toolNames: () => this.read<string[]>("toolNames", ["bash", "read", "edit"], "core") as Promise<string[]>,
      pluginNames: () => this.read<string[]>("pluginNames", [], "core") as Promise<string[]>,
      modelLimits: () => this.read("modelLimits", { context: 200_000, output: 32_000 }, "core") as Promise<undefined>,
      subagentTools: ["task"],
    }
  }

  /** The host as OpenCode 1.x hands it to `server()`: an SDK client. */
  v1Client(): unknown {
    const id = (o: unknown) => String((o as { path?: { id?: unknown } })?.path?.id)
    const kindOf = (o: unknown) => {
      const parts = (o as { body?: { parts?: Array<{ metadata?: { kind?: unknown } }> } })?.body?.parts
      const kind = parts?.[0]?.metadata?.kind
      return typeof kind === "string" ? kind : undefined
    }
    return {
      session: {
        promptAsync: (o: unknown) => this.mutate("send", id(o), kindOf(o), "v1"),
        abort: (o: unknown) => this.mutate("abort", id(o), undefined, "v1"),
        summarize: (o: unknown) => this.mutate("compact", id(o), undefined, "v1"),
        command: (o: unknown) => this.mutate("command", id(o), undefined, "v1"),
        messages: (o: unknown) => this.read("readMessages", this.messagesOf(id(o), "v1"), "v1"),
        todo: () => this.read("readTodos", [], "v1"),
        status: () => this.read("listBusySessions", Object.fromEntries(this.oracle.busyIds().map((b) => [b, { type: "busy" }])), "v1"),
      },
      app: {
        log: (o: { body?: { level?: string; message?: string } }) => this.logCall(String(o?.body?.level), String(o?.body?.message), "v1"),
      },
      tool: { ids: () => this.read("toolNames", ["bash", "read", "edit"], "v1") },
      config: {
        get: () => this.read("pluginNames", { plugin: [] }, "v1"),
        providers: () =>
          this.read("modelLimits", { providers: [{ id: "anthropic", models: { "claude-x": { limit: { context: 200_000, output: 32_000 } } } }] }, "v1"),
      },
    }
  }
}
