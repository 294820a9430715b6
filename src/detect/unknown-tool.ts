/**
 * Calls to tools that do not exist (a typo such as `bassh`, a tool of a plugin that is not
 * loaded): the engine tells the model the name is wrong and suggests the closest real one.
 * - 1.18 records such a call as a completed `invalid` part; the v1 adapter turns it into an
 *   `error` part with the name the model used.
 * - Only the current user episode counts (the plugin's own prompts do not end it), optionally
 *   only after `sinceMessageId`: the whole history would fire again on errors already got past.
 * - No usable tool list, no finding: with nothing to compare against every name looks invented.
 * - Closest tool: another agent's name for one of ours (OTHER_AGENTS_TOOLS) first, then the
 *   case-insensitive Levenshtein distance within half the wrong name's length (`edti` -> `edit`).
 */
import { distance } from "fastest-levenshtein"
import type { TranscriptMessage } from "../core/transcript.ts"
import { TOOL_IDS_CACHE_MS, UNKNOWN_TOOL_THRESHOLD } from "../options/constants.ts"

/** 1.18's internal stand-in for an unavailable tool: never a useful suggestion. */
export const HOST_INVALID_TOOL = "invalid"
/** Messages scanned at most (newest first). */
export const UNKNOWN_TOOL_SCAN_MESSAGES = 200

export type UnknownToolFinding = { wrongName: string; count: number; closest?: string }
type NameCount = { name: string; count: number }

export type UnknownToolOptions = {
  threshold?: number
  /** Count only messages strictly after this id (the newest message when the last suggestion was sent). */
  sinceMessageId?: string
}

/** Real tools of a host list: de-duplicated (case-insensitively), trimmed, without `invalid`, in order. */
export function usableToolNames(available: readonly string[] | undefined): string[] {
  if (!available) return []
  const seen = new Set<string>()
  const out: string[] = []
  for (const raw of available) {
    if (typeof raw !== "string") continue
    const name = raw.trim()
    const key = name.toLowerCase()
    if (!name || key === HOST_INVALID_TOOL || seen.has(key)) continue
    seen.add(key)
    out.push(name)
  }
  return out
}

/**
 * Wrong tool names of the current episode with their counts, keyed by lower-cased name, in
 * order of their newest occurrence (newest first).
 */
export function countUnknownToolCalls(messages: readonly TranscriptMessage[], available: readonly string[], sinceMessageId?: string): Map<string, NameCount> {
  const known = new Set(available.map((t) => t.toLowerCase()))
  const counts = new Map<string, NameCount>()
  const oldest = Math.max(0, messages.length - UNKNOWN_TOOL_SCAN_MESSAGES)
  for (let m = messages.length - 1; m >= oldest; m--) {
    const message = messages[m]!
    if (sinceMessageId !== undefined && message.id === sinceMessageId) break
    if (message.role === "user") {
      if (!message.own) break
      continue
    }
    for (let p = message.parts.length - 1; p >= 0; p--) {
      const part = message.parts[p]!
      if (part.kind !== "tool" || part.status !== "error") continue
      const name = part.tool.trim()
      const key = name.toLowerCase()
      if (!name || known.has(key)) continue
      const entry = counts.get(key)
      // Walking newest first: the first spelling met is the newest one, and the map's
      // insertion order is newest-first too.
      if (entry) entry.count++
      else counts.set(key, { name, count: 1 })
    }
  }
  return counts
}

/**
 * Names other agents give their tools (Claude Code, Cursor, Cline/Roo, Codex, SWE-agent,
 * Gemini CLI, …), with the OpenCode tools that do the same job, best first. Spelling alone
 * would never get there ("run_terminal_cmd" is nowhere near "bash"), so these are looked
 * up before the distance. Keys are lower case with `_`/`-` removed.
 */
const OTHER_AGENTS_TOOLS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    "readfile viewfile openfile cat": "read",
    "strreplaceeditor strreplacebasededittool strreplace replaceinfile editfile searchreplace searchandreplace": "edit",
    applydiff: "edit patch",
    "runterminalcmd runcommand executecommand shell terminal runshellcommand exec": "bash",
    applypatch: "patch apply_patch edit",
    "ls listdir listfiles listdirectory": "list glob",
    "writetofile createfile writefile": "write",
    "grepsearch searchfiles": "grep",
    "filesearch findfiles": "glob",
    "fetch webfetch fetchurl": "webfetch",
    websearch: "websearch",
    "todowrite updatetodos": "todowrite",
  }).flatMap(([names, targets]) => names.split(" ").map((name) => [name, targets.split(" ")] as const)),
)

/** The OpenCode tool another agent's tool name stands for, when the host has it. */
function counterpart(wrong: string, tools: readonly string[]): string | undefined {
  for (const target of OTHER_AGENTS_TOOLS.get(wrong.replace(/[_-]/g, "")) ?? []) {
    const found = tools.find((t) => t.toLowerCase() === target)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * The real tool `wrongName` should have been: another agent's name for one of ours, else
 * the closest spelling within half its length, else undefined.
 */
export function closestTool(wrongName: string, available: readonly string[]): string | undefined {
  const wrong = wrongName.trim().toLowerCase()
  if (!wrong) return undefined
  const tools = usableToolNames(available)
  const mapped = counterpart(wrong, tools)
  if (mapped !== undefined) return mapped
  const limit = wrong.length / 2
  let best: string | undefined
  let bestDistance = Infinity
  for (const tool of tools) {
    const d = distance(wrong, tool.toLowerCase())
    if (d <= limit && d < bestDistance) {
      best = tool
      bestDistance = d
    }
  }
  return best
}

export function detectUnknownTool(
  messages: readonly TranscriptMessage[],
  available: readonly string[] | undefined,
  options: UnknownToolOptions = {},
): UnknownToolFinding | undefined {
  if (!available || usableToolNames(available).length === 0) return undefined
  const threshold = Math.max(1, options.threshold ?? UNKNOWN_TOOL_THRESHOLD)
  let pick: NameCount | undefined
  // Newest first, and only a strictly higher count displaces: ties go to the newest name.
  for (const entry of countUnknownToolCalls(messages, available, options.sinceMessageId).values()) {
    if (entry.count >= threshold && (!pick || entry.count > pick.count)) pick = entry
  }
  if (!pick) return undefined
  const closest = closestTool(pick.name, available)
  return { wrongName: pick.name, count: pick.count, ...(closest === undefined ? {} : { closest }) }
}

/**
 * The host's tool list with the time it was fetched. The engine fetches the list only when
 * `isFresh(now)` is false, stores a successful answer with `set`, and stores nothing when the
 * fetch throws (a failed fetch is retried next time, never cached).
 */
export class ToolListCache {
  private value: readonly string[] | undefined
  private fetchedAt = 0

  constructor(private readonly ttlMs = TOOL_IDS_CACHE_MS) {}

  set(list: readonly string[], now: number): void {
    this.value = [...list]
    this.fetchedAt = now
  }

  /** Fresh while younger than the TTL. A clock that went backwards makes it stale. */
  isFresh(now: number): boolean {
    return this.value !== undefined && now >= this.fetchedAt && now - this.fetchedAt < this.ttlMs
  }

  get(now: number): readonly string[] | undefined {
    return this.isFresh(now) ? this.value : undefined
  }

  clear(): void {
    this.value = undefined
    this.fetchedAt = 0
  }
}
