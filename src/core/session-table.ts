/**
 * The bounded map of tracked sessions. Read in recency order, so eviction takes the least
 * recently seen (each touch stamps the session; the map is put in stamp order only when
 * something reads the order, not on every streamed event of twenty busy sessions); idle sessions are swept by age and by count; busy ones only fall to the hard
 * ceiling, and only when nothing idle is left to drop.
 */
import { IDLE_CLEANUP_MS, MAX_IDLE_SESSIONS } from "../options/index.ts"
import { inFlight, type CallSlot } from "./intervention.ts"
import { newSessionState, type SessionState } from "./session-state.ts"
import { boundedSet } from "./bounded.ts"

/** Busy sessions are not capped by MAX_IDLE_SESSIONS; this is the hard ceiling on all of them. */
export const MAX_TRACKED_SESSIONS = 1000

/** What outlives a swept session, so it comes back with its latches and spent budget. */
type Tombstone = Pick<SessionState, "cancelledByUser" | "completed" | "lifetimeContinues" | "parentID" | "parentDeleted">
const MAX_TOMBSTONES = 500
/** Slots of dropped sessions whose host call had not settled yet, kept for a revival of the id. */
export const MAX_HANDED_SLOTS = 500

export class SessionTable {
  private readonly sessions = new Map<string, SessionState>()
  private readonly tombstones = new Map<string, Tombstone>()
  /**
   * The call slot of a session dropped (even deleted by the host) while its host call was in
   * flight. A late event can bring the id back before that call settles; the new state takes
   * this slot over, so no second call goes to the id beside the first.
   */
  private readonly busySlots = new Map<string, CallSlot>()
  /** The most recently seen session: streaming events mostly repeat it. */
  private newest?: SessionState
  /** The last recency stamp given (SessionState.seenOrder). */
  private stamp = 0
  /** A touch moved a session that is not last in `sessions`: the map's order is stale. */
  private unordered = false

  /** `onDrop` runs for every session that leaves the table, so its timers can be cancelled. */
  constructor(private readonly onDrop: (state: SessionState) => void) {}

  get size(): number {
    return this.sessions.size
  }

  get(id: string): SessionState | undefined {
    return this.sessions.get(id)
  }

  /** Least recently seen first. */
  values(): IterableIterator<SessionState> {
    return this.ordered().values()
  }

  /** In no particular order: for a look that does not care which was seen last, so the map is not re-sorted for it. */
  all(): IterableIterator<SessionState> {
    return this.sessions.values()
  }

  touch(id: string, now: number): SessionState {
    // Streaming events mostly repeat the newest session: a string compare beats a hash lookup.
    if (this.newest !== undefined && this.newest.id === id) return this.newest
    let state = this.sessions.get(id)
    if (state) {
      // Not the newest (checked above): stamp it; the map is reordered when the order is read.
      state.seenOrder = ++this.stamp
      this.unordered = true
      this.newest = state
      return state
    }
    state = newSessionState(id, now)
    state.seenOrder = ++this.stamp
    const slot = this.busySlots.get(id)
    if (slot) {
      this.busySlots.delete(id)
      if (slot.busy) state.intervention.call = slot
    }
    const remembered = this.tombstones.get(id)
    if (remembered) {
      // A session swept while idle runs again without a genuine user message reaching us (a
      // late event, discovery, our own continue): ESC, completion and the spent budget hold.
      Object.assign(state, remembered)
      this.tombstones.delete(id)
    }
    if (this.sessions.size >= MAX_TRACKED_SESSIONS) this.evictOne()
    this.sessions.set(id, state)
    this.newest = state
    return state
  }

  /** `forever`: the session was deleted by the host; nothing of it is kept. */
  drop(state: SessionState, forever = false): void {
    if (this.sessions.get(state.id) !== state) return
    this.sessions.delete(state.id)
    if (this.newest === state) this.newest = undefined
    this.tombstones.delete(state.id)
    if (state.intervention.call.busy) this.keepSlot(state.id, state.intervention.call)
    // A subagent keeps its parent link too: back from a sweep, it is still its parent's child.
    if (!forever && (state.cancelledByUser || state.completed || state.lifetimeContinues > 0 || state.parentID !== undefined)) {
      const { cancelledByUser, completed, lifetimeContinues, parentID, parentDeleted } = state
      boundedSet(this.tombstones, state.id, { cancelledByUser, completed, lifetimeContinues, parentID, parentDeleted }, MAX_TOMBSTONES)
    }
    this.onDrop(state)
  }

  /**
   * The host deleted the session: nothing of it is kept, tracked or swept, and its children,
   * tracked or swept, are no longer linked to it (a new session under the id has none).
   */
  deleted(id: string): void {
    const state = this.sessions.get(id)
    if (state) this.drop(state, true)
    else this.tombstones.delete(id)
    for (const child of this.sessions.values()) if (child.parentID === id) child.parentDeleted = true
    for (const kept of this.tombstones.values()) if (kept.parentID === id) kept.parentDeleted = true
  }

  clear(): void {
    for (const state of [...this.values()]) this.drop(state, true)
    this.tombstones.clear()
    this.busySlots.clear()
  }

  private keepSlot(id: string, slot: CallSlot): void {
    // Settled calls free their entries first; only then does the oldest busy one go.
    for (const [key, kept] of this.busySlots) if (!kept.busy) this.busySlots.delete(key)
    boundedSet(this.busySlots, id, slot, MAX_HANDED_SLOTS)
  }

  /**
   * Drops idle sessions that are old, or beyond the idle cap (oldest first). `kept` names the
   * idle sessions something still waits on (a path's wake or wait): those stay.
   */
  sweep(now: number, kept: (state: SessionState) => boolean = () => false): void {
    const idle = [...this.values()].filter((s) => !s.busy && !inFlight(s.intervention) && !kept(s))
    for (const state of idle) if (now - state.lastSeenAt > IDLE_CLEANUP_MS) this.drop(state)
    const remaining = idle.filter((s) => this.sessions.has(s.id)).sort((a, b) => a.lastSeenAt - b.lastSeenAt)
    while (remaining.length > MAX_IDLE_SESSIONS) this.drop(remaining.shift()!)
  }

  private evictOne(): void {
    let victim: SessionState | undefined
    for (const state of this.ordered().values()) {
      if (!state.busy) {
        victim = state
        break
      }
      victim ??= state
    }
    if (victim) this.drop(victim)
  }

  /** `sessions` in recency order (least recently seen first), put in it again if a touch left it stale. */
  private ordered(): Map<string, SessionState> {
    if (!this.unordered) return this.sessions
    this.unordered = false
    const byRecency = [...this.sessions.values()].sort((a, b) => a.seenOrder - b.seenOrder)
    this.sessions.clear()
    for (const state of byRecency) this.sessions.set(state.id, state)
    return this.sessions
  }
}
