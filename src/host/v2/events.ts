/**
 * OpenCode 2.x events -> core signals.
 * A 2.x event is `{ id, created, type, data, location?, durable? }`. Field names moved between
 * 2.0.x releases, so every renamed field is read under both spellings (`id ?? callID`, `name ?? tool`).
 * The tool name travels only on `session.tool.input.started`, the call later on
 * `session.tool.called`, hence `ToolNamesByCall`.
 * Busy and idle come from `session.execution.*` only: `session.status` and `session.idle` are
 * declared but not emitted by 2.x, and read as mere activity.
 * A failed step is not the end of the run (the host may retry it), so its error is kept and
 * reported once, by the run's failure (run-memory.ts); `type: "aborted"` is an interruption.
 * The plugin's own `session.interrupt` is reported with reason "user" too, so "user" (or no
 * reason) maps to `interrupted` with `byUser` undefined and the core decides by counting its own
 * aborts (core/intervention.ts); any other reason (shutdown, superseded, inactivity) is never a latch.
 */
import { usedTokens } from "../../core/saturation.ts"
import type { Signal } from "../../core/port.ts"
import { isAbortName } from "../../core/provider-failure.ts"
import { completedTool, errorSignal, failedTool, QUESTION_ANSWERED, QUESTION_OPENED, type HostError, type ToolEnding } from "../signals.ts"
import { asObj, get, num, str, type Obj } from "../shape.ts"
import { RunMemory } from "./run-memory.ts"
import { contentText } from "./messages.ts"
import { BoundedMap } from "../../core/bounded.ts"

const MAX_REMEMBERED_TOOLS = 2000

/** `session:callID` -> tool name, bounded (oldest forgotten first). */
export class ToolNamesByCall extends BoundedMap<string, string> {
  constructor() {
    super(MAX_REMEMBERED_TOOLS, { refresh: true })
  }

  remember(sessionID: string, callID: string, name: string): void {
    this.set(`${sessionID}\u0000${callID}`, name)
  }

  lookup(sessionID: string, callID: string): string | undefined {
    return this.get(`${sessionID}\u0000${callID}`)
  }

  forget(sessionID: string, callID: string): void {
    this.delete(`${sessionID}\u0000${callID}`)
  }
}

/** A decoded event, or undefined for anything malformed. */
export type V2Event = { type: string; data: Obj; sessionID?: string; directory?: string }

/**
 * `memory` ties a form's reply to its session: `form.created` names the session only inside
 * the form (`data.form.sessionID`), and its reply names only the form (`data.id`).
 */
export function decodeV2Event(event: unknown, memory?: RunMemory): V2Event | undefined {
  const type = str(get(event, "type"))
  const data = asObj(get(event, "data"))
  if (!type || !data) return undefined
  const sessionID =
    str(data.sessionID) ??
    (type.startsWith("session.") ? str(get(data, "info", "id")) : undefined) ??
    (type.startsWith("form.") ? formSession(data, memory) : undefined) ??
    str(get(event, "durable", "aggregateID"))
  return { type, data, sessionID, directory: str(get(event, "location", "directory")) }
}

function formSession(data: Obj, memory: RunMemory | undefined): string | undefined {
  const id = str(data.id) ?? str(data.formID)
  return str(get(data, "form", "sessionID")) ?? (id ? memory?.formSession(id) : undefined)
}

function sameDirectory(a: string, b: string): boolean {
  // Every streamed event names the directory, nearly always exactly the host's: no regex then.
  if (a === b) return true
  const trim = (p: string) => (p.length > 1 ? p.replace(/[\\/]+$/, "") : p)
  return trim(a) === trim(b)
}

/** False only when both the event and the host name a directory and they differ. */
export function belongsHere(event: V2Event, hostDirectory: string | undefined): boolean {
  if (!event.directory || !hostDirectory) return true
  return sameDirectory(event.directory, hostDirectory)
}

const AWAITING_OPEN = new Set([...QUESTION_OPENED, "form.created"])
const AWAITING_CLOSED = new Set([...QUESTION_ANSWERED, "form.replied", "form.cancelled"])
/** Where the request id may sit, best first; replies sometimes name it differently. */
const AWAITING_KEY_FIELDS = ["id", "requestID", "permissionID", "formID", "questionID", "callID"]

