/**
 * A Host port for unit tests: records every call, and lets a test decide how each call
 * behaves (resolve, reject, throw, never settle).
 */
import type { HostPort, LogLevel, SendRequest } from "../../src/host/port.ts"

export type CallBehaviour = "ok" | "reject" | "throw" | "hang"

export type RecordedCall =
  | { kind: "send"; at: number; request: SendRequest }
  | { kind: "abort"; at: number; sessionID: string }

export class RecordingPort implements HostPort {
  readonly calls: RecordedCall[] = []
  readonly logs: { level: LogLevel; message: string }[] = []
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
