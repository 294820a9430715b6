/**
 * A Host port for unit tests: records every call, and lets a test decide how each call
 * behaves (resolve, reject, throw, never settle).
 */
import type { HostPort, LogLevel, ModelRef, SendRequest } from "../../src/core/port.ts"
import type { TodoItem, TranscriptMessage } from "../../src/core/transcript.ts"
import type { JournalEntry } from "../../src/core/journal.ts"

export type CallBehaviour = "ok" | "reject" | "throw" | "hang"

export type RecordedCall =
  | { kind: "send"; at: number; request: SendRequest }
  | { kind: "abort"; at: number; sessionID: string }
  | { kind: "compact"; at: number; sessionID: string }
  | { kind: "command"; at: number; sessionID: string; name: string; args: string }

export class RecordingPort implements HostPort {
  readonly calls: RecordedCall[] = []
  readonly logs: { level: LogLevel; message: string }[] = []
  /** The 1.x subagent tool; a test of another host sets its own. */
  subagentTools: readonly string[] = ["task"]
  /** Set by a test that reads the history of interventions (journal.ts). */
  journal?: (entry: JournalEntry) => void
  sendBehaviour: CallBehaviour = "ok"
  abortBehaviour: CallBehaviour = "ok"

  constructor(private readonly now: () => number) {}

  private behave(b: CallBehaviour): Promise<void> {
    if (b === "throw") throw new Error("synchronous host failure")
    if (b === "reject") return Promise.reject(new Error("host rejected"))
    if (b === "hang") return new Promise(() => {})
    return Promise.resolve()
  }

  send(request: SendRequest): Promise<void> {
    this.calls.push({ kind: "send", at: this.now(), request })
    return this.behave(this.sendBehaviour)
  }

  abort(sessionID: string): Promise<void> {
    this.calls.push({ kind: "abort", at: this.now(), sessionID })
    return this.behave(this.abortBehaviour)
  }

  /** What the read-side of the host answers; tests set these. */
  history = new Map<string, TranscriptMessage[]>()
  todos = new Map<string, TodoItem[] | undefined>()
  /** undefined: the host has no listing (the call rejects), so discovery stays out of the way. */
  busySessions: string[] | undefined
  tools: string[] = []
  plugins: string[] = []
  limits: { context: number; output: number } | undefined
  readBehaviour: CallBehaviour = "ok"
  reads = 0

  private read<T>(value: () => T): Promise<T> {
    this.reads++
    return this.behave(this.readBehaviour).then(value)
  }

  /** The history read alone (the listing keeps readBehaviour): a host whose message route fails. */
  messagesBehaviour: CallBehaviour = "ok"

  readMessages(sessionID: string, limit: number): Promise<TranscriptMessage[]> {
    if (this.messagesBehaviour !== "ok") {
      this.reads++
      return this.behave(this.messagesBehaviour).then(() => [])
    }
    return this.read(() => (this.history.get(sessionID) ?? []).slice(-limit))
  }

  todosBehaviour: CallBehaviour = "ok"

  readTodos(sessionID: string): Promise<TodoItem[] | undefined> {
    this.reads++
    return this.behave(this.todosBehaviour).then(() => this.todos.get(sessionID))
  }

  listBusySessions(): Promise<string[]> {
    const listed = this.busySessions
    if (!listed) return Promise.reject(new Error("no session listing on this host"))
    return this.read(() => listed)
  }

  toolNames(): Promise<string[]> {
    return this.read(() => this.tools)
  }

  pluginNames(): Promise<string[]> {
    return this.read(() => this.plugins)
  }

  modelLimits(_model: ModelRef): Promise<{ context: number; output: number } | undefined> {
    return this.read(() => this.limits)
  }

  compact(sessionID: string): Promise<void> {
    this.calls.push({ kind: "compact", at: this.now(), sessionID })
    return this.behave(this.sendBehaviour)
  }

  command(sessionID: string, name: string, args: string): Promise<void> {
    this.calls.push({ kind: "command", at: this.now(), sessionID, name, args })
    return this.behave(this.sendBehaviour)
  }

  log(level: LogLevel, message: string): void {
    this.logs.push({ level, message })
  }

  get sends(): SendRequest[] {
    return this.calls.flatMap((c) => (c.kind === "send" ? [c.request] : []))
  }

  get aborts(): number {
    return this.calls.filter((c) => c.kind === "abort").length
  }

  /** The sequence of actions, e.g. ["send", "abort", "send"]. */
  get actions(): string[] {
    return this.calls.map((c) => c.kind)
  }

  logged(pattern: RegExp): boolean {
    return this.logs.some((l) => pattern.test(l.message))
  }
}
