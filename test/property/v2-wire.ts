/**
 * The property host's OpenCode 2.x wire: host-neutral events (events.ts) become 2.x events and
 * the session history `session.context` returns, in the shapes of
 * shared/host/v2-opencode-2.x.md as its "Corrections of 2026-12-01" give them:
 *  - no `session.status` / `session.idle`: a run is `session.execution.started` and ends with
 *    exactly one of succeeded / failed / interrupted (an interruption ends the run);
 *  - errors are `{ type, message, status? }`, on `session.step.failed` and `execution.failed`;
 *  - a question is a form: `form.created { form: { id, sessionID } }` (ephemeral, no
 *    `data.sessionID`), answered by `form.replied` / `form.cancelled { id }`;
 *  - the subagent tool is `subagent`; tool results carry their text in `content`;
 *  - user turns arrive as inbox items (`session.inbox.enqueued { inboxID, item }`);
 *  - todos exist only as a `todowrite` tool part in the history (no todo event).
 *
 * This is our own translation layer, not test/support/fake-v2-host.ts: the same generated
 * timeline drives the core, the 1.x adapter and this wire. What a 2.x host implies beyond the
 * neutral event (an interruption also ends the run) is stated in `V2_FACTS` for the oracle.
 */
import { callName, keyName, revertName, SAYINGS, spec, type Facts, type HostEvent } from "./events.ts"

export type WireEvent = {
  id: string
  created: number
  type: string
  data: Record<string, unknown>
  location?: { directory: string }
  durable?: { aggregateID: string; seq: number; version: number }
}

type Raw = Record<string, unknown>

/** The project directory of the plugin's instance, and another one its events must ignore. */
export const HOME_DIRECTORY = "/work/property-project"
export const FOREIGN_DIRECTORY = "/work/another-project"

const MODELS = { cloud: { id: "claude-x", providerID: "anthropic" }, local: { id: "qwen3", providerID: "ollama" } } as const

/** 1.x error names the generators draw, as 2.x error types (status 429 is always a rate limit). */
function errorType(name: string, status: number | undefined): string {
  if (status === 429) return "provider.rate-limit"
  if (name === "APIError") return "provider.api-error"
  if (name === "ProviderError") return "provider.stream-error"
  if (name === "ProviderAuthError") return "provider.auth"
  return "unknown"
}

/** What an event means on a 2.x host where it means more than the neutral facts say. */
export const V2_FACTS: Partial<Record<HostEvent["t"], (base: Facts) => Facts>> = {
  // `session.execution.interrupted` is terminal: the run is over, its questions with it.
  esc: (base) => ({ ...base, busy: false, clearAwaiting: true }),
  abortEcho: (base) => ({ ...base, busy: false, clearAwaiting: true }),
}

export function v2Facts(e: HostEvent, base: Facts): Facts {
  const adjust = V2_FACTS[e.t]
  return adjust ? adjust(base) : base
}

/** An item the host admitted for one of our calls, shown later by `ownEcho`. */
export type OwnItem = { id: string; type: "user" | "synthetic"; text: string; metadata: Record<string, unknown> }

const HISTORY_KEPT = 24

export class V2Wire {
  private seq = 0
  private ids = 0
  private readonly history = new Map<string, Raw[]>()
  /** Sessions with a live run, as this host reported them. */
  private readonly running = new Set<string>()
  private readonly ownItems = new Map<string, OwnItem[]>()

  constructor(private readonly now: () => number) {}

  nextId(prefix: string): string {
    return `${prefix}_${++this.ids}`
  }

  /** One wire event; durable events carry their aggregate (the session). */
  wire(type: string, data: Record<string, unknown>, sessionID: string, durable = true, directory = HOME_DIRECTORY): WireEvent {
    const event: WireEvent = { id: `evt_${++this.seq}`, created: this.now(), type, data, location: { directory } }
    if (durable) event.durable = { aggregateID: sessionID, seq: this.seq, version: 1 }
    return event
  }

  /** A prompt or synthetic message of ours the host accepted: its own message shows up next. */
  admitted(sessionID: string, item: OwnItem): void {
    const list = this.ownItems.get(sessionID) ?? []
    if (list.length < 64) list.push(item)
    this.ownItems.set(sessionID, list)
  }

  messages(sessionID: string): unknown[] {
    return (this.history.get(sessionID) ?? []).map((m) => structuredClone(m))
  }

  isRunning(sessionID: string): boolean {
    return this.running.has(sessionID)
  }

  private push(sessionID: string, message: Raw): void {
    const list = this.history.get(sessionID) ?? []
    list.push({ time: { created: this.now() }, ...message })
    if (list.length > HISTORY_KEPT) list.shift()
    this.history.set(sessionID, list)
  }

  /** The open assistant message of the session (the current step), made when missing. */
  private assistant(sessionID: string): Raw {
    const list = this.history.get(sessionID) ?? []
    const last = list[list.length - 1]
    if (last?.type === "assistant" && (last.time as Raw).completed === undefined) return last
    this.push(sessionID, { id: this.nextId("msg_asst"), type: "assistant", agent: "build", model: MODELS.cloud, content: [] })
    return this.history.get(sessionID)!.at(-1)!
  }

