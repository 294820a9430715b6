/**
 * Tool-call loops, detected two ways. Both are pure: no clock, no I/O.
 *
 * 1. Idle scan (`detectIdleToolLoop`): when a session goes idle, the tool calls of the current
 *    user episode are read in order and the tail is checked for the same call three or more
 *    times in a row, or for a cycle of 2 to 5 calls repeated at least three times.
 *
 * 2. Live tracker (`ToolFingerprints`): every tool start is fingerprinted (tool name plus its
 *    arguments with object keys sorted) and kept in a small ring; six or more calls that form a
 *    cycle of period 1 to 3 (at least three full repetitions) are reported before the next call
 *    runs, so the engine can abort the turn.
 *
 * What "the same call" means (a decision; the issue left it open):
 *  - Idle scan: tool name plus the stable fingerprint of its input when the transcript carries
 *    one. Comparing names alone would call `read, read, read` over three different files a loop,
 *    which is how most ordinary turns look; passing `{ compare: "name" }` restores name-only.
 *  - Live tracker: calls are equal when their fingerprints are equal, or when they are
 *    NEAR-IDENTICAL: same tool, same argument structure (same keys, same array lengths, same
 *    value types), every string equal once surrounding whitespace is trimmed and inner runs of
 *    whitespace are collapsed, and every number within `NEAR_NUMBER_TOLERANCE` (2) of the
 *    number at the same place in the reference call. The reference for each cycle position is
 *    the newest call at that position, so drift cannot accumulate: paging through a file with
 *    `offset: 0, 100, 200 ...` is never a loop, while re-reading `offset: 40` / `offset: 41`
 *    is. Strings are never compared by edit distance: `cat a.ts` and `cat b.ts` are different
 *    work, however close the texts are.
 */
import type { TranscriptMessage } from "../core/transcript.ts"

// ---- idle scan ------------------------------------------------------------------------------

export type IdleToolLoop = {
  kind: "same-tool" | "cycle"
  /** Tool names of one repetition, oldest first (one name for `same-tool`). */
  tools: string[]
  /** Full repetitions found at the tail (calls in a row for `same-tool`). */
  repeats: number
}

export type IdleScanOptions = {
  /** "call" (default): name + input fingerprint; "name": tool names only. */
  compare?: "call" | "name"
  /** Most recent tool calls inspected (default 60). */
  maxCalls?: number
}

/** Tool calls inspected by the idle scan, newest last. */
export const IDLE_SCAN_MAX_CALLS = 60
/** The same call this many times in a row is a loop. */
export const IDLE_SAME_TOOL_MIN = 3
/** A cycle of 2..5 calls repeated this many times is a loop. */
export const IDLE_CYCLE_MIN_REPEATS = 3
export const IDLE_CYCLE_MIN_PERIOD = 2
export const IDLE_CYCLE_MAX_PERIOD = 5

export type CallKey = { name: string; key: string }

/**
 * Tool calls of the current user episode, oldest first, at most `maxCalls` of them.
 * The episode starts after the newest genuine user message: a user who asks for the same
 * thing three times is not a loop. The plugin's own prompts (`own`) do not end the episode,
 * so a loop that continues across our nudges is still seen.
 */
export function episodeToolCalls(
  messages: readonly TranscriptMessage[],
  maxCalls = IDLE_SCAN_MAX_CALLS,
): { tool: string; input: unknown }[] {
  const out: { tool: string; input: unknown }[] = []
  for (let m = messages.length - 1; m >= 0 && out.length < maxCalls; m--) {
    const message = messages[m]!
    if (message.role === "user") {
      if (!message.own) break
      continue
    }
    for (let p = message.parts.length - 1; p >= 0 && out.length < maxCalls; p--) {
      const part = message.parts[p]!
      if (part.kind === "tool") out.push({ tool: part.tool, input: part.input })
    }
  }
  return out.reverse()
}

/** Length of the run at the end of `keys` where each entry equals the one `period` before it, plus `period`. */
function tailRun(keys: readonly string[], period: number): number {
  const n = keys.length
  if (n < period) return n
  let run = period
  for (let i = n - 1 - period; i >= 0; i--) {
    if (keys[i] !== keys[i + period]) break
    run++
  }
  return run
}

export function detectIdleToolLoop(
  messages: readonly TranscriptMessage[],
  options: IdleScanOptions = {},
): IdleToolLoop | undefined {
  const maxCalls = Math.max(1, Math.min(options.maxCalls ?? IDLE_SCAN_MAX_CALLS, 500))
  const compare = options.compare ?? "call"
  const calls: CallKey[] = episodeToolCalls(messages, maxCalls).map((c) => ({
    name: c.tool,
    key: compare === "name" || c.input === undefined ? c.tool : `${c.tool}\u0000${fingerprintArgs(c.input).exact}`,
  }))
  return detectLoopInKeys(calls)
}

