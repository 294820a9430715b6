/**
 * A session's state as plain data, for carrying stall memory across a plugin reload in the
 * same process (`shareWatchState`): everything but its timers, with the host-call slot free.
 * Imported state keeps its ESC and completion latches and its spent budgets; a busy session
 * gets its watchdog re-armed for what is left of its budget, not a fresh one.
 */
import { markSent, type Intervention } from "./intervention.ts"
import { newSessionState, type SessionState } from "./session-state.ts"

/** `paths`: the states of the recovery paths that outlive a reload, by path name (runtime/paths.ts saved). */
export type SessionSnapshot = Record<string, unknown> & { id: string; paths?: Record<string, unknown> }

/** Fields that hold timers, in-flight work, what the paths asked to hear, or the paths' states (carried beside): never carried over. */
const TRANSIENT = new Set(["intervention", "dropped", "outputWatched", "paths"])

/** Optional fields carried over, with the type each must have; anything else is left out. */
const OPTIONAL_KINDS: Record<string, "string" | "number" | "object" | "array"> = {
  parentID: "string",
  tokenMessageID: "string",
  lastRecovery: "object",
  todos: "array",
  discoveryMisses: "number",
  lastHeldReason: "string",
}

function hasKind(value: unknown, kind: "string" | "number" | "object" | "array"): boolean {
  if (kind === "array") return Array.isArray(value)
  if (kind === "object") return value !== null && typeof value === "object" && !Array.isArray(value)
  if (kind === "number") return typeof value === "number" && Number.isFinite(value)
  return typeof value === kind
}

function copyValue(value: unknown): unknown {
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, copyValue(v)]))
  if (value instanceof Set) return new Set(value)
  if (Array.isArray(value)) return value.map(copyValue)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (typeof v !== "function") out[k] = copyValue(v)
    return out
  }
  return value
}

export function snapshotOf(state: SessionState, paths?: Record<string, unknown>): SessionSnapshot {
  const out: SessionSnapshot = { id: state.id }
  if (paths) out.paths = copyValue(paths) as Record<string, unknown>
  for (const [key, value] of Object.entries(state)) {
    if (TRANSIENT.has(key) || typeof value === "function") continue
    out[key] = copyValue(value)
  }
  // Of what is in flight only the send spacing and the nudges sent this turn outlive a reload.
  const { prompt, sentThisTurn } = state.intervention
  if (prompt.acceptedAt !== undefined) out.lastSendAt = prompt.acceptedAt
  out.sentThisTurn = [...sentThisTurn]
  return out
}

/** The two carried pieces of the intervention record; older snapshots kept "sent:" keys in `turnFeatureCounts`. */
function restoreIntervention(rec: Intervention, snap: Record<string, unknown>): void {
  if (hasKind(snap.lastSendAt, "number")) rec.prompt.acceptedAt = snap.lastSendAt as number
  const older = snap.turnFeatureCounts instanceof Map ? [...snap.turnFeatureCounts.keys()].map((k) => String(k).match(/^sent:(.*)/)?.[1]) : []
  for (const feature of Array.isArray(snap.sentThisTurn) ? snap.sentThisTurn : older) if (typeof feature === "string") markSent(rec, feature)
}

/**
 * Rebuilds a state from a snapshot, keeping only fields a fresh state has and whose type
 * matches, so a snapshot from another version can never put junk into the engine.
 */
export function restoreState(snapshot: unknown, now: number): SessionState | undefined {
  if (snapshot === null || typeof snapshot !== "object") return undefined
  const snap = snapshot as Record<string, unknown>
  if (typeof snap.id !== "string" || snap.id === "") return undefined
  const state = newSessionState(snap.id, now) as unknown as Record<string, unknown>
  for (const [key, fresh] of Object.entries(state)) {
    if (TRANSIENT.has(key) || !(key in snap)) continue
    const value = snap[key]
    if (fresh === undefined) {
      const kind = OPTIONAL_KINDS[key]
      if (kind !== undefined && hasKind(value, kind)) state[key] = copyValue(value)
      continue
    }
    const sameKind =
      fresh instanceof Map ? value instanceof Map : fresh instanceof Set ? value instanceof Set : Array.isArray(fresh) ? Array.isArray(value) : typeof fresh === typeof value
    if (sameKind) state[key] = copyValue(value)
  }
  restoreIntervention((state as unknown as SessionState).intervention, snap)
  return state as unknown as SessionState
}