  private endRun(sessionID: string, outcome: "succeeded" | "failed" | "interrupted", error?: Raw): void {
    const last = this.history.get(sessionID)?.at(-1)
    if (last?.type === "assistant") {
      ;(last.time as Raw).completed ??= this.now()
      if (error) last.error = error
    }
    this.push(sessionID, { id: this.nextId("msg_idle"), type: "idle", outcome })
  }

  private toolPart(sessionID: string, callID: string): Raw | undefined {
    for (const m of this.history.get(sessionID) ?? []) {
      for (const p of (m.content as Raw[] | undefined) ?? []) if (p.type === "tool" && p.id === callID) return p
    }
    return undefined
  }

  /** The 2.x events that carry `e`, oldest first; the history and the run state move with them. */
  translate(e: HostEvent, id: string): WireEvent[] {
    const wasRunning = this.running.has(id)
    const events = this.events(e, id, wasRunning)
    // Whether a run is live follows the same facts the oracle reads (a running tool means a
    // running session), so what the host answers (`interrupted`) agrees with its account.
    const busy = v2Facts(e, spec(e).facts(e, id)).busy
    if (busy === true) this.running.add(id)
    else if (busy === false) this.running.delete(id)
    return events
  }

  private events(e: HostEvent, id: string, wasRunning: boolean): WireEvent[] {
    const w = (type: string, data: Record<string, unknown>, durable = true) => this.wire(type, { sessionID: id, ...data }, id, durable)
    switch (e.t) {
      case "user": {
        const item = { id: this.nextId("msg_user"), sessionID: id, type: "user", payload: { text: "please go on" }, delivery: "queue" }
        this.push(id, { id: item.id, type: "user", text: "please go on" })
        const out = [w("session.inbox.enqueued", { inboxID: item.id, item })]
        // 2.x names the model only on the step the turn starts.
        if (e.provider) out.push(w("session.step.started", { assistantMessageID: this.nextId("msg_asst"), agent: "build", model: MODELS[e.provider], started: this.now() }))
        return out
      }
      case "ownEcho": {
        const item = this.ownItems.get(id)?.shift() ?? { id: this.nextId("msg_own"), type: "user", text: "continue", metadata: { autoResume: true } }
        this.push(id, { id: item.id, type: item.type, text: item.text, metadata: item.metadata })
        const admitted = { id: item.id, sessionID: id, type: item.type, payload: { text: item.text, metadata: item.metadata }, delivery: "queue" }
        return [w("session.inbox.enqueued", { inboxID: item.id, item: admitted })]
      }
      case "busy":
        return [w("session.execution.started", {})]
      case "idle": {
        this.endRun(id, "succeeded")
        // v1: an older release that leaves the session to the durable aggregate.
        if (e.v === 1) return [this.wire("session.execution.succeeded", {}, id)]
        if (e.v === 2) return [w("session.step.ended", { assistantMessageID: "msg_asst_step", finish: "stop", cost: 0, tokens: tokens(0) }), w("session.execution.succeeded", {})]
        return [w("session.execution.succeeded", {})]
      }
      case "output": {
        const messageID = String(this.assistant(id).id)
        if (e.v === 1) return [w("session.reasoning.delta", { assistantMessageID: messageID, delta: "hmm " }, false)]
        if (e.v === 2) return [w("session.text.started", { assistantMessageID: messageID })]
        return [w("session.text.delta", { assistantMessageID: messageID, delta: "tok " }, false)]
      }
      case "say": {
        const m = this.assistant(id)
        const text = SAYINGS[e.text % SAYINGS.length]!
        ;(m.content as Raw[]).push({ type: "text", text })
        m.finish = "stop"
        m.tokens = tokens(300)
        ;(m.time as Raw).completed = this.now()
        return [
          w("session.text.ended", { assistantMessageID: m.id, text }),
          w("session.step.ended", { assistantMessageID: m.id, finish: "stop", cost: 0, tokens: tokens(300) }),
        ]
      }
      case "usage":
        return [w("session.usage.updated", { assistantMessageID: `msg_asst_${e.msg}`, cost: 0, tokens: { ...tokens(e.tokens), input: Math.max(0, (e.context ?? 0) - e.tokens) } }, false)]
      case "toolStart": {
        const callID = callName(id, e.call)
        const name = e.tool === "task" ? "subagent" : e.tool
        const input = name === "subagent" ? { agent: "general", description: "look around", prompt: "look", n: e.call } : { n: e.call }
        const m = this.assistant(id)
        if (!this.toolPart(id, callID)) (m.content as Raw[]).push({ type: "tool", id: callID, name, state: { status: "running", input }, time: { start: this.now() } })
        const messageID = m.id
        // v1: the older `callID` spelling; v2: the input streams in before the call.
        const key = e.v === 1 ? { callID } : { id: callID }
        // A tool runs inside a run: one that was not running starts first (as for retries).
        const out = wasRunning ? [] : [w("session.execution.started", {})]
        out.push(w("session.tool.input.started", { assistantMessageID: messageID, ...key, name }))
        if (e.v === 2) out.push(w("session.tool.input.delta", { assistantMessageID: messageID, ...key, delta: "{}" }, false), w("session.tool.input.ended", { assistantMessageID: messageID, ...key }))
        out.push(w("session.tool.called", { assistantMessageID: messageID, ...key, input, executed: true }))
        return out
      }
      case "toolEnd": {
        const callID = callName(id, e.call)
        const part = this.toolPart(id, callID)
        const failed = e.v === 1
        if (part) part.state = failed ? { ...(part.state as Raw), status: "error", error: { type: "tool.error", message: "boom" } } : { ...(part.state as Raw), status: "completed", content: "ok" }
        const key = e.v === 2 ? { callID } : { id: callID }
        return failed
          ? [w("session.tool.failed", { assistantMessageID: "msg_asst_tool", ...key, error: { type: "tool.error", message: "boom" }, executed: true })]
          : [w("session.tool.success", { assistantMessageID: "msg_asst_tool", ...key, content: "ok", metadata: {}, executed: true })]
      }
      case "esc":
      case "abortEcho":
        // The host cannot tell our interrupt from the user's: both say reason "user".
        this.endRun(id, "interrupted")
        return [w("session.execution.interrupted", { reason: "user" })]
      case "ask":
        if (e.v === 0) return [w("permission.asked", { id: keyName(id, e.key), title: "run rm?" })]
        // A form names its session only inside `form`, and is ephemeral.
        return [this.wire("form.created", { form: { id: keyName(id, e.key), sessionID: id, title: "Which one?", fields: [] } }, id, false)]
      case "answer":
        if (e.v === 0) return [w("permission.replied", { requestID: keyName(id, e.key), reply: "once" })]
        return [this.wire(e.v === 1 ? "form.replied" : "form.cancelled", { id: keyName(id, e.key) }, id)]
      case "error": {
        const error: Raw = { type: errorType(e.name, e.status), message: "upstream trouble" }
        if (e.status !== undefined) error.status = e.status
        this.endRun(id, "failed", error)
        return [w("session.step.failed", { assistantMessageID: "msg_asst_step", error }), w("session.execution.failed", { error })]
      }
      case "retry": {
        // A retry lives inside a run: one that was not running starts first.
        const out = wasRunning ? [] : [w("session.execution.started", {})]
        out.push(w("session.retry.scheduled", { assistantMessageID: "msg_asst_step", attempt: 1, at: this.now() + 1_000, error: { type: "provider.overloaded", message: "overloaded" } }))
        return out
      }
      case "activity":
        return [w("session.tool.progress", { id: "call_progress", metadata: { step: 1 } }, false)]
      case "todos": {
        // No todo event on 2.x: a todo plugin's completed `todowrite` call is the list.
        const m = this.assistant(id)
        ;(m.content as Raw[]).push({ type: "tool", id: this.nextId("call_todo"), name: "todowrite", state: { status: "completed", input: { todos: todoList(e.open) }, content: "ok" } })
        return []
      }
      case "created": {
        const data: Record<string, unknown> = { projectID: "prj_1", location: { directory: HOME_DIRECTORY }, title: "t" }
        if (e.parent !== undefined) data.parentID = typeof e.parent === "string" ? e.parent : `ses_${e.parent}`
        return [w("session.created", data)]
      }
      case "deleted":
        this.history.delete(id)
        this.running.delete(id)
        this.ownItems.delete(id)
        return [w("session.deleted", {})]
      // A staged revert (the user's hand), or its commit as the next prompt goes in.
      case "revert":
        return e.v === 1 ? [w("session.revert.committed", { messageID: revertName(id, e.msg) })] : [w("session.revert.staged", { revert: { messageID: revertName(id, e.msg), files: [] } })]
    }
  }