/**
 * Events that are progress (the progress ceiling) though not model output: a step beginning or
 * streaming, and the host's compaction writing its summary (its start, end and failure are
 * `compaction` signals, progress too). `session.step.ended` without tokens, mapped below, is one too.
 */
const PROGRESS = new Set(["session.step.started", "session.step.streamed", "session.compaction.delta"])

const MODEL_OUTPUT = new Set([
  "session.text.started",
  "session.text.delta",
  "session.text.ended",
  "session.reasoning.started",
  "session.reasoning.delta",
  "session.reasoning.ended",
  "session.tool.input.delta",
  "session.tool.input.ended",
])

/**
 * Every event type this adapter reads (the subscription's filter, subscribe.ts): those mapped
 * below, plus the liveness the ceiling counts (tool progress, inbox, shells, retries) and what
 * the adapter itself reads (inbox admissions and deliveries, the step that names the model).
 */
export const SUBSCRIBED_TYPES: readonly string[] = [
  ...MODEL_OUTPUT,
  ...PROGRESS,
  ...AWAITING_OPEN,
  ...AWAITING_CLOSED,
  "session.execution.started",
  "session.execution.succeeded",
  "session.execution.failed",
  "session.execution.interrupted",
  "session.step.ended",
  "session.step.failed",
  "session.retry.scheduled",
  "session.usage.updated",
  "session.created",
  "session.forked",
  "session.deleted",
  "session.tool.input.started",
  "session.tool.called",
  "session.tool.progress",
  "session.tool.success",
  "session.tool.failed",
  "session.compaction.started",
  "session.compaction.ended",
  "session.compaction.failed",
  "session.inbox.enqueued",
  "session.inbox.delivered",
  "session.inbox.cancelled",
  "session.inbox.delivery.changed",
  "session.input.admitted",
  "session.input.promoted",
  "session.shell.started",
  "session.shell.ended",
  "session.revert.staged",
  "session.revert.committed",
]

export function callIDOf(data: unknown): string | undefined {
  return str(get(data, "id")) ?? str(get(data, "callID"))
}

/**
 * The same mapping for an event already decoded (and filtered) by the adapter. `wallNow` is
 * read only to turn a provider's Retry-After date into a wait.
 */
