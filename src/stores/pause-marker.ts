/**
 * The pause marker: `auto-resume.paused` in the state folder (atomic-file.ts), shared by every
 * OpenCode process of the user and the toggle CLI. Read without a lock; changed by a locked
 * read-modify-write that replaces the file atomically. Layout (UTF-8 JSON, one line, newline at
 * the end):
 *
 *     {"version":1,"all":false,"sessions":["ses_..."],
 *      "holds":[{"session":"ses_...","by":"i...","at":1764620000000}],
 *      "allHold":{"by":"i...","at":...},
 *      "leases":[{"id":"i...","pid":123,"host":"box","since":...,"at":...,"ttlMs":20000}]}
 *
 * `holds`, `allHold` and `leases` are optional and carry no version bump on purpose: an older CLI
 * or plugin reads the file as plain version 1 and keeps the pauses, where a new version would make
 * it discard the whole file; without them, pauses read as claimed by nobody yet.
 * A malformed or foreign file reads as empty (bad entries dropped, a pause stays when only its
 * holder is bad) with a `problem`; callers warn once and rewrite it. Which pauses stay and who
 * holds them is decided in src/core/pause-leases.ts, not here.
 */
import { MAX_LEASES, emptyPauseState, type Hold, type Lease, type PauseState, type SessionHold } from "../core/pause-leases.ts"
import { AtomicFile, StateFileError, stateFilePath, type AtomicFileOptions } from "./atomic-file.ts"

export const PAUSE_FILE_NAME = "auto-resume.paused"
export const PAUSE_FILE_VERSION = 1
/** Individually paused sessions kept at most; a pause beyond this is refused. */
export const MAX_PAUSED_SESSIONS = 1000
/** Larger files are not read at all (a well-formed full file with the longest ids everywhere is about 460 KiB). */
export const MAX_PAUSE_FILE_BYTES = 512 * 1024
/** Host names longer than this are cut (they are for status reports only). */
const MAX_HOST_LENGTH = 255

export { emptyPauseState, type PauseState }

export type ReadResult = {
  state: PauseState
  /** Set when the file was malformed or foreign: it was read as `state` and needs a rewrite. */
  problem?: string
}

export function pauseFilePath(env: Record<string, string | undefined> = process.env, homedir?: () => string): string {
  return stateFilePath(PAUSE_FILE_NAME, env, homedir)
}

// Session ids as the marker accepts them. OpenCode ids look like `ses_` plus 26 letters and
// digits; we accept a little more (other hosts, future formats) but nothing that could be read as
// a path, a flag or a terminal escape.

export const MAX_SESSION_ID_LENGTH = 128

const ALLOWED_SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/

/** Why `value` is not an acceptable session id, or undefined when it is. */
export function sessionIdProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "a session id must be a string"
  if (value.length === 0) return "the session id is empty"
  if (value.length > MAX_SESSION_ID_LENGTH) return `the session id is longer than ${MAX_SESSION_ID_LENGTH} characters`
  if (/[/\\]/.test(value)) return "the session id contains a path separator"
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return "the session id contains control characters"
  if (/\s/.test(value)) return "the session id contains whitespace"
  if (value.startsWith("-")) return "the session id starts with '-'"
  if (!ALLOWED_SESSION_ID.test(value)) return "the session id may only contain letters, digits and _ . : -"
  return undefined
}

export function isValidSessionId(value: unknown): value is string {
  return sessionIdProblem(value) === undefined
}

/** A short, printable rendering of untrusted input for error messages. */
export function printable(value: unknown, max = 40): string {
  const text = typeof value === "string" ? value : String(value)
  // eslint-disable-next-line no-control-regex
  const safe = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")
  return JSON.stringify(safe.length > max ? `${safe.slice(0, max)}...` : safe)
}

