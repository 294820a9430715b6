/**
 * OpenCode 1.x events -> core signals. Pure apart from the bounded message-role memory,
 * which lets part updates of the user's own message be told from model output.
 */
import type { Signal } from "../../core/port.ts"
import { normalizeTodos } from "./messages.ts"
import { completedTool, errorSignal, failedTool, QUESTION_ANSWERED, QUESTION_OPENED, type ToolEnding } from "../signals.ts"
import { get, num, str } from "../shape.ts"
import { BoundedMap } from "../../core/bounded.ts"

const MAX_REMEMBERED_MESSAGES = 2000
/** Part updates concern a session's latest messages; older ones need no role. */
const MAX_MESSAGES_PER_SESSION = 8

/**
 * messageID -> role, bounded (oldest forgotten first), with each session's ids indexed so
 * that a session the engine forgets takes its messages along: after cleanup nothing is left.
 */
export class MessageRoles {
  private readonly roles = new BoundedMap<string, "user" | "assistant">(MAX_REMEMBERED_MESSAGES)
  private readonly bySession = new BoundedMap<string, string[]>(MAX_REMEMBERED_MESSAGES, {
    onEvict: (_sessionID, ids) => this.forgetMessages(ids),
  })

  set(messageID: string, role: "user" | "assistant", sessionID: string): void {
    if (this.roles.has(messageID)) return
    // Room made for it may have evicted the message `get` keeps at hand.
    this.lastID = this.lastRole = undefined
    this.roles.set(messageID, role)
    const ids = this.bySession.getOrCreate(sessionID, () => [])
    ids.push(messageID)
    if (ids.length > MAX_MESSAGES_PER_SESSION) {
      this.roles.delete(ids.shift()!)
      this.lastID = this.lastRole = undefined
    }
  }

  get(messageID: string | undefined): "user" | "assistant" | undefined {
    if (messageID === undefined) return undefined
    // Part updates come in runs for one message: its role is at hand without a lookup. A role,
    // once set, never changes; a forgotten message resets this.
    if (messageID === this.lastID) return this.lastRole
    const role = this.roles.get(messageID)
    if (role !== undefined) {
      this.lastID = messageID
      this.lastRole = role
    }
    return role
  }

  private lastID?: string
  private lastRole?: "user" | "assistant"

  /** The session left the engine's table: its messages' roles go with it. */
  forgetSession(sessionID: string): void {
    const ids = this.bySession.get(sessionID)
    if (ids && this.bySession.delete(sessionID)) this.forgetMessages(ids)
  }

  private forgetMessages(ids: readonly string[]): void {
    for (const id of ids) this.roles.delete(id)
    this.lastID = this.lastRole = undefined
  }

  get size(): number {
    return this.roles.size
  }

  get sessions(): number {
    return this.bySession.size
  }
}

const AWAITING_OPEN = new Set(QUESTION_OPENED)
const AWAITING_CLOSED = new Set(QUESTION_ANSWERED)

/** The session an event belongs to, wherever this event type keeps it. */
export function eventSessionID(props: unknown): string | undefined {
  return (
    str(get(props, "sessionID")) ??
    str(get(props, "info", "sessionID")) ??
    str(get(props, "part", "sessionID")) ??
    str(get(props, "info", "id")) // session.* events carry the session itself as info
  )
}

const NO_SIGNALS: readonly Signal[] = []

/**
 * Where model output goes with no signal object around it (the engine's `output`): `part` with
 * the new `delta` or the part's whole `text` so far, for the repetition detector, else only the
 * session.
 */
export type OutputSink = (sessionID: string, part?: string, delta?: string, text?: string) => void

/**
 * The streaming events (text deltas and part updates, most events by far). Model output goes to
 * `output` and gives `null`, as does a streaming event with nothing usable in it (no session);
 * any other part update gives its one signal, without the array mapV1Event wraps it in; and
 * `undefined` says it is not a streaming event. The event hook calls this first.
 */