/** The idle rule over already-keyed calls (exported for tests and for callers with their own keys). */
export function detectLoopInKeys(calls: readonly CallKey[]): IdleToolLoop | undefined {
  const keys = calls.map((c) => c.key)
  const n = keys.length
  if (n === 0) return undefined
  const same = tailRun(keys, 1)
  if (same >= IDLE_SAME_TOOL_MIN) return { kind: "same-tool", tools: [calls[n - 1]!.name], repeats: same }
  for (let period = IDLE_CYCLE_MIN_PERIOD; period <= IDLE_CYCLE_MAX_PERIOD; period++) {
    if (n < period * IDLE_CYCLE_MIN_REPEATS) break
    const repeats = Math.floor(tailRun(keys, period) / period)
    if (repeats < IDLE_CYCLE_MIN_REPEATS) continue
    // A cycle must hold at least two distinct calls; one repeated call is the same-tool rule.
    const cycle = calls.slice(n - period)
    if (new Set(cycle.map((c) => c.key)).size < 2) continue
    return { kind: "cycle", tools: cycle.map((c) => c.name), repeats }
  }
  return undefined
}

// ---- fingerprints ---------------------------------------------------------------------------

/** Characters of canonical text kept in a fingerprint; the rest is represented by a hash. */
export const FINGERPRINT_HEAD_CHARS = 512
/** Canonical text produced per argument object before the walk stops (bounds the work). */
export const FINGERPRINT_MAX_CHARS = 65_536
const MAX_DEPTH = 24
const MAX_NUMBERS = 64
/** Numbers this close count as the same in a near-identical comparison. */
export const NEAR_NUMBER_TOLERANCE = 2

export type ArgsFingerprint = {
  /** Exact identity: canonical head + hash + length of the whole canonical text. */
  exact: string
  /** Structure with strings whitespace-normalized and every number replaced by `#`. */
  shape: string
  /** The numbers the shape left out, in walk order (at most 64). */
  numbers: number[]
}

/** FNV-1a over UTF-16 code units; only needs to separate texts, not resist attackers. */
function hash32(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0")
}

function collapseWhitespace(s: string): string {
  return s.trim().replace(/\s+/g, " ")
}

class Budget {
  used = 0
  get spent(): boolean {
    return this.used >= FINGERPRINT_MAX_CHARS
  }
}

/**
 * Canonical text of a value: object keys sorted at every level, cycles and deep nesting cut,
 * bigint/undefined/functions/symbols spelled out, getters that throw tolerated. Produces the
 * exact text and the loose shape in one walk. Never throws.
 */
function walk(value: unknown, depth: number, path: Set<object>, budget: Budget, exact: string[], shape: string[], numbers: number[]): void {
  const emit = (e: string, s: string = e) => {
    exact.push(e)
    shape.push(s)
    budget.used += e.length
  }
  if (budget.spent) return emit("…")
  switch (typeof value) {
    case "string": {
      const clipped = value.length > FINGERPRINT_MAX_CHARS ? value.slice(0, FINGERPRINT_MAX_CHARS) : value
      return emit(JSON.stringify(clipped), JSON.stringify(collapseWhitespace(clipped)))
    }
    case "number":
      if (Number.isFinite(value)) {
        if (numbers.length < MAX_NUMBERS) {
          numbers.push(value)
          return emit(String(value), "#")
        }
        return emit(String(value))
      }
      return emit(String(value))
    case "bigint":
      return emit(`${value}n`)
    case "boolean":
      return emit(String(value))
    case "undefined":
      return emit("undefined")
    case "function":
      return emit("[function]")
    case "symbol":
      return emit("[symbol]")
  }
  if (value === null) return emit("null")
  const obj = value as object
  if (path.has(obj)) return emit("[circular]")
  if (depth >= MAX_DEPTH) return emit("[deep]")
  path.add(obj)
  try {
    if (Array.isArray(obj)) {
      emit("[")
      for (let i = 0; i < obj.length && !budget.spent; i++) {
        if (i) emit(",")
        let item: unknown
        try {
          item = obj[i]
        } catch {
          item = "[unreadable]"
        }
        walk(item, depth + 1, path, budget, exact, shape, numbers)
      }
      emit("]")
    } else {
      const keys = Object.keys(obj).sort()
      emit("{")
      for (let i = 0; i < keys.length && !budget.spent; i++) {
        const k = keys[i]!
        if (i) emit(",")
        emit(`${JSON.stringify(k)}:`)
        let item: unknown
        try {
          item = (obj as Record<string, unknown>)[k]
        } catch {
          item = "[unreadable]"
        }
        walk(item, depth + 1, path, budget, exact, shape, numbers)
      }
      emit("}")
    }
  } finally {
    path.delete(obj)
  }
}