/** Reads the marker's text. Never throws: whatever is wrong ends up in `problem`. */
export function parsePauseFile(text: string): ReadResult {
  if (text.trim() === "") return { state: emptyPauseState() }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { state: emptyPauseState(), problem: "it is not valid JSON" }
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { state: emptyPauseState(), problem: "it is not a pause file (not a JSON object)" }
  }
  const obj = data as Record<string, unknown>
  if (obj.version !== PAUSE_FILE_VERSION) {
    return { state: emptyPauseState(), problem: `it is not a version ${PAUSE_FILE_VERSION} pause file (version ${printable(obj.version)})` }
  }
  const all = obj.all ?? false
  const sessions = obj.sessions ?? []
  if (typeof all !== "boolean" || !Array.isArray(sessions)) {
    return { state: emptyPauseState(), problem: "it is not a pause file (\"all\" must be a boolean and \"sessions\" a list)" }
  }
  const read = firstPerKey(sessions, (id) => (isValidSessionId(id) ? id : undefined), (id) => id, MAX_PAUSED_SESSIONS)
  const kept = read.items
  const problems: string[] = []
  if (read.bad) problems.push(`${read.bad} invalid session id(s) dropped`)
  if (read.over) problems.push(`${read.over} id(s) beyond the limit of ${MAX_PAUSED_SESSIONS} dropped`)
  const extras = parseHolders(obj, new Set(kept), all)
  if (extras.bad) problems.push(`${extras.bad} malformed holder or lease entr${extras.bad === 1 ? "y" : "ies"} dropped`)
  const state: PauseState = { all, sessions: kept }
  if (extras.holds.length) state.holds = extras.holds
  if (extras.allHold) state.allHold = extras.allHold
  if (extras.leases.length) state.leases = extras.leases
  return { state, problem: problems.length ? problems.join("; ") : undefined }
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v)

function parseHold(value: unknown): Hold | undefined {
  if (typeof value !== "object" || value === null) return undefined
  const v = value as Record<string, unknown>
  if (!finite(v.at)) return undefined
  if (v.by !== undefined && !isValidSessionId(v.by)) return undefined
  return v.by === undefined ? { at: v.at } : { by: v.by as string, at: v.at }
}

function parseLease(value: unknown): Lease | undefined {
  if (typeof value !== "object" || value === null) return undefined
  const v = value as Record<string, unknown>
  if (!isValidSessionId(v.id) || !finite(v.since) || !finite(v.at) || !finite(v.ttlMs) || v.ttlMs <= 0) return undefined
  const lease: Lease = { id: v.id, since: v.since, at: v.at, ttlMs: v.ttlMs }
  if (typeof v.pid === "number" && Number.isSafeInteger(v.pid) && v.pid > 0) lease.pid = v.pid
  // eslint-disable-next-line no-control-regex
  if (typeof v.host === "string") lease.host = v.host.slice(0, MAX_HOST_LENGTH).replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")
  return lease
}

/** The first entry per key that parses, at most `cap` of them: `bad` counts entries that do not parse, `over` new ones past the cap. */
function firstPerKey<T>(entries: readonly unknown[], parse: (entry: unknown) => T | undefined, key: (item: T) => string | undefined, cap: number) {
  const items: T[] = []
  const seen = new Set<string>()
  let bad = 0
  let over = 0
  for (const entry of entries) {
    const item = parse(entry)
    const k = item === undefined ? undefined : key(item)
    if (item === undefined) bad++
    else if (k === undefined || seen.has(k)) continue
    else if (items.length >= cap) over++
    else {
      seen.add(k)
      items.push(item)
    }
  }
  return { items, bad, over }
}

function parseSessionHold(entry: unknown): SessionHold | undefined {
  const hold = parseHold(entry)
  const session = (entry as Record<string, unknown> | null)?.session
  return hold && isValidSessionId(session) ? { session, ...hold } : undefined
}

/** The optional holder fields; entries that do not fit are counted in `bad` and left out. */
function parseHolders(obj: Record<string, unknown>, paused: Set<string>, all: boolean) {
  const listed = (value: unknown) => (Array.isArray(value) ? value : [])
  // A hold for a session that is not paused (an older writer resumed it) is simply stale.
  const holds = firstPerKey(listed(obj.holds).slice(0, MAX_PAUSED_SESSIONS * 2), parseSessionHold, (h) => (paused.has(h.session) ? h.session : undefined), Infinity)
  const leases = firstPerKey(listed(obj.leases).slice(0, MAX_LEASES * 2), parseLease, (l) => l.id, MAX_LEASES)
  const allHold = obj.allHold === undefined ? undefined : parseHold(obj.allHold)
  const notLists = [obj.holds, obj.leases].filter((value) => value !== undefined && !Array.isArray(value)).length
  const bad = holds.bad + leases.bad + notLists + (obj.allHold !== undefined && !allHold ? 1 : 0)
  return { holds: holds.items, allHold: all ? allHold : undefined, leases: leases.items, bad }
}