  /**
   * Events of another location naming the same session, each of which would mislead the plugin
   * if it took them for its own: a user turn (lifts ESC), every tool ending, the run ending,
   * every question answered. No history changes: they happened elsewhere.
   */
  foreign(id: string): WireEvent[] {
    const w = (type: string, data: Record<string, unknown>) => this.wire(type, { sessionID: id, ...data }, id, true, FOREIGN_DIRECTORY)
    const item = { id: this.nextId("msg_elsewhere"), sessionID: id, type: "user", payload: { text: "elsewhere" } }
    const out = [w("session.inbox.enqueued", { inboxID: item.id, item })]
    for (let c = 0; c < 5; c++) out.push(w("session.tool.success", { id: callName(id, c), content: "ok", executed: true }))
    for (let k = 0; k < 3; k++) out.push(w("permission.replied", { requestID: keyName(id, k), reply: "once" }), w("form.replied", { id: keyName(id, k) }))
    out.push(w("session.execution.succeeded", {}))
    return out
  }
}

function tokens(output: number) {
  return { input: 0, output, reasoning: 0, cache: { read: 0, write: 0 } }
}

function todoList(open: number) {
  return [
    { content: "write the parser", status: open > 0 ? "in_progress" : "completed", priority: "high" },
    { content: "test it", status: open > 1 ? "pending" : "completed", priority: "medium" },
  ]
}
