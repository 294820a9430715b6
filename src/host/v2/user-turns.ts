/**
 * Genuine user turns on OpenCode 2.x, which has no `chat.message` hook. A new user message must
 * re-arm the core's budgets and lift its ESC latch; the plugin's own prompts must never do either.
 * Two bounded sources: `session.inbox.enqueued` (older: `session.input.admitted`) classifies a
 * prompt the moment the host admits it; a history scan at run start, first step and inbox
 * delivery covers hosts without inbox events and items admitted before we loaded.
 * Our own sends are also recognised by their exact text, because the run can start and be scanned
 * before `session.prompt` has even returned. An old message must not lift a fresh ESC: only
 * messages after the newest `idle` marker count, and a scan overtaken by an interruption reports
 * nothing.
 */
import type { TimeSource } from "../../core/clock.ts"
import { withTimeout } from "../../core/host-calls.ts"
import type { Signal, TurnSetup } from "../../core/port.ts"
import { get, str } from "../shape.ts"
import { isPauseReply } from "./command.ts"
import { hasOwnMarker, messageText } from "./messages.ts"
import { addNewest, BoundedMap } from "../../core/bounded.ts"
import { turnSetupOf } from "../normalize.ts"

const MAX_SESSIONS = 500
const MAX_IDS_PER_SESSION = 200
const MAX_TEXTS_PER_SESSION = 8
/** How long an exact-text match identifies one of our sends. */
const OWN_TEXT_TTL_MS = 10 * 60_000
/** Messages read per history scan: a run start is always near the end of the history. */
export const USER_SCAN_LIMIT = 20

/** A value per session (getOrCreate makes it); the least recently used session is forgotten first. */
const recentSessions = <V>() => new BoundedMap<string, V>(MAX_SESSIONS, { refresh: true })

/**
 * What the plugin itself sent, per session. Process-wide: it outlives a reload. Callers pass
 * the time, because instances sharing it may run on different clocks (tests do).
 */
export class OwnSends {
  private readonly ids = recentSessions<Set<string>>()
  private readonly texts = recentSessions<{ text: string; at: number }[]>()

  rememberText(sessionID: string, text: string, now: number): void {
    const list = this.texts.getOrCreate(sessionID, () => [])
    list.push({ text, at: now })
    if (list.length > MAX_TEXTS_PER_SESSION) list.splice(0, list.length - MAX_TEXTS_PER_SESSION)
  }

  rememberID(sessionID: string, id: string): void {
    addNewest(this.ids.getOrCreate(sessionID, () => new Set()), id, MAX_IDS_PER_SESSION)
  }

  isOwn(sessionID: string, id: string | undefined, text: string, now: number): boolean {
    if (id !== undefined && this.ids.get(sessionID)?.has(id)) return true
    return (this.texts.get(sessionID) ?? []).some((t) => t.text === text && Math.abs(now - t.at) <= OWN_TEXT_TTL_MS)
  }
}

/** User message ids already classified, per session. Shared across reloads with the watch state. */
export class SeenMessages {
  private readonly table = recentSessions<Set<string>>()

  /** Marks `id` seen; true when it was new. */
  add(sessionID: string, id: string): boolean {
    const set = this.table.getOrCreate(sessionID, () => new Set())
    const fresh = !set.has(id)
    addNewest(set, id, MAX_IDS_PER_SESSION)
    return fresh
  }

  get sessions(): number {
    return this.table.size
  }
}

/** Who wrote a user message: the user, or the plugin itself; undefined: not a user message (or already seen). */
export type TurnOrigin = "genuine" | "own" | undefined

const INBOUND_TYPES = new Set(["user", "synthetic"])

function classify(own: OwnSends, sessionID: string, entry: unknown, id: string | undefined, now: number): TurnOrigin {
  const type = str(get(entry, "type"))
  if (!type || !INBOUND_TYPES.has(type)) return undefined
  if (isPauseReply(entry) && hasOwnMarker(entry)) return undefined
  if (hasOwnMarker(entry) || own.isOwn(sessionID, id, messageText(entry), now)) {
    if (id) own.rememberID(sessionID, id)
    return "own"
  }
  // A synthetic message is never the user typing, whoever sent it.
  return type === "user" ? "genuine" : "own"
}

/** Classifies an admitted inbox item (`data.item`, older `data.input`). */
export function classifyInboxItem(own: OwnSends, seen: SeenMessages, sessionID: string, data: unknown, now: number): TurnOrigin {
  const item = get(data, "item") ?? get(data, "input")
  const id = str(get(item, "id")) ?? str(get(data, "inboxID"))
  const verdict = classify(own, sessionID, item, id, now)
  if (verdict === undefined) return undefined
  if (id && !seen.add(sessionID, id)) return undefined
  return verdict
}