export function fingerprintArgs(args: unknown): ArgsFingerprint {
  const exact: string[] = []
  const shape: string[] = []
  const numbers: number[] = []
  try {
    walk(args, 0, new Set(), new Budget(), exact, shape, numbers)
  } catch {
    // A Proxy whose traps throw, or anything else unexpected: one fixed fingerprint.
    return { exact: "[unserializable]", shape: "[unserializable]", numbers: [] }
  }
  const full = exact.join("")
  const loose = shape.join("")
  const head = full.length > FINGERPRINT_HEAD_CHARS ? full.slice(0, FINGERPRINT_HEAD_CHARS) : full
  const looseHead = loose.length > FINGERPRINT_HEAD_CHARS ? loose.slice(0, FINGERPRINT_HEAD_CHARS) : loose
  return {
    exact: `${head}|${full.length}|${hash32(full)}`,
    shape: `${looseHead}|${loose.length}|${hash32(loose)}`,
    numbers,
  }
}

// ---- live tracker ---------------------------------------------------------------------------

export type ToolCallPrint = { tool: string } & ArgsFingerprint

export type LiveToolLoop = {
  /** 1 = the same call again and again; 2 or 3 = a cycle of that many calls. */
  period: number
  /** Calls at the tail that follow the cycle (>= LIVE_MIN_CALLS). */
  calls: number
  /** Tool names of one cycle, oldest first. */
  tools: string[]
  /** True when some calls matched only as near-identical, not exactly. */
  near: boolean
}

/** Calls kept per session. */
export const LIVE_RING_SIZE = 32
/** Fewest calls that prove a loop. */
export const LIVE_MIN_CALLS = 6
/** Fewest full repetitions of the cycle (so a 3-call cycle needs 9 calls). */
export const LIVE_MIN_REPEATS = 3
export const LIVE_MAX_PERIOD = 3

export function sameCall(a: ToolCallPrint, b: ToolCallPrint): boolean {
  return a.tool === b.tool && a.exact === b.exact
}

/** See the module comment for the definition. */
export function nearIdenticalCall(a: ToolCallPrint, reference: ToolCallPrint): boolean {
  if (a.tool !== reference.tool || a.shape !== reference.shape) return false
  if (a.numbers.length !== reference.numbers.length) return false
  for (let i = 0; i < a.numbers.length; i++) {
    if (Math.abs(a.numbers[i]! - reference.numbers[i]!) > NEAR_NUMBER_TOLERANCE) return false
  }
  return true
}

/**
 * The bounded ring of recent tool-call fingerprints of ONE session. The engine keeps one per
 * session, calls `record` from the tool-start signal, and `reset` on a genuine user message,
 * after an abort it made, and when the session is dropped.
 */
export class ToolFingerprints {
  private ring: ToolCallPrint[] = []

  constructor(private readonly capacity = LIVE_RING_SIZE) {}

  get size(): number {
    return this.ring.length
  }

  /**
   * Records one call and reports a loop when the tail now forms one. After reporting, the
   * ring is cleared: the same loop is reported once, and a new report needs six fresh calls.
   */
  record(tool: string, args: unknown): LiveToolLoop | undefined {
    this.ring.push({ tool, ...fingerprintArgs(args) })
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity)
    const loop = detectLiveLoop(this.ring)
    if (loop) this.ring = []
    return loop
  }

  reset(): void {
    this.ring = []
  }
}

/** The live rule over a list of fingerprints, newest last. */
export function detectLiveLoop(calls: readonly ToolCallPrint[]): LiveToolLoop | undefined {
  const n = calls.length
  for (let period = 1; period <= LIVE_MAX_PERIOD; period++) {
    const needed = Math.max(LIVE_MIN_CALLS, period * LIVE_MIN_REPEATS)
    if (n < needed) break
    let run = period
    let near = false
    for (let i = n - 1 - period; i >= 0; i--) {
      // Compare with the newest call at the same position in the cycle.
      const reference = calls[n - period + ((i - (n - period)) % period + period) % period]!
      const call = calls[i]!
      if (sameCall(call, reference)) {
        run++
        continue
      }
      if (nearIdenticalCall(call, reference)) {
        near = true
        run++
        continue
      }
      break
    }
    if (run < needed) continue
    const cycle = calls.slice(n - period)
    if (period > 1 && cycle.every((c) => nearIdenticalCall(c, cycle[0]!) || sameCall(c, cycle[0]!))) continue
    return { period, calls: run, tools: cycle.map((c) => c.tool), near }
  }
  return undefined
}