export function serializePauseState(state: PauseState): string {
  const out: Record<string, unknown> = { version: PAUSE_FILE_VERSION, all: state.all, sessions: state.sessions }
  if (state.holds?.length) out.holds = state.holds.map((h) => (h.by === undefined ? { session: h.session, at: h.at } : { session: h.session, by: h.by, at: h.at }))
  if (state.all && state.allHold) out.allHold = state.allHold.by === undefined ? { at: state.allHold.at } : { by: state.allHold.by, at: state.allHold.at }
  if (state.leases?.length) out.leases = state.leases
  return `${JSON.stringify(out)}\n`
}

/** Checks a state before it is written: valid ids, no duplicates, within the cap. */
export function checkedState(state: PauseState): PauseState {
  const sessions: string[] = []
  const seen = new Set<string>()
  for (const id of state.sessions) {
    const problem = sessionIdProblem(id)
    if (problem) throw new StateFileError(`${problem}: ${printable(id, MAX_SESSION_ID_LENGTH)}`)
    if (seen.has(id)) continue
    seen.add(id)
    sessions.push(id)
  }
  if (sessions.length > MAX_PAUSED_SESSIONS) {
    throw new StateFileError(`too many paused sessions (limit ${MAX_PAUSED_SESSIONS}); resume some first, or pause all at once`)
  }
  const next: PauseState = { all: state.all === true, sessions }
  const kept = new Set(sessions)
  const holds = (state.holds ?? []).filter((h) => kept.has(h.session) && parseHold(h) !== undefined)
  if (holds.length) next.holds = [...new Map(holds.map((h) => [h.session, h])).values()]
  if (next.all && state.allHold && parseHold(state.allHold)) next.allHold = state.allHold
  const leases = (state.leases ?? []).filter((l) => parseLease(l) !== undefined).slice(0, MAX_LEASES)
  if (leases.length) next.leases = leases
  return next
}

export type PauseMarkerOptions = AtomicFileOptions

export class PauseMarkerFile {
  private readonly file: AtomicFile

  constructor(filePath: string, options: PauseMarkerOptions = {}) {
    this.file = new AtomicFile(filePath, MAX_PAUSE_FILE_BYTES, options)
  }

  get path(): string {
    return this.file.path
  }

  /** A cheap fingerprint of the file (a stat), "absent" when there is none. Throws StateFileError. */
  signature(): string {
    return this.file.signature()
  }

  /** Reads the marker without a lock. A missing file is an empty state. Throws StateFileError on I/O errors. */
  read(): ReadResult {
    const { text, problem } = this.file.read()
    if (problem !== undefined) return { state: emptyPauseState(), problem }
    return text === undefined ? { state: emptyPauseState() } : parsePauseFile(text)
  }

  /**
   * Read-modify-write under the lock. `change` gets the current state (empty when the file is
   * missing or malformed) and returns the new one; the result is validated, written atomically
   * and returned along with any problem found in the old file. Throws StateFileError.
   */
  update(change: (state: PauseState) => PauseState): Promise<{ state: PauseState; problem?: string }> {
    return this.file.locked(() => this.rewrite(change))
  }

  /**
   * The same, synchronously and only if the lock is free right now; false when it was not
   * (nothing changed). For a process on its way out, which cannot wait. Throws StateFileError.
   */
  updateNow(change: (state: PauseState) => PauseState): boolean {
    return this.file.lockedNow(() => this.rewrite(change)) !== undefined
  }

  private rewrite(change: (state: PauseState) => PauseState): { state: PauseState; problem?: string } {
    const current = this.read()
    // A copy, so the caller's change may edit what it is given freely.
    const next = checkedState(change(structuredClone(current.state)))
    this.file.replace(serializePauseState(next))
    return { state: next, problem: current.problem }
  }
}