export function mapStreamingEvent(event: unknown, roles: MessageRoles, output: OutputSink): Signal | null | undefined {
  if (typeof event !== "object" || event === null) return undefined
  const type = (event as { type?: unknown }).type
  const props = (event as { properties?: unknown }).properties
  // Not asObj(): its array check is measurable per event, and an array's fields read as undefined anyway.
  if (typeof props !== "object" || props === null) return undefined
  if (type === "message.part.delta") {
    const named = (props as { sessionID?: unknown }).sessionID
    const sessionID = typeof named === "string" && named !== "" ? named : eventSessionID(props)
    if (!sessionID) return null
    const { partID, delta, field } = props as { partID?: unknown; delta?: unknown; field?: unknown }
    // The new text of a streamed part, for the repetition detector.
    if (typeof partID === "string" && typeof delta === "string" && (field === undefined || field === "text")) output(sessionID, partID, delta)
    else output(sessionID)
    return null
  }
  if (type === "message.part.updated") {
    const part = (props as { part?: unknown }).part
    const sessionID = (typeof part === "object" && part !== null ? str((part as { sessionID?: unknown }).sessionID) : undefined) ?? eventSessionID(props)
    return sessionID ? mapPart(part, sessionID, roles, output) : null
  }
  return undefined
}

/** Every event that is not a streaming one (mapStreamingEvent said undefined) to its signals. */
export function mapOtherEvent(event: unknown, roles: MessageRoles, wallNow: () => number): readonly Signal[] {
  if (typeof event !== "object" || event === null) return NO_SIGNALS
  const type = str((event as { type?: unknown }).type)
  const props = (event as { properties?: unknown }).properties
  if (!type || typeof props !== "object" || props === null) return NO_SIGNALS

  switch (type) {
    case "session.created":
    case "session.updated": {
      const sessionID = str(get(props, "info", "id"))
      if (!sessionID) return NO_SIGNALS
      const created: Signal = { type: "sessionCreated", sessionID, parentID: str(get(props, "info", "parentID")) }
      // The session as it is now, its revert among it: set while the user has reverted to a message.
      const revert = get(props, "info", "revert")
      if (revert === undefined || revert === null) return [created]
      return [created, { type: "reverted", sessionID, phase: "staged", messageID: str(get(revert, "messageID")) }]
    }
    case "session.deleted": {
      const sessionID = str(get(props, "info", "id"))
      return sessionID ? [{ type: "sessionDeleted", sessionID }] : NO_SIGNALS
    }
  }

  const sessionID = eventSessionID(props)
  if (!sessionID) return NO_SIGNALS

  switch (type) {
    case "session.status": {
      const status = str(get(props, "status", "type"))
      if (status === "busy") return [{ type: "busy", sessionID }]
      if (status === "idle") return [{ type: "idle", sessionID }]
      if (status === "retry") return [{ type: "busy", sessionID }, retrySignal(sessionID, get(props, "status"), wallNow())]
      return [{ type: "activity", sessionID, event: type }]
    }
    case "session.idle":
      return [{ type: "idle", sessionID }]
    // 1.18 after its compaction wrote the summary (its own after an overflow, or summarize).
    case "session.compacted":
      return [{ type: "compaction", sessionID, phase: "ended" }]
    case "session.error": {
      const name = str(get(props, "error", "name")) ?? "UnknownError"
      if (name === "MessageAbortedError") return [{ type: "interrupted", sessionID }]
      const data = get(props, "error", "data")
      const error = { name, message: str(get(data, "message")) ?? "", status: num(get(data, "statusCode")), headers: get(data, "responseHeaders") }
      return [errorSignal(sessionID, error, wallNow)]
    }
    case "message.updated": {
      const role = str(get(props, "info", "role"))
      const messageID = str(get(props, "info", "id"))
      if (messageID && (role === "user" || role === "assistant")) roles.set(messageID, role, sessionID)
      if (role !== "assistant") return [{ type: "activity", sessionID, event: type }]
      const tokens = get(props, "info", "tokens")
      const output = (num(get(tokens, "output")) ?? 0) + (num(get(tokens, "reasoning")) ?? 0)
      const context = output + (num(get(tokens, "input")) ?? 0) + (num(get(tokens, "cache", "read")) ?? 0) + (num(get(tokens, "cache", "write")) ?? 0)
      const usage: Signal = { type: "usage", sessionID, tokens: output, messageID, contextTokens: context > 0 ? context : undefined }
      // The compaction's summary message (`summary: true`) ending in an error: the compaction failed.
      if (get(props, "info", "summary") === true && get(props, "info", "error") !== undefined) return [usage, { type: "compaction", sessionID, phase: "failed" }]
      return [usage]
    }
    // A reverted message leaving the history (1.x removes them as the next prompt goes in).
    case "message.removed":
      return [{ type: "reverted", sessionID, phase: "removed", messageID: str(get(props, "messageID")) }]
    case "todo.updated": {
      const todos = normalizeTodos(get(props, "todos"))
      return todos ? [{ type: "todos", sessionID, todos }] : [{ type: "activity", sessionID, event: type }]
    }
  }

  if (AWAITING_OPEN.has(type) || AWAITING_CLOSED.has(type)) {
    const key =
      str(get(props, "id")) ?? str(get(props, "permissionID")) ?? str(get(props, "requestID")) ?? str(get(props, "callID")) ?? type
    return [{ type: "awaitingUser", sessionID, key, open: AWAITING_OPEN.has(type) }]
  }
  // Anything else about this session, modelled or not, is still proof the host is alive, and
  // no progress: the progress ceiling counts it by name.
  return [{ type: "activity", sessionID, event: type }]
}