/** The strongest verdict among user messages after the newest idle marker not seen before. */
export function classifyHistory(own: OwnSends, seen: SeenMessages, sessionID: string, history: readonly unknown[], now: number): TurnOrigin {
  let lastIdle = -1
  history.forEach((entry, i) => {
    if (str(get(entry, "type")) === "idle") lastIdle = i
  })
  let verdict: TurnOrigin
  history.forEach((entry, i) => {
    const id = str(get(entry, "id"))
    const v = classify(own, sessionID, entry, id, now)
    if (v === undefined || !id) return
    const fresh = seen.add(sessionID, id)
    if (!fresh || i < lastIdle) return
    if (v === "genuine" || verdict === undefined) verdict = v
  })
  return verdict
}

/** Agent and model of the newest assistant message in a raw history. */
export function setupFromHistory(history: readonly unknown[]): TurnSetup | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history[i]
    if (str(get(entry, "type")) !== "assistant") continue
    return turnSetupOf(str(get(entry, "agent")), str(get(entry, "model", "providerID")), str(get(entry, "model", "id")) ?? str(get(entry, "model", "modelID")))
  }
  return undefined
}

export type HistoryWatcherDeps = {
  own: OwnSends
  seen: SeenMessages
  time: TimeSource
  /** Raw 2.x messages, oldest first; may reject or hang (the watcher bounds it). */
  readRaw: (sessionID: string, limit: number) => Promise<unknown[]>
  timeoutMs: () => number
  /** What the adapter knows of the session's agent/model (from step events). */
  knownSetup: (sessionID: string) => TurnSetup | undefined
  emit: (signal: Signal) => void
  onReadError: (error: unknown) => void
  /** A genuine turn was reported without knowing its model yet (first turn of a session). */
  onSetupUnknown?: (sessionID: string) => void
}

/** Runs history scans: one at a time per session, a trigger during a scan runs one more. */
export class HistoryWatcher {
  private readonly interruptions = recentSessions<{ count: number }>()
  private readonly running = new Set<string>()
  private readonly again = new Set<string>()
  private stopped = false

  constructor(private readonly deps: HistoryWatcherDeps) {}

  stop(): void {
    this.stopped = true
  }

  /** A run was interrupted: a scan still in flight must not report what it finds. */
  interrupted(sessionID: string): void {
    this.interruptionsOf(sessionID).count++
  }

  private interruptionsOf(sessionID: string): { count: number } {
    return this.interruptions.getOrCreate(sessionID, () => ({ count: 0 }))
  }

  inboxItem(sessionID: string, data: unknown): void {
    const verdict = classifyInboxItem(this.deps.own, this.deps.seen, sessionID, data, this.deps.time.now())
    if (verdict) this.report(sessionID, verdict, undefined)
  }

  scan(sessionID: string): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.running.has(sessionID) || this.running.size >= MAX_SESSIONS) {
      if (this.running.has(sessionID)) this.again.add(sessionID)
      return Promise.resolve()
    }
    this.running.add(sessionID)
    return this.runScan(sessionID).finally(() => {
      this.running.delete(sessionID)
      if (this.again.delete(sessionID)) void this.scan(sessionID)
    })
  }

  private async runScan(sessionID: string): Promise<void> {
    const before = this.interruptionsOf(sessionID).count
    let history: unknown[]
    try {
      history = await withTimeout(this.deps.time, this.deps.timeoutMs(), "history read", () => this.deps.readRaw(sessionID, USER_SCAN_LIMIT))
    } catch (error) {
      this.deps.onReadError(error)
      return
    }
    if (this.stopped || !Array.isArray(history)) return
    const verdict = classifyHistory(this.deps.own, this.deps.seen, sessionID, history, this.deps.time.now())
    if (!verdict || this.interruptionsOf(sessionID).count !== before) return
    this.report(sessionID, verdict, setupFromHistory(history))
  }

  private report(sessionID: string, verdict: "genuine" | "own", fromHistory: TurnSetup | undefined): void {
    if (this.stopped) return
    if (verdict === "own") {
      this.deps.emit({ type: "userMessage", sessionID, genuine: false })
      return
    }
    const setup = this.deps.knownSetup(sessionID) ?? fromHistory
    if (!setup?.model) this.deps.onSetupUnknown?.(sessionID)
    this.deps.emit(setup ? { type: "userMessage", sessionID, genuine: true, setup } : { type: "userMessage", sessionID, genuine: true })
  }
}
