/**
 * Which pauses in the shared pause file stay, and who holds them.
 *
 * Every OpenCode process of a user shares one pause file, so no process may simply clear it
 * when it starts: it would lift the pauses of every other running OpenCode. Instead each plugin
 * keeps a lease; a pause is held by the instance that runs the session and dropped when its
 * holder's lease lapses; a pause nobody has claimed (the CLI's) lasts UNCLAIMED_PAUSE_MAX_MS.
 */

/** A lease is valid this many check intervals after its last refresh. */
export const LEASE_LAPSE_INTERVALS = 4
/** Bounds for a lease's validity: short enough that a dead process's pauses go soon, long enough to ride out a busy moment. */
export const MIN_LEASE_TTL_MS = 3_000
export const MAX_LEASE_TTL_MS = 60 * 60_000
export const UNCLAIMED_PAUSE_MAX_MS = 24 * 60 * 60_000
/** Leases kept in the file at most (one per running OpenCode process). */
export const MAX_LEASES = 64

/** A running plugin's claim to be alive. Times are epoch milliseconds. */
export type Lease = {
  id: string
  /** Extra information for status reports; not used to decide anything. */
  pid?: number
  host?: string
  /** When the process first wrote the lease. */
  since: number
  at: number
  /** Valid for this long after `at`. */
  ttlMs: number
}

/** Who holds one pause and since when. `by` is absent for a pause nobody has claimed yet. */
export type Hold = { by?: string; at: number }

export type SessionHold = Hold & { session: string }

/**
 * The file's content. `sessions` and `all` are what pauses; the rest says who holds those
 * pauses (missing in files written by older versions, which then count as unclaimed).
 */
export type PauseState = {
  all: boolean
  /** Individually paused sessions, oldest first. */
  sessions: string[]
  allHold?: Hold
  holds?: SessionHold[]
  leases?: Lease[]
}

export function emptyPauseState(): PauseState {
  return { all: false, sessions: [] }
}

export function leaseTtl(checkIntervalMs: number): number {
  const ms = Number.isFinite(checkIntervalMs) ? checkIntervalMs * LEASE_LAPSE_INTERVALS : MIN_LEASE_TTL_MS
  return Math.min(MAX_LEASE_TTL_MS, Math.max(MIN_LEASE_TTL_MS, Math.round(ms)))
}

function clampTtl(ttlMs: number): number {
  return Number.isFinite(ttlMs) ? Math.min(MAX_LEASE_TTL_MS, Math.max(MIN_LEASE_TTL_MS, ttlMs)) : MIN_LEASE_TTL_MS
}

export function leaseLapsed(lease: Lease, now: number): boolean {
  return now - lease.at > clampTtl(lease.ttlMs)
}

/**
 * Not if its own last check is further back than `maxGapMs` (two check intervals, at most the
 * validity): this process was frozen too (a laptop asleep, a paused VM), and every other lease
 * looks old only because nobody could refresh. A live lease is refreshed only half way to
 * lapsing (lease-refresh.ts), so even a freeze of a few intervals would otherwise make it look
 * lapsed; one check later every live holder has had its own check back.
 */
export function mayPrune(lastCheckAt: number | undefined, now: number, maxGapMs: number): boolean {
  return lastCheckAt === undefined || now - lastCheckAt <= (Number.isFinite(maxGapMs) ? maxGapMs : MIN_LEASE_TTL_MS)
}

export type DroppedPause = {
  /** The session, or undefined for the pause of all sessions. */
  session?: string
  hold: Hold
  why: "holder-gone" | "unclaimed-expired"
}

export type TidyInput = {
  now: number
  /** This process's lease, refreshed to `now`; absent for the CLI, which holds nothing. */
  self?: Lease
  /** The sessions this process runs: it claims their unclaimed pauses. */
  runs?: (sessionID: string) => boolean
  /** False: drop nothing this time (see mayPrune). */
  prune: boolean
}

export type TidyResult = { state: PauseState; dropped: DroppedPause[]; claimed: string[] }

