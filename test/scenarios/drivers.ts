/**
 * One driver per adapter: each plays the host-neutral steps of the scenario table on a
 * simulated clock and counts the plugin's actions.
 *
 * - v1 goes through the real `server()` hooks (`startV1`) with a fake SDK client that reacts
 *   the way OpenCode 1.18 was measured to (test/e2e/HOST-NOTES.md): a prompt fires
 *   `chat.message` and starts a run when idle or waits in history when busy; an abort emits
 *   MessageAbortedError and goes idle.
 * - v2 goes through `startV2` on the fake 2.x host (test/support/fake-v2-host.ts).
 */
import type { Hooks } from "@opencode-ai/plugin"
import { SimulatedTime } from "../support/simulated-time.ts"
import type { RecoveryEngine } from "../../src/core/engine.ts"
import { MemoryPauses } from "../../src/core/pauses.ts"
import { startV1 } from "../../src/host/v1/adapter.ts"
import { startV2 } from "../../src/host/v2/adapter.ts"
import { FakeV2Host } from "../support/fake-v2-host.ts"
import type { HostCallBehaviour, Step } from "./table.ts"

export const SESSION = "ses_scenario"

export type Outcome = { continues: number; aborts: number; cancelledByUser?: boolean }

export interface Driver {
  readonly name: "v1" | "v2"
  readonly time: SimulatedTime
  readonly engine: RecoveryEngine
  step(step: Exclude<Step, { do: "silence" } | { do: "check" }>): void
  outcome(): Outcome
  /** Lets every pending promise callback run. */
  flush(): Promise<void>
  stop(): void
}

export async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

function behave<T>(behaviour: HostCallBehaviour, fn: () => T): Promise<T> {
  if (behaviour === "throw") throw new Error("synchronous host failure")
  if (behaviour === "reject") return Promise.reject(new Error("host rejected"))
  if (behaviour === "hang") return new Promise<T>(() => {})
  return Promise.resolve().then(fn)
}

// ---- v1 --------------------------------------------------------------------------------------

class FakeV1Client {
  prompts = 0
  aborts = 0
  behaviour: HostCallBehaviour = "ok"
  busy = false
  /** User messages stored while a run was live; the run picks them up when it ends normally. */
  queued = 0
  hooks!: Hooks
  private seq = 0
  private readonly history: { info: Record<string, unknown>; parts: Record<string, unknown>[] }[] = []
  private assistantID = ""

  constructor(private readonly now: () => number) {}

  readonly client = {
    session: {
      promptAsync: (o: { path: { id: string }; body: { parts: Record<string, unknown>[] } }) => {
        this.prompts++
        return behave(this.behaviour, () => {
          this.userMessage(o.path.id, o.body.parts, undefined)
          return { data: {} }
        })
      },
      abort: (o: { path: { id: string } }) => {
        this.aborts++
        return behave(this.behaviour, () => {
          if (this.busy) this.aborted(o.path.id)
          return { data: true }
        })
      },
      messages: async () => ({ data: [...this.history] }),
      todo: async () => ({ data: [] }),
      status: async () => ({ data: this.busy ? { [SESSION]: { type: "busy" } } : {} }),
    },
    app: { log: async () => ({ data: true }) },
  }

  private id(prefix: string): string {
    return `${prefix}_${String(++this.seq).padStart(4, "0")}`
  }

  event(type: string, properties: Record<string, unknown>): void {
    void this.hooks.event!({ event: { type, properties } as never })
  }

  userMessage(sessionID: string, parts: Record<string, unknown>[], setup: Record<string, unknown> | undefined): void {
    const id = this.id("msg")
    this.history.push({ info: { id, sessionID, role: "user", time: { created: this.now() } }, parts })
    void this.hooks["chat.message"]!({ sessionID, messageID: id, ...setup } as never, { message: { id, sessionID, role: "user" }, parts } as never)
    this.event("message.updated", { info: { id, sessionID, role: "user" } })
    // Measured on 1.18: a prompt into a running turn is stored and waits; into an idle session it starts a run.
    if (this.busy) this.queued++
    else this.startRun(sessionID)
  }

  startRun(sessionID: string): void {
    this.busy = true
    this.event("session.status", { sessionID, status: { type: "busy" } })
    this.nextAssistant(sessionID)
  }

  private nextAssistant(sessionID: string): void {
    this.assistantID = this.id("msg")
    const info = { id: this.assistantID, sessionID, role: "assistant", time: { created: this.now() }, tokens: { output: 0, reasoning: 0 } }
    this.history.push({ info, parts: [] })
    this.event("message.updated", { info })
  }

  delta(sessionID: string): void {
    this.event("message.part.delta", { sessionID, messageID: this.assistantID, partID: "prt_text", field: "text", delta: "working on it " })
  }

  /** A normal end picks up what waited (same busy period, no idle between); an abort drops it. */
  endRun(sessionID: string, aborted = false): void {
    if (!aborted && this.queued > 0) {
      this.queued = 0
      this.nextAssistant(sessionID)
      return
    }
    this.queued = 0
    this.busy = false
    this.event("session.status", { sessionID, status: { type: "idle" } })
    this.event("session.idle", { sessionID })
  }