/**
 * 1.x `session.status { type: "retry", attempt, message, next }`: `next` is when (epoch ms)
 * the host sends the request again, `message` why it failed.
 */
function retrySignal(sessionID: string, status: unknown, now: number): Signal {
  const signal: Extract<Signal, { type: "retryScheduled" }> = { type: "retryScheduled", sessionID }
  const next = num(get(status, "next"))
  if (next !== undefined) signal.retryInMs = Math.max(0, next - now)
  const message = str(get(status, "message"))
  if (message) signal.message = message.slice(0, 2000)
  return signal
}

function mapPart(part: unknown, sessionID: string, roles: MessageRoles, output: OutputSink): Signal | null {
  if (typeof part !== "object" || part === null) return { type: "activity", sessionID }
  // Direct reads: text part updates are half the streaming traffic.
  const type = (part as { type?: unknown }).type
  if (type === "text" || type === "reasoning") {
    const messageID = (part as { messageID?: unknown }).messageID
    const role = typeof messageID === "string" ? roles.get(messageID) : undefined
    if (role !== "assistant") return { type: "activity", sessionID }
    // The part's whole text so far, for the repetition detector (a reference, not a copy).
    const { id, text } = part as { id?: unknown; text?: unknown }
    if (typeof id === "string" && typeof text === "string") output(sessionID, id, undefined, text)
    else output(sessionID)
    return null
  }
  const kind = str(type)
  if (kind === "tool") {
    const callID = str(get(part, "callID")) ?? str(get(part, "id"))
    const tool = str(get(part, "tool")) ?? "unknown"
    const status = str(get(part, "state", "status"))
    if (!callID) return { type: "activity", sessionID }
    if (status === "running") return { type: "toolStart", sessionID, callID, tool }
    if (status === "completed" || status === "error") return { type: "toolEnd", sessionID, callID, tool, ...toolEnding(tool, status, get(part, "state")) }
    output(sessionID)
    return null
  }
  // A step beginning or ending is progress (the progress ceiling), though not model output.
  if (kind === "step-start" || kind === "step-finish") return { type: "activity", sessionID, progress: true }
  // The user message that starts a compaction (1.18: `{ type: "compaction", auto, overflow? }`).
  if (kind === "compaction") return { type: "compaction", sessionID, phase: "started" }
  return { type: "activity", sessionID, event: kind ? `message.part.updated(${kind})` : "message.part.updated" }
}

/**
 * How a tool part ended: 1.18 records a call of a tool that does not exist as a completed part
 * of the `invalid` tool (HOST-NOTES), and a command that exits non-zero as a completed `bash`
 * part with the code in `metadata.exit`.
 */
function toolEnding(tool: string, status: "completed" | "error", state: unknown): ToolEnding {
  if (status === "error") return failedTool(str(get(state, "error")) ?? "")
  if (tool === "invalid") return { outcome: "unavailable" }
  return completedTool(get(state, "metadata"), str(get(state, "output")))
}
