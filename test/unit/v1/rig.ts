/**
 * A fake OpenCode 1.x host for adapter tests: one SDK client, any number of plugin instances
 * started on it (as `server()` runs once per plugin entry), and every event and chat.message
 * delivered to every instance's hooks, the way the 1.18 host does. Reactions follow
 * test/e2e/HOST-NOTES.md: a prompt into an idle session starts a run, into a busy one waits.
 */
import type { Hooks } from "@opencode-ai/plugin"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { MemoryPauses, type PauseSource } from "../../../src/core/pauses.ts"
import { startV1, type V1Plugin } from "../../../src/host/v1/adapter.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"

/** chunkTimeoutMs + gracePeriodMs of the fast profile: silence that makes a stall. */
export const BUDGET = 183_000
/** A live run's stall recovered: the budget, the first backoff, the pause between our abort and the continue. */
export const RECOVERED = BUDGET + 2_000 + ABORT_CONTINUE_DELAY_MS
export const SID = "ses_v1"
/** How long after `promptAsync` the host reports the stored message (chat.message, events). */
export const PROMPT_LATENCY_MS = 20

export async function flush(): Promise<void> {
  for (let i = 0; i < 4; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

let dirs = 0
/** A directory (and so a registry slot) no other test uses. */
export function freshDirectory(): string {
  return `/tmp/unit-v1-${process.pid}-${++dirs}`
}

export type SentPrompt = { sessionID: string; parts: Record<string, unknown>[]; body: Record<string, unknown> }
type Entry = { info: Record<string, unknown>; parts: Record<string, unknown>[] }

export class FakeV1Host {
  readonly time = new SimulatedTime()
  /** The project directory the host passes to every `server()` call (a fresh registry slot). */
  readonly directory = freshDirectory()
  readonly pauses = new MemoryPauses()
  readonly plugins: V1Plugin[] = []
  readonly prompts: SentPrompt[] = []
  readonly logs: { level: string; message: string }[] = []
  /** Every chat.message call, as each instance got it. */
  readonly chatMessages: { parts: unknown[] }[] = []
  private readonly busy = new Set<string>()
  /** false: the status listing shows no run at all (a host whose idle never reached the plugin). */
  listsRuns = true
  aborts = 0
  private readonly history = new Map<string, Entry[]>()
  private seq = 0

  readonly client = {
    session: {
      promptAsync: async (o: { path: { id: string }; body: Record<string, unknown> }) => {
        const parts = (o.body.parts ?? []) as Record<string, unknown>[]
        this.prompts.push({ sessionID: o.path.id, parts, body: o.body })
        // An HTTP round trip: the plugins hear of the new message a moment later, not inside the call.
        this.time.schedule(PROMPT_LATENCY_MS, () => this.userMessage(o.path.id, parts))
        return { data: {} }
      },
      abort: async (o: { path: { id: string } }) => {
        this.aborts++
        if (this.busy.has(o.path.id)) this.endRun(o.path.id)
        return { data: true }
      },
      messages: async (o: { path: { id: string } }) => ({ data: [...(this.history.get(o.path.id) ?? [])] }),
      todo: async () => ({ data: [] }),
      status: async () => ({ data: this.listsRuns ? Object.fromEntries([...this.busy].map((id) => [id, { type: "busy" }])) : {} }),
    },
    app: {
      log: async (o: { body: { level: string; message: string } }) => {
        this.logs.push({ level: o.body.level, message: o.body.message })
        return { data: true }
      },
    },
  }

  /** Starts one plugin instance on this host, as one `server()` call (same directory unless told; null: none). */
  start(options: Record<string, unknown> = {}, directory: string | null = this.directory, pauses: PauseSource = this.pauses): V1Plugin {
    const input = directory === null ? { client: this.client } : { client: this.client, directory }
    const plugin = startV1(input, options, {}, { time: this.time, pauses })
    this.plugins.push(plugin)
    return plugin
  }

  private hookSets(): Hooks[] {
    return this.plugins.map((p) => p.hooks)
  }

  event(type: string, properties: Record<string, unknown>): void {
    for (const hooks of this.hookSets()) void hooks.event?.({ event: { type, properties } as never })
  }

  private id(prefix: string): string {
    return `${prefix}_${String(++this.seq).padStart(4, "0")}`
  }

  private push(sessionID: string, entry: Entry): void {
    const list = this.history.get(sessionID) ?? []
    list.push(entry)
    this.history.set(sessionID, list)
  }

  userMessage(sessionID: string, parts: Record<string, unknown>[], setup?: Record<string, unknown>): void {
    const id = this.id("msg")
    this.push(sessionID, { info: { id, sessionID, role: "user", time: { created: this.time.now() } }, parts })
    for (const hooks of this.hookSets()) {
      this.chatMessages.push({ parts })
      void hooks["chat.message"]?.({ sessionID, messageID: id, ...setup } as never, { message: { id, sessionID, role: "user" }, parts } as never)
    }
    this.event("message.updated", { info: { id, sessionID, role: "user" } })
    if (!this.busy.has(sessionID)) this.startRun(sessionID)
  }

  /** A genuine user turn, with agent and model as the TUI sends them. */
  userTurn(sessionID = SID, text = "please do the task"): void {
    this.userMessage(sessionID, [{ type: "text", text }], { agent: "build", model: { providerID: "openai", modelID: "gpt-x" } })
  }

  startRun(sessionID: string): void {
    this.busy.add(sessionID)
    this.event("session.status", { sessionID, status: { type: "busy" } })
    const info = { id: this.id("msg"), sessionID, role: "assistant", time: { created: this.time.now() }, tokens: { output: 0, reasoning: 0 } }
    this.push(sessionID, { info, parts: [] })
    this.event("message.updated", { info })
  }

  /** The model's answer: a stored assistant message, then the run ends. */
  finishRun(sessionID: string, answer: { text?: string; outputTokens?: number } = {}): void {
    const list = this.history.get(sessionID) ?? []
    const last = list.at(-1)
    if (last && last.info.role === "assistant") {
      last.info.finish = "stop"
      last.info.time = { ...(last.info.time as object), completed: this.time.now() }
      last.info.tokens = { output: answer.outputTokens ?? 10, reasoning: 0 }
      if (answer.text) last.parts.push({ type: "text", text: answer.text })
    }
    this.endRun(sessionID)
  }

  endRun(sessionID: string): void {
    this.busy.delete(sessionID)
    this.event("session.status", { sessionID, status: { type: "idle" } })
    this.event("session.idle", { sessionID })
  }

  delta(sessionID = SID): void {
    this.event("message.part.delta", { sessionID, messageID: "msg_x", partID: "prt_text", field: "text", delta: "working " })
  }

  /** Moves simulated time in steps, letting promise callbacks run between them. */
  async advance(ms: number, stepMs = 1000): Promise<void> {
    await flush()
    let left = ms
    while (left > 0) {
      const step = Math.min(stepMs, left)
      this.time.advance(step)
      left -= step
      await flush()
    }
  }

  logged(pattern: RegExp): boolean {
    return this.logs.some((l) => pattern.test(l.message))
  }

  stopAll(): void {
    for (const p of this.plugins) p.stop("test over")
  }
}