  /** A provider error the host gave up on, then idle (as 1.18 reports it). */
  failed(sessionID: string, failure: "stream" | "rate-limit"): void {
    const data = failure === "rate-limit" ? { message: "Rate limit exceeded", statusCode: 429 } : { message: "stream closed unexpectedly" }
    this.event("session.error", { sessionID, error: { name: "APIError", data } })
    this.endRun(sessionID, true)
  }

  aborted(sessionID: string): void {
    this.event("session.error", { sessionID, error: { name: "MessageAbortedError", data: { message: "Aborted" } } })
    this.endRun(sessionID, true)
  }
}

export function v1Driver(options: Record<string, unknown>): Driver {
  const time = new SimulatedTime()
  const pauses = new MemoryPauses()
  const fake = new FakeV1Client(() => time.now())
  const plugin = startV1({ client: fake.client }, options, {}, { time, pauses })
  fake.hooks = plugin.hooks
  const userSetup = { agent: "build", model: { providerID: "openai", modelID: "gpt-x" } }
  return {
    name: "v1",
    time,
    engine: plugin.engine,
    step(step) {
      switch (step.do) {
        case "userTurn":
          return fake.userMessage(SESSION, [{ type: "text", text: step.text ?? "please do the task" }], userSetup)
        case "streamDelta":
          return fake.delta(SESSION)
        case "toolStart":
          void plugin.hooks["tool.execute.before"]!({ tool: step.tool, sessionID: SESSION, callID: step.callID }, { args: {} })
          return
        case "toolProgress":
          return fake.event("message.part.updated", {
            part: { id: `prt_${step.callID}`, type: "tool", sessionID: SESSION, messageID: "msg_tool", callID: step.callID, tool: "bash", state: { status: "running", input: {} } },
          })
        case "toolEnd":
          void plugin.hooks["tool.execute.after"]!({ tool: "bash", sessionID: SESSION, callID: step.callID, args: {} }, { title: "", output: "done", metadata: {} })
          return
        case "userAbort":
          return fake.aborted(SESSION)
        case "runEnds":
          return fake.endRun(SESSION)
        case "hostRunStarts":
          return fake.startRun(SESSION)
        case "permissionAsked":
          return fake.event("permission.asked", { id: step.id, sessionID: SESSION, permission: "bash", patterns: [] })
        case "permissionAnswered":
          return fake.event("permission.replied", { sessionID: SESSION, requestID: step.id, reply: "once" })
        case "questionAsked":
          return fake.event("question.asked", { id: step.id, sessionID: SESSION, questions: [] })
        case "questionAnswered":
          return fake.event("question.replied", { sessionID: SESSION, requestID: step.id, answers: [] })
        case "providerFails":
          return fake.failed(SESSION, step.failure)
        case "pause":
          return pauses.pause(SESSION)
        case "resume":
          return pauses.resume(SESSION)
        case "hostCalls":
          fake.behaviour = step.behaviour
          return
        case "idleLost":
          fake.busy = false
          return
      }
    },
    outcome: () => ({ continues: fake.prompts, aborts: fake.aborts, cancelledByUser: plugin.engine.status(SESSION)?.cancelledByUser }),
    flush,
    stop: () => plugin.engine.dispose(),
  }
}

// ---- v2 --------------------------------------------------------------------------------------

let scopes = 0

export function v2Driver(options: Record<string, unknown>): Driver {
  const time = new SimulatedTime()
  const pauses = new MemoryPauses()
  const host = new FakeV2Host({ now: () => time.now(), options: { registryScope: `scenario-${process.pid}-${++scopes}`, ...options } })
  const instance = startV2(host.ctx, { time, pauses, env: {}, fetch: host.fetch, writeLog: () => undefined })
  const actions = ["session.prompt", "session.synthetic", "session.interrupt"]
  return {
    name: "v2",
    time,
    engine: instance.engine,
    step(step) {
      switch (step.do) {
        case "userTurn":
          host.userTurn(SESSION, step.text)
          return
        case "streamDelta":
          return host.textDelta(SESSION)
        case "toolStart":
          return host.toolStart(SESSION, step.callID, step.tool)
        case "toolProgress":
          return host.toolProgress(SESSION, step.callID)
        case "toolEnd":
          return host.toolEnd(SESSION, step.callID)
        case "userAbort":
          return host.userEsc(SESSION)
        case "runEnds":
          return host.finishRun(SESSION)
        case "hostRunStarts":
          return host.startRun(SESSION)
        case "permissionAsked":
          return host.askPermission(SESSION, step.id)
        case "permissionAnswered":
          return host.replyPermission(SESSION, step.id)
        case "questionAsked":
          return host.askForm(SESSION, step.id)
        case "questionAnswered":
          return host.replyForm(step.id)
        case "providerFails":
          return host.failRun(SESSION, step.failure === "rate-limit" ? { type: "provider.rate-limit", message: "429", status: 429 } : { type: "provider.transport", message: "stream closed unexpectedly" })
        case "pause":
          return pauses.pause(SESSION)
        case "resume":
          return pauses.resume(SESSION)
        case "hostCalls":
          for (const method of actions) host.set(method, step.behaviour)
          return
        case "idleLost":
          host.runs.delete(SESSION)
          return
      }
    },
    outcome: () => ({
      continues: host.callsTo("session.prompt").length + host.callsTo("session.synthetic").length,
      aborts: host.callsTo("session.interrupt").length,
      cancelledByUser: instance.engine.status(SESSION)?.cancelledByUser,
    }),
    flush,
    stop: () => instance.stop(),
  }
}