export function mapDecoded(event: V2Event, sessionID: string, tools: ToolNamesByCall, wallNow: () => number, memory?: RunMemory): Signal[] {
  const { type, data } = event
  if (type === "session.text.delta" || type === "session.reasoning.delta") return [streamedDelta(sessionID, type, data)]
  if (MODEL_OUTPUT.has(type)) return [{ type: "modelOutput", sessionID }]

  switch (type) {
    case "session.execution.started":
      memory?.runStarted(sessionID)
      return [{ type: "busy", sessionID }]
    case "session.execution.succeeded":
      memory?.runEnded(sessionID)
      return [{ type: "idle", sessionID }]
    case "session.execution.failed": {
      // The host gave up: the one error the core classifies (the step's, if the run has none).
      const error = data.error ?? memory?.stepError(sessionID)
      memory?.runEnded(sessionID)
      // An aborted run is an interruption, whichever of the two events reports it.
      if (isAbortedError(error)) return [{ type: "interrupted", sessionID }, { type: "idle", sessionID }]
      return [errorSignal(sessionID, hostError(error), wallNow), { type: "idle", sessionID }]
    }
    case "session.execution.interrupted":
      memory?.runEnded(sessionID)
      return [{ type: "interrupted", sessionID, byUser: interruptedByUser(data.reason) }, { type: "idle", sessionID }]
    case "session.step.failed":
      // Not the end of the run: the host may still retry the step. The error is kept for the
      // run's own failure, so a provider error reaches the core once (a rate limit counted
      // twice would double its cooldown), and only once the host gave up on it.
      if (data.error !== undefined) memory?.noteStepError(sessionID, data.error)
      return [{ type: "activity", sessionID, event: type }]
    // The host's compaction (its own or one we asked for): progress, and the end of a full context.
    case "session.compaction.started":
      return [{ type: "compaction", sessionID, phase: "started" }]
    case "session.compaction.ended":
      return [{ type: "compaction", sessionID, phase: "ended" }]
    case "session.compaction.failed":
      return [{ type: "compaction", sessionID, phase: "failed" }]
    case "session.retry.scheduled":
      return [retrySignal(sessionID, data, wallNow())]
    case "session.usage.updated":
      return usageSignal(sessionID, data)
    case "session.step.ended":
      // The step's final token figures: its context size is what saturation weighs.
      return data.tokens === undefined ? [{ type: "activity", sessionID, progress: true }] : usageSignal(sessionID, data)
    case "session.created":
    case "session.forked": {
      const parentID = str(data.parentID) ?? str(get(data, "info", "parentID"))
      return [parentID ? { type: "sessionCreated", sessionID, parentID } : { type: "sessionCreated", sessionID }]
    }
    case "session.deleted":
      return [{ type: "sessionDeleted", sessionID }]
    // The user staged a revert (TUI /undo, the revert API); its commit removes the messages.
    case "session.revert.staged":
      return [{ type: "reverted", sessionID, phase: "staged", messageID: str(get(data, "revert", "messageID")) }]
    case "session.revert.committed":
      // The SDK's types name the revert point `messageID`; `to` is kept for a build that sent it so.
      return [{ type: "reverted", sessionID, phase: "removed", messageID: str(data.messageID) ?? str(data.to) }]
    case "session.tool.input.started": {
      const callID = callIDOf(data)
      const name = str(data.name) ?? str(data.tool)
      if (callID && name) tools.remember(sessionID, callID, name)
      return [{ type: "modelOutput", sessionID }]
    }
    case "session.tool.called": {
      const callID = callIDOf(data)
      if (!callID) return [{ type: "modelOutput", sessionID }]
      const tool = tools.lookup(sessionID, callID) ?? str(data.name) ?? str(data.tool) ?? "unknown"
      const args = data.input
      return [args === undefined ? { type: "toolStart", sessionID, callID, tool } : { type: "toolStart", sessionID, callID, tool, args }]
    }
    case "session.tool.success":
    case "session.tool.failed": {
      const callID = callIDOf(data)
      if (!callID) return [{ type: "activity", sessionID }]
      const tool = tools.lookup(sessionID, callID)
      tools.forget(sessionID, callID)
      const ending = type === "session.tool.failed" ? toolFailure(data.error) : completedTool(data.metadata, contentText(data.content))
      return [tool === undefined ? { type: "toolEnd", sessionID, callID, ...ending } : { type: "toolEnd", sessionID, callID, tool, ...ending }]
    }
  }

  if (AWAITING_OPEN.has(type) || AWAITING_CLOSED.has(type)) {
    const signals = awaitingSignals(sessionID, type, data)
    if (memory && type.startsWith("form.")) {
      for (const signal of signals) {
        if (signal.type !== "awaitingUser") continue
        if (signal.open) memory.rememberForm(signal.key, sessionID)
        else memory.forgetForm(signal.key)
      }
    }
    return signals
  }
  if (PROGRESS.has(type)) return [{ type: "activity", sessionID, progress: true }]
  // Anything else about this session (tool progress, inbox, shells, statuses, events newer than
  // this code) is still proof that the host is alive, and no progress: the ceiling counts it by name.
  return [{ type: "activity", sessionID, event: type }]
}

/**
 * A text or reasoning delta with its new text, for the repetition detector. Deltas name their
 * assistant message, not a part: the message and the kind of text together stand for the part.
 */
function streamedDelta(sessionID: string, type: string, data: Obj): Signal {
  const delta = data.delta
  const owner = str(data.assistantMessageID) ?? str(data.messageID)
  if (typeof delta !== "string" || owner === undefined) return { type: "modelOutput", sessionID }
  return { type: "modelOutput", sessionID, part: type === "session.text.delta" ? `text:${owner}` : `reasoning:${owner}`, delta, text: undefined }
}

/** undefined lets the core's own-abort count (intervention.ts) tell our interrupt from the user's. */
export function interruptedByUser(reason: unknown): boolean | undefined {
  const text = str(reason) ?? str(get(reason, "type"))
  if (text === undefined || text === "user") return undefined
  return false
}

