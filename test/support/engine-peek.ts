/**
 * A read-only look at the sizes of the engine's per-session collections, for bound checks.
 *
 * It walks whatever Maps, Sets and arrays a session's state holds, so a collection added
 * later is checked against the generic ceiling without anyone remembering to list it. Known
 * fields get their documented cap. If the engine stops keeping its sessions in a Map-like
 * `sessions` table this yields nothing, and `peekAvailable` says so (callers assert on it).
 */
import type { RecoveryEngine } from "../../src/core/engine.ts"
import { MAX_AWAITING_KEYS_PER_SESSION, MAX_OPEN_TOOLS_PER_SESSION } from "../../src/core/session-state.ts"

/** Documented caps of known per-session collections. */
export const KNOWN_CAPS: Record<string, number> = {
  openTools: MAX_OPEN_TOOLS_PER_SESSION,
  awaiting: MAX_AWAITING_KEYS_PER_SESSION,
  /** MAX_RECENT_CONTINUES in src/runtime/episode-continue.ts. */
  recentContinues: 32,
}

/** Any per-session collection not listed above must stay under this. */
export const GENERIC_CAP = 256

export type CollectionSize = { sessionID: string; field: string; size: number; cap: number }

type Table = { get(id: string): unknown; values(): Iterable<unknown> }

/** The engine's session table: a Map, or anything Map-like with get() and values(). */
function sessionsOf(engine: RecoveryEngine): Table | undefined {
  const table = (engine as unknown as { sessions?: unknown }).sessions
  if (table instanceof Map) return table as Table
  const t = table as Partial<Table> | undefined
  return t && typeof t.get === "function" && typeof t.values === "function" ? (t as Table) : undefined
}

export function peekAvailable(engine: RecoveryEngine): boolean {
  return sessionsOf(engine) !== undefined
}

function sizeOf(value: unknown): number | undefined {
  if (value instanceof Map || value instanceof Set) return value.size
  if (Array.isArray(value)) return value.length
  return undefined
}

/** Every per-session collection of the given sessions (all sessions when `ids` is omitted). */
export function* collectionSizes(engine: RecoveryEngine, ids?: Iterable<string>): Generator<CollectionSize> {
  const sessions = sessionsOf(engine)
  if (!sessions) return
  const pick = ids ? [...ids].map((id) => sessions.get(id)) : sessions.values()
  for (const state of pick) {
    if (!state || typeof state !== "object") continue
    const sessionID = String((state as { id?: unknown }).id)
    for (const [field, value] of Object.entries(state)) {
      const size = sizeOf(value)
      if (size !== undefined) yield { sessionID, field, size, cap: KNOWN_CAPS[field] ?? GENERIC_CAP }
    }
  }
}

/** The first collection over its cap, or undefined. */
export function overCap(engine: RecoveryEngine, ids?: Iterable<string>): CollectionSize | undefined {
  for (const c of collectionSizes(engine, ids)) if (c.size > c.cap) return c
  return undefined
}

/** Whether the engine still tracks a session (falls back to the public status()). */
export function isTracked(engine: RecoveryEngine, sessionID: string): boolean {
  const table = sessionsOf(engine)
  return table ? table.get(sessionID) !== undefined : engine.status(sessionID) !== undefined
}
