/**
 * The abstract host vocabulary of the property tests, one entry per kind of thing a host can
 * tell the plugin. Each entry says, in one place:
 *  - `core`: the Signals it becomes on the core seam;
 *  - `v1`:   the OpenCode 1.x hook calls and events that carry it (variants pick the shape);
 *  - `facts`: what it means for the oracle (busy, tools, ESC, ...), never how the engine reacts.
 *
 * To cover a new signal kind: add a member to `HostEvent`, an entry to `EVENT_KINDS`, and a
 * generator in arbitraries.ts. Nothing else needs to change.
 */
import type { Signal } from "../../src/core/port.ts"

/** Sessions are small integers in the timeline; `sessionName` turns them into host ids. */
export const sessionName = (s: number | string): string => (typeof s === "string" ? s : `ses_${s}`)
export const callName = (s: number | string, c: number): string => `call_${sessionName(s)}_${c}`
export const keyName = (s: number | string, k: number): string => `ask_${sessionName(s)}_${k}`

export type Provider = "cloud" | "local"

/** `s` is a pool index, or a full id for sessions created in bulk (floods). */
export type HostEvent =
  /** A genuine user message (the user, another plugin, a parent's task call). */
  | { t: "user"; s: number | string; provider?: Provider }
  /** An own prompt appearing in the session without our send (a duplicated or replayed echo). */
  | { t: "ownEcho"; s: number | string }
  | { t: "busy"; s: number | string }
  | { t: "idle"; s: number | string; v?: number }
  | { t: "output"; s: number | string; v?: number }
  /** The model closes its turn with one of the canned texts in SAYINGS (the history shows it). */
  | { t: "say"; s: number | string; text: number }
  /** Token totals of an assistant message; `context` (input + output) feeds context saturation. */
  | { t: "usage"; s: number | string; msg: number; tokens: number; context?: number }
  | { t: "toolStart"; s: number | string; call: number; tool: string; v?: number }
  | { t: "toolEnd"; s: number | string; call: number; v?: number }
  /** The user pressed ESC: an interruption we did not cause. */
  | { t: "esc"; s: number | string; v?: number }
  /** The host's answer to our own abort. Produced by the scripted host only. */
  | { t: "abortEcho"; s: number | string; v?: number }
  | { t: "ask"; s: number | string; key: number; v?: number }
  | { t: "answer"; s: number | string; key: number; v?: number }
  | { t: "error"; s: number | string; name: string; status?: number }
  | { t: "retry"; s: number | string }
  | { t: "activity"; s: number | string }
  | { t: "todos"; s: number | string; open: number }
  | { t: "created"; s: number | string; parent?: number | string }
  | { t: "deleted"; s: number | string }
  /**
   * The user reverts the session to message `msg` (v0, v2: staged, the user's own hand as ESC
   * is; a repeat of the same revert is no new act); v1: the reverted messages leave the history
   * (as the user's next message goes in), which latches nothing.
   */
  | { t: "revert"; s: number | string; msg: number; v?: number }

export type EventType = HostEvent["t"]

/** What an event means, as far as the invariants care. */
export type Facts = {
  busy?: boolean
  /** Progress by the model or a new/ended run: the "turn" of invariant 3. */
  turn?: "always" | "ifBusyChanges" | "ifTokensGrow"
  toolStart?: { callID: string; tool: string }
  toolEnd?: string
  /** The run ended: tools it had open are gone (idle, any abort). */
  clearTools?: boolean
  /** The user stopped the run (ESC latch on). */
  userStop?: boolean
  /** A genuine user message: ESC latch off, new continue episode, questions answered. */
  genuineUser?: boolean
  provider?: string
  awaitOpen?: string
  awaitClose?: string
  /** The run ended: any open question or permission was settled with it. */
  clearAwaiting?: boolean
  deleted?: boolean
  /** The user staged a revert to this message: their own hand, unless it is the one staged last. */
  revertTo?: string
}

