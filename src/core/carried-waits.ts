/**
 * Rate-limit waits that outlive the process: what the state file holds, which of its entries a
 * starting plugin takes over, and how the list is kept bounded. Pure: the file itself is read
 * and written in src/stores/wait-file.ts, the process checks are the caller's.
 *
 * Why a file: OpenCode gives a rate-limited request up after a handful of retries, so a long
 * quota window leaves the session idle with only our wait to wake it; a restart would forget
 * that wait. An entry says whose it is (the process and the folder it runs for), so a starting
 * plugin takes over only the waits of a process that is gone and did not quit on purpose
 * (a clean exit removes its own entries first).
 */
import type { ModelRef } from "./port.ts"

/** Entries kept at most; past it the ones that end first go. */
export const MAX_CARRIED_WAITS = 200
/** A wait that ended this long ago is dropped instead of resumed: nobody is waiting for it any more. */
export const CARRIED_WAIT_STALE_MS = 86_400_000

/** The process a wait belongs to: its pid and when it started, so a reused pid is not mistaken for it. */
export type WaitOwner = { pid: number; startedAt: number; host?: string }

export type CarriedWait = {
  sessionID: string
  /** Rate-limit hits so far (the ladder rung the wait is on). */
  rung: number
  /** Wall-clock end of the wait, epoch ms. */
  until: number
  /** When the rate limit was hit (wall clock), for the continue's "waited ..." */
  since?: number
  /** The folder the session belongs to (1.x directory, 2.x location): only a plugin for it takes the wait over. */
  directory?: string
  agent?: string
  model?: ModelRef
  owner: WaitOwner
  /** Set once the wait was taken over after a restart; shown in the status (and the history). */
  carriedOver?: boolean
}

export type ParsedWaits = { waits: CarriedWait[]; skipped: string[] }

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const isText = (v: unknown, max = 512): v is string => typeof v === "string" && v !== "" && v.length <= max
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0

function ownerOf(v: unknown): WaitOwner | undefined {
  if (!isObj(v) || !isCount(v.pid) || v.pid === 0 || typeof v.startedAt !== "number" || !Number.isFinite(v.startedAt)) return undefined
  const owner: WaitOwner = { pid: v.pid, startedAt: v.startedAt }
  if (isText(v.host, 255)) owner.host = v.host
  return owner
}

/** One entry of the file, or why it is not one. */
export function waitOf(v: unknown): CarriedWait | string {
  if (!isObj(v)) return "not an object"
  if (!isText(v.sessionID, 200)) return "no session id"
  if (!isCount(v.rung) || v.rung === 0) return `session ${v.sessionID}: no rung`
  if (typeof v.until !== "number" || !Number.isFinite(v.until)) return `session ${v.sessionID}: no end time`
  const owner = ownerOf(v.owner)
  if (!owner) return `session ${v.sessionID}: no owner`
  const wait: CarriedWait = { sessionID: v.sessionID, rung: v.rung, until: v.until, owner }
  if (typeof v.since === "number" && Number.isFinite(v.since) && v.since <= v.until) wait.since = v.since
  if (isText(v.directory, 4096)) wait.directory = v.directory
  if (isText(v.agent, 200)) wait.agent = v.agent
  if (isObj(v.model) && isText(v.model.providerID, 200) && isText(v.model.modelID, 200)) wait.model = { providerID: v.model.providerID, modelID: v.model.modelID }
  if (v.carriedOver === true) wait.carriedOver = true
  return wait
}

/**
 * The file's parsed JSON: `{ waits: [...] }`. Anything else throws (the caller reads it as an
 * empty list with one warning); a malformed entry is skipped and named in `skipped`.
 */
export function parseWaits(data: unknown): ParsedWaits {
  if (!isObj(data) || !Array.isArray(data.waits)) throw new Error("it holds no list of waits")
  const waits: CarriedWait[] = []
  const skipped: string[] = []
  for (const entry of data.waits.slice(0, MAX_CARRIED_WAITS * 2)) {
    const wait = waitOf(entry)
    if (typeof wait === "string") skipped.push(wait)
    else waits.push(wait)
  }
  return { waits, skipped }
}

const sameOwner = (a: WaitOwner, b: WaitOwner) => a.pid === b.pid && a.startedAt === b.startedAt && (a.host ?? "") === (b.host ?? "")
const sameSlot = (a: CarriedWait, sessionID: string, directory: string | undefined) => a.sessionID === sessionID && (a.directory ?? "") === (directory ?? "")

