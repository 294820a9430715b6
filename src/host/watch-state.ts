/**
 * `shareWatchState`: the engine's sessions handed from one instance to the next in the same
 * process, so a reload in the middle of a stall neither forgets the silence so far nor lifts
 * an ESC latch, a completion latch or a spent budget. The snapshotting itself is the core's
 * (core/session-snapshot.ts); this only dates the snapshot and refuses stale ones.
 */
import type { RecoveryEngine } from "../core/engine.ts"
import type { SessionSnapshot } from "../core/session-snapshot.ts"

export type WatchSnapshot = { takenAt: number; sessions: SessionSnapshot[] }

/** Snapshots older than this describe a host that has moved on; they are not imported. */
export const WATCH_SNAPSHOT_MAX_AGE_MS = 60_000

export function exportWatchState(engine: RecoveryEngine, now: number): WatchSnapshot {
  return { takenAt: now, sessions: engine.exportSessions() }
}

/** Loads a snapshot into a fresh engine; returns how many sessions were taken over. */
export function importWatchState(engine: RecoveryEngine, snapshot: WatchSnapshot, now: number): number {
  if (Math.abs(now - snapshot.takenAt) > WATCH_SNAPSHOT_MAX_AGE_MS) return 0
  return engine.importSessions(snapshot.sessions)
}