/**
 * `tokens`: output plus reasoning, the part of the total that grows while the model writes.
 * `contextTokens`: everything the step's context held (input, cache read and write, and what
 * it wrote), the figure context saturation weighs against the model's window.
 */
function usageSignal(sessionID: string, data: Obj): Signal[] {
  const tokens = data.tokens
  const total = num(tokens) ?? (num(get(tokens, "output")) ?? 0) + (num(get(tokens, "reasoning")) ?? 0)
  const signal: Extract<Signal, { type: "usage" }> = { type: "usage", sessionID, tokens: total }
  const messageID = str(data.assistantMessageID) ?? str(data.messageID)
  if (messageID) signal.messageID = messageID
  const context = asObj(tokens)
    ? usedTokens({
        input: num(get(tokens, "input")),
        output: num(get(tokens, "output")),
        reasoning: num(get(tokens, "reasoning")),
        cacheRead: num(get(tokens, "cache", "read")),
        cacheWrite: num(get(tokens, "cache", "write")),
      })
    : 0
  if (context > 0) signal.contextTokens = context
  return [signal]
}

/** 2.x reports an interrupted step as `{ type: "aborted" }`; the 1.x names are read too. */
function isAbortedError(error: unknown): boolean {
  return isAbortName(str(get(error, "type")) ?? str(get(error, "name")))
}

/**
 * `{ type, message, status?, response? }` in 2.x: the `type` ("provider.rate-limit",
 * "provider.transport", ...) stands where 1.x put the error name, so the core classifies it
 * (and `streamingFailureErrorNames` matches it) the same way. 1.x-style `{ name, data }` is
 * accepted too.
 */
export function hostError(error: unknown): HostError {
  return {
    name: str(get(error, "name")) ?? str(get(error, "type")) ?? "UnknownError",
    message: str(error) ?? str(get(error, "message")) ?? str(get(error, "data", "message")) ?? "",
    status: num(get(error, "status")) ?? num(get(error, "statusCode")) ?? num(get(error, "response", "status")) ?? num(get(error, "data", "statusCode")),
    headers: get(error, "response", "headers") ?? get(error, "headers") ?? get(error, "data", "responseHeaders"),
    retryAfterMs: num(get(error, "retryAfterMs")),
  }
}

/** `session.retry.scheduled { attempt, at, error }`: when the host retries (epoch ms) and why. */
function retrySignal(sessionID: string, data: Obj, now: number): Signal {
  const signal: Extract<Signal, { type: "retryScheduled" }> = { type: "retryScheduled", sessionID }
  const at = num(data.at)
  if (at !== undefined) signal.retryInMs = Math.max(0, at - now)
  if (data.error !== undefined) {
    const failure = errorSignal(sessionID, hostError(data.error), () => now)
    if (str(get(data.error, "type")) ?? str(get(data.error, "name"))) signal.name = failure.name
    if (failure.message) signal.message = failure.message
    if (failure.status !== undefined) signal.status = failure.status
  }
  return signal
}

function awaitingSignals(sessionID: string, type: string, data: Obj): Signal[] {
  const family = type.slice(0, type.indexOf("."))
  const nested = asObj(data[family]) ?? asObj(data.request) ?? asObj(data.info)
  const keys: string[] = []
  for (const field of AWAITING_KEY_FIELDS) {
    for (const source of [data, nested]) {
      const value = str(source?.[field])
      if (value && !keys.includes(value)) keys.push(value)
    }
  }
  if (AWAITING_OPEN.has(type)) return [{ type: "awaitingUser", sessionID, key: keys[0] ?? family, open: true }]
  // A reply may name the request by another field than the question did: close every
  // candidate (closing an unknown key is harmless; a gate left open would hold recovery).
  if (keys.length === 0) keys.push(family)
  return keys.map((key) => ({ type: "awaitingUser", sessionID, key, open: false }))
}

/** `session.tool.failed { error: { type, message } }` (an older build may send the text alone). */
function toolFailure(error: unknown): ToolEnding {
  return failedTool(str(error) ?? str(get(error, "message")) ?? "", str(get(error, "type")) ?? str(get(error, "name")))
}

