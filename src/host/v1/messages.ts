/** OpenCode 1.x history (`{ info, parts }[]`) -> the core's transcript; malformed entries are skipped. */
import type { TodoItem, TranscriptMessage, TranscriptPart, ToolPartStatus } from "../../core/transcript.ts"
import { asObj, get, num, str } from "../shape.ts"
import { clip, messageStats, modelOf, prosePart } from "../normalize.ts"
import { isCommandExchange } from "./command-model.ts"

const TOOL_STATUSES = new Set<ToolPartStatus>(["pending", "running", "completed", "error"])

function normalizePart(part: unknown): TranscriptPart | undefined {
  const type = str(get(part, "type"))
  if (type !== "tool") return prosePart(type, part)
  const rawStatus = str(get(part, "state", "status")) as ToolPartStatus | undefined
  const status: ToolPartStatus = rawStatus && TOOL_STATUSES.has(rawStatus) ? rawStatus : "pending"
  let tool = str(get(part, "tool")) ?? "unknown"
  let error = str(get(part, "state", "error"))
  // 1.18 records a call to a tool that does not exist as tool "invalid" with the real name in
  // its input; report it as an error part of the name the model used.
  if (tool === "invalid") {
    tool = str(get(part, "state", "input", "tool")) ?? tool
    error = str(get(part, "state", "input", "error")) ?? str(get(part, "state", "output")) ?? "unavailable tool"
    return { kind: "tool", callID: str(get(part, "callID")) ?? "", tool, status: "error", error: clip(error), input: get(part, "state", "input") }
  }
  return {
    kind: "tool",
    callID: str(get(part, "callID")) ?? str(get(part, "id")) ?? "",
    tool,
    status,
    input: get(part, "state", "input"),
    error: error === undefined ? undefined : clip(error),
    output: status === "completed" ? clip(str(get(part, "state", "output"))) : undefined,
  }
}

export function normalizeV1Message(entry: unknown): TranscriptMessage | undefined {
  const info = asObj(get(entry, "info"))
  const id = str(info?.id)
  const role = str(info?.role)
  if (!info || !id || (role !== "user" && role !== "assistant")) return undefined
  const rawParts = get(entry, "parts")
  const list: unknown[] = Array.isArray(rawParts) ? rawParts : []
  return {
    id,
    role,
    parts: list.flatMap((p) => normalizePart(p) ?? []),
    own: list.some((p) => get(p, "metadata", "autoResume") === true) || undefined,
    ...(isCommandExchange(entry) ? { ours: "command" as const } : {}),
    finish: str(info.finish),
    errorName: str(get(info, "error", "name")),
    ...messageStats(info),
    agent: str(info.agent) ?? str(info.mode),
    model: modelOf(str(get(info, "model", "providerID")) ?? str(info.providerID), str(get(info, "model", "modelID")) ?? str(info.modelID)),
  }
}

export function normalizeV1Messages(list: unknown): TranscriptMessage[] {
  return Array.isArray(list) ? list.flatMap((entry) => normalizeV1Message(entry) ?? []) : []
}

export function normalizeTodos(list: unknown): TodoItem[] | undefined {
  if (!Array.isArray(list)) return undefined
  return list.flatMap((t): TodoItem[] => {
    const content = str(get(t, "content"))
    const status = str(get(t, "status"))
    return content !== undefined && status !== undefined ? [{ content: content.slice(0, 500), status, priority: str(get(t, "priority")) }] : []
  })
}