/** Times in the future (a clock stepped back, a damaged file) are read as `now`: nothing is held forever by a date far ahead. */
export function tidyPauses(state: PauseState, input: TidyInput): TidyResult {
  const { now, self, prune } = input
  const clampAt = (t: number) => (Number.isFinite(t) ? Math.min(t, now) : now)

  const others = (state.leases ?? [])
    .filter((l) => l.id !== self?.id)
    .map((l) => ({ ...l, at: clampAt(l.at), since: clampAt(l.since) }))
    .filter((l) => !prune || !leaseLapsed(l, now))
    .sort((a, b) => b.at - a.at)
  const leases = self ? [self, ...others].slice(0, MAX_LEASES) : others.slice(0, MAX_LEASES)
  const live = new Set(leases.filter((l) => !leaseLapsed(l, now)).map((l) => l.id))
  if (self) live.add(self.id)

  const dropped: DroppedPause[] = []
  const claimed: string[] = []
  const judge = (session: string | undefined, found: Hold | undefined): Hold | undefined => {
    const hold: Hold = !found ? { at: now } : found.by === undefined ? { at: clampAt(found.at) } : { by: found.by, at: clampAt(found.at) }
    if (hold.by !== undefined) {
      if (live.has(hold.by) || !prune) return hold
      dropped.push({ session, hold, why: "holder-gone" })
      return undefined
    }
    if (self && session !== undefined && input.runs?.(session)) {
      claimed.push(session)
      return { by: self.id, at: hold.at }
    }
    if (prune && now - hold.at >= UNCLAIMED_PAUSE_MAX_MS) {
      dropped.push({ session, hold, why: "unclaimed-expired" })
      return undefined
    }
    return hold
  }

  const known = new Map((state.holds ?? []).map((h) => [h.session, h]))
  const sessions: string[] = []
  const holds: SessionHold[] = []
  for (const session of state.sessions) {
    const hold = judge(session, known.get(session))
    if (!hold) continue
    sessions.push(session)
    holds.push({ session, ...hold })
  }
  const allHold = state.all ? judge(undefined, state.allHold) : undefined
  const next: PauseState = { all: allHold !== undefined, sessions, holds, leases }
  if (allHold) next.allHold = allHold
  return { state: next, dropped, claimed }
}

export type HoldView =
  | { kind: "self"; at: number; lease?: Lease }
  | { kind: "other"; at: number; lease: Lease }
  | { kind: "gone"; at: number; by: string; lease?: Lease }
  | { kind: "unclaimed"; at: number; expiresAt: number }

/** Who holds a pause, as seen by the instance `selfId` (undefined for the CLI). */
export function viewHold(hold: Hold | undefined, leases: readonly Lease[], now: number, selfId?: string): HoldView {
  const at = hold && Number.isFinite(hold.at) ? Math.min(hold.at, now) : now
  if (!hold?.by) return { kind: "unclaimed", at, expiresAt: at + UNCLAIMED_PAUSE_MAX_MS }
  const lease = leases.find((l) => l.id === hold.by)
  if (hold.by === selfId) return { kind: "self", at, lease }
  if (lease && !leaseLapsed({ ...lease, at: Math.min(lease.at, now) }, now)) return { kind: "other", at, lease }
  return { kind: "gone", at, by: hold.by, lease }
}

/** The hold of one session's own pause (undefined when it is not paused on its own). */
export function sessionHold(state: PauseState, sessionID: string): Hold | undefined {
  if (!state.sessions.includes(sessionID)) return undefined
  return state.holds?.find((h) => h.session === sessionID) ?? { at: Number.NaN }
}

/** The session paused, held by `by` from `at` (a pause already there keeps its holder and time). */
export function withSessionPaused(s: PauseState, sessionID: string, by: string, at: number): PauseState {
  if (s.sessions.includes(sessionID)) return s
  return { ...s, sessions: [...s.sessions, sessionID], holds: [...(s.holds ?? []), { session: sessionID, by, at }] }
}

export function withSessionResumed(s: PauseState, sessionID: string): PauseState {
  return { ...s, sessions: s.sessions.filter((id) => id !== sessionID) }
}

/** Every session paused, held by `by` from `at` (an all-pause already there keeps its holder). */
export function withAllPaused(s: PauseState, by: string, at: number): PauseState {
  return s.all ? s : { ...s, all: true, allHold: { by, at } }
}

export function withAllResumed(s: PauseState): PauseState {
  return { ...emptyPauseState(), leases: s.leases }
}