/** How the v1 driver reaches the adapter: the two hook shapes OpenCode 1.x uses. */
export type V1Sink = {
  event(event: { type: string; properties: Record<string, unknown> }): void
  hook(name: "chat.message" | "tool.execute.before" | "tool.execute.after", input: unknown, output: unknown): void
  /** A fresh id, deterministic per run. */
  nextId(prefix: string): string
}

type KindSpec<E extends HostEvent> = {
  core(e: E, id: string): Signal[]
  v1(e: E, id: string, sink: V1Sink): void
  facts(e: E, id: string): Facts
}

type Registry = { [K in EventType]: KindSpec<Extract<HostEvent, { t: K }>> }

const MODELS: Record<Provider, { providerID: string; modelID: string }> = {
  cloud: { providerID: "anthropic", modelID: "claude-x" },
  local: { providerID: "ollama", modelID: "qwen3" },
}

const ev = (type: string, properties: Record<string, unknown>) => ({ type, properties })

export const EVENT_KINDS: Registry = {
  user: {
    core: (e, id) => [{ type: "userMessage", sessionID: id, genuine: true, setup: { agent: "build", model: e.provider && MODELS[e.provider] } }],
    v1: (e, id, sink) => {
      const messageID = sink.nextId("msg_user")
      sink.event(ev("message.updated", { info: { id: messageID, sessionID: id, role: "user" } }))
      sink.hook(
        "chat.message",
        { sessionID: id, agent: "build", model: e.provider && MODELS[e.provider], messageID },
        { message: { id: messageID, sessionID: id, role: "user" }, parts: [{ type: "text", text: "please go on" }] },
      )
    },
    facts: (e) => ({ genuineUser: true, turn: "always", provider: e.provider && MODELS[e.provider].providerID }),
  },
  ownEcho: {
    core: (_e, id) => [{ type: "userMessage", sessionID: id, genuine: false }],
    v1: (_e, id, sink) =>
      sink.hook(
        "chat.message",
        { sessionID: id },
        { message: { id: sink.nextId("msg_own") }, parts: [{ type: "text", text: "continue", synthetic: true, metadata: { autoResume: true } }] },
      ),
    facts: () => ({}),
  },
  busy: {
    core: (_e, id) => [{ type: "busy", sessionID: id }],
    v1: (_e, id, sink) => sink.event(ev("session.status", { sessionID: id, status: { type: "busy" } })),
    facts: () => ({ busy: true, turn: "ifBusyChanges" }),
  },
  idle: {
    core: (_e, id) => [{ type: "idle", sessionID: id }],
    v1: (e, id, sink) =>
      e.v === 1
        ? sink.event(ev("session.status", { sessionID: id, status: { type: "idle" } }))
        : sink.event(ev("session.idle", { sessionID: id })),
    facts: () => ({ busy: false, turn: "ifBusyChanges", clearTools: true, clearAwaiting: true }),
  },
  output: {
    core: (_e, id) => [{ type: "modelOutput", sessionID: id }],
    v1: (e, id, sink) => {
      if (e.v === 1) {
        // A streamed text part of an assistant message the host announced first.
        sink.event(ev("message.updated", { info: { id: "msg_asst_stream", sessionID: id, role: "assistant", tokens: { output: 0, reasoning: 0 } } }))
        sink.event(ev("message.part.updated", { part: { id: "prt_1", type: "text", text: "thinking...", sessionID: id, messageID: "msg_asst_stream" } }))
      } else {
        sink.event(ev("message.part.delta", { sessionID: id, messageID: "msg_asst_stream", partID: "prt_1", field: "text", delta: "tok " }))
      }
    },
    facts: () => ({ turn: "always" }),
  },
  say: {
    core: (_e, id) => [{ type: "modelOutput", sessionID: id }],
    v1: (e, id, sink) => {
      const messageID = `msg_say_${e.text}`
      sink.event(ev("message.updated", { info: { id: messageID, sessionID: id, role: "assistant", tokens: { output: 300, reasoning: 0 } } }))
      sink.event(ev("message.part.updated", { part: { id: `prt_say_${e.text}`, type: "text", text: SAYINGS[e.text % SAYINGS.length], sessionID: id, messageID } }))
    },
    facts: () => ({ turn: "always" }),
  },
  usage: {
    core: (e, id) => [{ type: "usage", sessionID: id, tokens: e.tokens, messageID: `msg_asst_${e.msg}`, contextTokens: e.context }],
    v1: (e, id, sink) =>
      sink.event(
        ev("message.updated", {
          info: { id: `msg_asst_${e.msg}`, sessionID: id, role: "assistant", tokens: { output: e.tokens, reasoning: 0, input: Math.max(0, (e.context ?? 0) - e.tokens) } },
        }),
      ),
    facts: () => ({ turn: "ifTokensGrow" }),
  },
  toolStart: {
    core: (e, id) => [{ type: "toolStart", sessionID: id, callID: callName(id, e.call), tool: e.tool, args: { n: e.call } }],
    v1: (e, id, sink) =>
      e.v === 1
        ? sink.event(
            ev("message.part.updated", {
              part: { id: `prt_${e.call}`, type: "tool", tool: e.tool, callID: callName(id, e.call), sessionID: id, messageID: "msg_asst_tool", state: { status: "running", input: {} } },
            }),
          )
        : sink.hook("tool.execute.before", { tool: e.tool, sessionID: id, callID: callName(id, e.call) }, { args: { n: e.call } }),
    // A running tool means a running session, whatever events were lost before it.
    facts: (e, id) => ({ turn: "always", busy: true, toolStart: { callID: callName(id, e.call), tool: e.tool } }),
  },
  toolEnd: {
    // As the v1 driver reports it: v 1 a completed part, v 2 a failed one (the failing-tools path counts it), else the bare hook.
    core: (e, id) => [
      e.v === 1 || e.v === 2
        ? { type: "toolEnd", sessionID: id, callID: callName(id, e.call), tool: "bash", ...(e.v === 1 ? { outcome: "ok" as const } : { outcome: "failed" as const, error: "boom" }) }
        : { type: "toolEnd", sessionID: id, callID: callName(id, e.call) },
    ],
    v1: (e, id, sink) =>
      e.v === 1 || e.v === 2
        ? sink.event(
            ev("message.part.updated", {
              part: {
                id: `prt_${e.call}`,
                type: "tool",
                tool: "bash",
                callID: callName(id, e.call),
                sessionID: id,
                messageID: "msg_asst_tool",
                state: e.v === 1 ? { status: "completed", output: "ok" } : { status: "error", error: "boom" },
              },
            }),
          )
        : sink.hook("tool.execute.after", { tool: "bash", sessionID: id, callID: callName(id, e.call) }, { title: "", output: "ok", metadata: {} }),
    facts: (e, id) => ({ turn: "always", toolEnd: callName(id, e.call) }),
  },
  esc: {
    // v2 says byUser: true; v1 says nothing (MessageAbortedError either way).
    core: (e, id) => [{ type: "interrupted", sessionID: id, byUser: e.v === 1 ? true : undefined }],
    v1: (_e, id, sink) => sink.event(ev("session.error", { sessionID: id, error: { name: "MessageAbortedError", data: { message: "The operation was aborted." } } })),
    facts: () => ({ turn: "always", userStop: true, clearTools: true }),
  },
  abortEcho: {
    core: (e, id) => [{ type: "interrupted", sessionID: id, byUser: e.v === 1 ? false : undefined }],
    v1: (_e, id, sink) => sink.event(ev("session.error", { sessionID: id, error: { name: "MessageAbortedError", data: { message: "The operation was aborted." } } })),
    facts: () => ({ turn: "always", clearTools: true }),
  },
  ask: {
    core: (e, id) => [{ type: "awaitingUser", sessionID: id, key: keyName(id, e.key), open: true }],
    v1: (e, id, sink) => sink.event(ev(e.v === 1 ? "question.asked" : "permission.asked", { id: keyName(id, e.key), sessionID: id, title: "run rm?" })),
    facts: (e, id) => ({ awaitOpen: keyName(id, e.key) }),
  },
  answer: {
    core: (e, id) => [{ type: "awaitingUser", sessionID: id, key: keyName(id, e.key), open: false }],
    v1: (e, id, sink) =>
      e.v === 1
        ? sink.event(ev("question.replied", { requestID: keyName(id, e.key), sessionID: id }))
        : sink.event(ev("permission.replied", { permissionID: keyName(id, e.key), sessionID: id, response: "once" })),
    facts: (e, id) => ({ awaitClose: keyName(id, e.key) }),
  },
  error: {
    core: (e, id) => [{ type: "error", sessionID: id, name: e.name, message: "upstream trouble", status: e.status }],
    v1: (e, id, sink) => sink.event(ev("session.error", { sessionID: id, error: { name: e.name, data: { message: "upstream trouble", statusCode: e.status } } })),
    // A session error is terminal for the run (the host retries through session.status "retry").
    facts: () => ({ busy: false, turn: "ifBusyChanges", clearTools: true, clearAwaiting: true }),
  },
  retry: {
    core: (_e, id) => [
      { type: "busy", sessionID: id },
      { type: "retryScheduled", sessionID: id },
    ],
    v1: (_e, id, sink) => sink.event(ev("session.status", { sessionID: id, status: { type: "retry", attempt: 1, message: "overloaded", next: 0 } })),
    facts: () => ({ busy: true, turn: "ifBusyChanges" }),
  },
  activity: {
    core: (_e, id) => [{ type: "activity", sessionID: id }],
    v1: (_e, id, sink) => sink.event(ev("session.diff", { sessionID: id, diff: [] })),
    facts: () => ({}),
  },
  todos: {
    core: (e, id) => [{ type: "todos", sessionID: id, todos: todoList(e.open) }],
    v1: (e, id, sink) => sink.event(ev("todo.updated", { sessionID: id, todos: todoList(e.open) })),
    facts: () => ({}),
  },
  created: {
    core: (e, id) => [{ type: "sessionCreated", sessionID: id, parentID: e.parent === undefined ? undefined : sessionName(e.parent) }],
    v1: (e, id, sink) => sink.event(ev("session.created", { info: { id, parentID: e.parent === undefined ? undefined : sessionName(e.parent), title: "t" } })),
    facts: () => ({}),
  },
  deleted: {
    core: (_e, id) => [{ type: "sessionDeleted", sessionID: id }],
    v1: (_e, id, sink) => sink.event(ev("session.deleted", { info: { id } })),
    facts: () => ({ deleted: true }),
  },
  revert: {
    core: (e, id) => [{ type: "reverted", sessionID: id, phase: e.v === 1 ? "removed" : "staged", messageID: revertName(id, e.msg) }],
    v1: (e, id, sink) =>
      e.v === 1
        ? sink.event(ev("message.removed", { sessionID: id, messageID: revertName(id, e.msg) }))
        : sink.event(ev("session.updated", { info: { id, title: "t", revert: { messageID: revertName(id, e.msg), snapshot: "snap" } } })),
    facts: (e, id) => (e.v === 1 ? {} : { revertTo: revertName(id, e.msg) }),
  },
}

/** The message a revert goes back to, per session. */
export const revertName = (sessionID: string, msg: number) => `msg_${sessionID}_rev_${msg}`

/** Closing texts the idle judgement has opinions about (done, intent, tool-as-text, question...). */
export const SAYINGS = [
  "All done: the parser is fixed and the tests pass.",
  "Next I will run the test suite:",
  '<tool_call>{"name": "bash", "arguments": {"command": "bun test"}}</tool_call>',
  "Should I go ahead with the migration?",
  "Ready to continue with step 2 when you are.",
  "",
  "Finished everything! 🎉",
  // A plain finding: no rule and no family claims it, so every later rule of the pass runs.
  "The tokenizer drops the last quote of a line.",
]

function todoList(open: number) {
  return [
    { content: "write the parser", status: open > 0 ? "in_progress" : "completed", priority: "high" },
    { content: "test it", status: open > 1 ? "pending" : "completed", priority: "medium" },
  ]
}

export function spec<E extends HostEvent>(e: E): KindSpec<E> {
  return EVENT_KINDS[e.t] as unknown as KindSpec<E>
}
