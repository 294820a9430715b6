/**
 * OpenCode 2.x session messages (what `session.context` returns) -> the core's transcript. Only
 * `user`, `synthetic` and `assistant` become messages; the rest is context, not turns. The 1.x
 * spellings (`callID`, `tool`, `state.output`, status `pending`) are read too, since a renamed
 * field that silently reads as undefined is the classic way a guard stops firing.
 */
import type { TranscriptMessage, TranscriptPart, ToolPartStatus } from "../../core/transcript.ts"
import { asObj, get, num, str } from "../shape.ts"
import { clip, messageStats, modelOf, prosePart } from "../normalize.ts"

/** The marker the plugin puts in the metadata of everything it sends. */
export const OWN_METADATA_KEY = "autoResume"

export function hasOwnMarker(value: unknown): boolean {
  return (
    get(value, "metadata", OWN_METADATA_KEY) === true ||
    get(value, "payload", "metadata", OWN_METADATA_KEY) === true
  )
}

/** Text of a `string | Content[]` field (tool results, user payloads). */
export function contentText(value: unknown): string | undefined {
  if (typeof value === "string") return value
  if (!Array.isArray(value)) return undefined
  const texts = value.map((c) => (typeof c === "string" ? c : str(get(c, "text")))).filter((t): t is string => t !== undefined)
  return texts.length > 0 ? texts.join("\n") : undefined
}

/** The text a user or synthetic message carries, wherever this release keeps it. */
export function messageText(entry: unknown): string {
  return (
    str(get(entry, "text")) ??
    str(get(entry, "payload", "text")) ??
    contentText(get(entry, "content")) ??
    contentText(get(entry, "parts")) ??
    ""
  )
}

function toolStatus(raw: string | undefined): ToolPartStatus {
  if (raw === "running" || raw === "completed" || raw === "error") return raw
  // 1.x spelling, read so a history written by an older host keeps its meaning.
  if (raw === "pending") return "pending"
  // 2.x "streaming": input still arriving, or cut off by a failed step. Not a hand-off to the
  // user; an unknown status is read the same way, so it can never silence the judge.
  return "streaming"
}

function errorText(value: unknown): string | undefined {
  return str(value) ?? str(get(value, "message")) ?? str(get(value, "data", "message")) ?? str(get(value, "type")) ?? str(get(value, "name"))
}

function normalizePart(part: unknown): TranscriptPart | undefined {
  const type = str(get(part, "type"))
  if (type !== "tool") return prosePart(type, part)
  const state = get(part, "state")
  const status = toolStatus(str(get(state, "status")))
  const error = status === "error" ? errorText(get(state, "error")) : undefined
  const output = status === "completed" ? contentText(get(state, "content")) ?? str(get(state, "output")) : undefined
  return {
    kind: "tool",
    callID: str(get(part, "id")) ?? str(get(part, "callID")) ?? "",
    tool: str(get(part, "name")) ?? str(get(part, "tool")) ?? "unknown",
    status,
    input: get(state, "input"),
    error: error === undefined ? undefined : clip(error),
    output: output === undefined ? undefined : clip(output),
  }
}

function entryModel(entry: unknown): TranscriptMessage["model"] {
  const model = get(entry, "model")
  return modelOf(str(get(model, "providerID")) ?? str(get(entry, "providerID")), str(get(model, "id")) ?? str(get(model, "modelID")) ?? str(get(entry, "modelID")))
}

export function normalizeV2Message(entry: unknown): TranscriptMessage | undefined {
  const o = asObj(entry)
  const id = str(o?.id)
  const type = str(o?.type)
  if (!o || !id || !type) return undefined
  if (type === "user" || type === "synthetic") {
    const synthetic = type === "synthetic" || undefined
    return {
      id,
      role: "user",
      parts: [{ kind: "text", text: clip(messageText(o)), synthetic }],
      own: hasOwnMarker(o) || undefined,
      createdAt: num(get(o, "time", "created")),
    }
  }
  if (type !== "assistant") return undefined
  const content: unknown[] = Array.isArray(o.content) ? o.content : Array.isArray(o.parts) ? o.parts : []
  const parts = content.flatMap((p) => normalizePart(p) ?? [])
  const error = o.error
  return {
    id,
    role: "assistant",
    parts,
    finish: str(o.finish),
    errorName: error === undefined || error === null ? undefined : errorNameOf(error),
    ...messageStats(o),
    agent: str(o.agent),
    model: entryModel(o),
  }
}

/** The v1 name of an aborted turn, which detectors written once for both hosts look for. */
export const ABORTED_ERROR_NAME = "MessageAbortedError"

/** 2.x `type` (or a 1.x name); an aborted step reads under the name the detectors know. */
function errorNameOf(error: unknown): string {
  const name = str(get(error, "name")) ?? str(get(error, "type")) ?? "UnknownError"
  return name === "aborted" ? ABORTED_ERROR_NAME : name
}

/**
 * Normalizes a history, oldest first. An assistant message closed by an `idle` marker with
 * outcome "interrupted" is reported as aborted (2.x records the interruption on the marker,
 * 1.x on the message), so an aborted turn reads the same on both hosts.
 */
export function normalizeV2Messages(list: unknown): TranscriptMessage[] {
  if (!Array.isArray(list)) return []
  const out: TranscriptMessage[] = []
  let lastAssistant: TranscriptMessage | undefined
  for (const entry of list) {
    if (str(get(entry, "type")) === "idle") {
      if (lastAssistant && !lastAssistant.errorName && str(get(entry, "outcome")) === "interrupted") {
        lastAssistant.errorName = ABORTED_ERROR_NAME
      }
      lastAssistant = undefined
      continue
    }
    const m = normalizeV2Message(entry)
    if (!m) continue
    out.push(m)
    lastAssistant = m.role === "assistant" ? m : undefined
  }
  return out
}