/** Stale entries out, one entry per session and folder, at most MAX_CARRIED_WAITS (the latest ends kept). */
export function boundedWaits(waits: readonly CarriedWait[], wallNow: number): CarriedWait[] {
  const seen = new Set<string>()
  const kept: CarriedWait[] = []
  // Newest last in the file: read backwards so the latest entry for a session wins.
  for (let i = waits.length - 1; i >= 0; i--) {
    const w = waits[i]!
    const key = `${w.directory ?? ""}\u0000${w.sessionID}`
    if (seen.has(key) || w.until + CARRIED_WAIT_STALE_MS < wallNow) continue
    seen.add(key)
    kept.push(w)
  }
  kept.reverse()
  if (kept.length <= MAX_CARRIED_WAITS) return kept
  return [...kept].sort((a, b) => a.until - b.until).slice(kept.length - MAX_CARRIED_WAITS).sort((a, b) => waits.indexOf(a) - waits.indexOf(b))
}

/** The list with this session's wait recorded (replacing an earlier one of the same session and folder). */
export function withWait(waits: readonly CarriedWait[], wait: CarriedWait, wallNow: number): CarriedWait[] {
  return boundedWaits([...waits.filter((w) => !sameSlot(w, wait.sessionID, wait.directory)), wait], wallNow)
}

/** The list without this session's wait, when `owner` holds it (another process's wait for it is not ours to end). */
export function withoutWait(waits: readonly CarriedWait[], sessionID: string, directory: string | undefined, owner: WaitOwner): CarriedWait[] {
  return waits.filter((w) => !(sameSlot(w, sessionID, directory) && sameOwner(w.owner, owner)))
}

/** The list without every wait `owner` holds for `directory`: a clean exit (the user quit on purpose). */
export function withoutOwnerWaits(waits: readonly CarriedWait[], directory: string | undefined, owner: WaitOwner): CarriedWait[] {
  return waits.filter((w) => !((w.directory ?? "") === (directory ?? "") && sameOwner(w.owner, owner)))
}

export type TakeOverCheck = {
  self: WaitOwner
  directory: string | undefined
  /** Whether the owner process still runs (same host, same pid, same start). */
  alive: (owner: WaitOwner) => boolean
  wallNow: number
}

/**
 * Whether a starting plugin takes this wait over: it is for this folder, not stale, and its
 * owner is gone (crashed, killed, rebooted), or is this very process (an instance of it that
 * was replaced without quitting). A live other process keeps its own waits.
 */
export function mayTakeOver(wait: CarriedWait, check: TakeOverCheck): boolean {
  if ((wait.directory ?? "") !== (check.directory ?? "")) return false
  if (wait.until + CARRIED_WAIT_STALE_MS < check.wallNow) return false
  if (sameOwner(wait.owner, check.self)) return true
  return !check.alive(wait.owner)
}

/**
 * The claim, made under the file's lock: every wait `mayTakeOver` allows becomes this
 * process's (so a second process starting at the same time finds a live owner and leaves it).
 * Returns the new list and the waits claimed, marked carried over.
 */
export function claimWaits(waits: readonly CarriedWait[], check: TakeOverCheck): { waits: CarriedWait[]; claimed: CarriedWait[] } {
  const claimed: CarriedWait[] = []
  const next = waits.map((w) => {
    if (!mayTakeOver(w, check)) return w
    const mine: CarriedWait = { ...w, owner: check.self, carriedOver: true }
    claimed.push(mine)
    return mine
  })
  return { waits: boundedWaits(next, check.wallNow), claimed }
}

/** What the engine restores: the wait's remaining time on its own clock, and whether the host still runs the session. */
export type RestoredWait = {
  sessionID: string
  rung: number
  /** 0 when the wait is already over: its continue goes out once the session is seen idle. */
  remainingMs: number
  until: number
  /** How long ago the rate limit was hit, when the file says. */
  elapsedMs?: number
  agent?: string
  model?: ModelRef
  busy: boolean
}

export function restoredWait(wait: CarriedWait, wallNow: number, running: ReadonlySet<string>): RestoredWait {
  const restored: RestoredWait = {
    sessionID: wait.sessionID,
    rung: wait.rung,
    remainingMs: Math.max(0, wait.until - wallNow),
    until: wait.until,
    busy: running.has(wait.sessionID),
  }
  if (wait.since !== undefined) restored.elapsedMs = Math.max(0, wallNow - wait.since)
  if (wait.agent) restored.agent = wait.agent
  if (wait.model) restored.model = wait.model
  return restored
}

/**
 * Where the engine tells the file about a session's wait. Both calls return at once; the store
 * does its I/O in the background and reports its own failures.
 */
export interface RateWaitStore {
  /** The session waits out a rate limit until `until` (wall clock), on ladder rung `rung`. */
  save(wait: { sessionID: string; rung: number; until: number; since?: number; agent?: string; model?: ModelRef; carriedOver?: boolean }): void
  /** The wait is over: its continue went out, or the user, ESC, a pause or the model's output ended it. */
  end(sessionID: string): void
}
