/**
 * This process's identity in the pause file: one instance id per OpenCode process (every
 * plugin instance of the process shares it, so an instance reloaded within the process keeps
 * the pauses it held), and the removal of its lease when the process exits normally.
 *
 * Kept on globalThis so two copies of this module loaded by one process still agree. A new
 * process always gets a new id: that is what lets a restart clear the pauses of its previous
 * run (the old id's lease lapses, or is removed right here at exit).
 */
import { randomBytes } from "node:crypto"
import fs from "node:fs"
import os from "node:os"
import type { PauseMarkerFile } from "./marker-file.ts"

export type LeaseIdentity = { id: string; pid?: number; host?: string }

type ProcessLeases = {
  identity: LeaseIdentity
  /** When this process first wrote its lease to each file. */
  since: Map<string, number>
  /** Files whose lease the exit hook removes. */
  files: Map<string, PauseMarkerFile>
  exitHooked: boolean
}

const KEY = Symbol.for("opencode-auto-resume.pause-lease")

function processLeases(): ProcessLeases {
  const g = globalThis as Record<symbol, unknown>
  const known = g[KEY] as ProcessLeases | undefined
  if (known && known.since instanceof Map && known.files instanceof Map) return known
  const fresh: ProcessLeases = {
    identity: { id: `i${randomBytes(8).toString("hex")}`, pid: process.pid, host: safeHostname() },
    since: new Map(),
    files: new Map(),
    exitHooked: false,
  }
  g[KEY] = fresh
  return fresh
}

function safeHostname(): string | undefined {
  try {
    return os.hostname()
  } catch {
    return undefined
  }
}

export function processLeaseIdentity(): LeaseIdentity {
  return processLeases().identity
}

/** When this process's lease in `filePath` began: the first call's `now`, the same ever after. */
export function processLeaseSince(filePath: string, now: number): number {
  const { since } = processLeases()
  const known = since.get(filePath)
  if (known !== undefined) return known
  since.set(filePath, now)
  return now
}

/** Removes this process's lease from the file, now or never: a busy lock is not waited for. Never throws. */
export function leaveNow(file: PauseMarkerFile, id: string): boolean {
  try {
    // A file that is gone stays gone (a test's temp folder, a user who deleted it).
    if (!fs.existsSync(file.path)) return false
    return file.updateNow((s) => ({ ...s, leases: (s.leases ?? []).filter((l) => l.id !== id) }))
  } catch {
    return false
  }
}

/**
 * On a normal exit, take this process's lease out of every file it wrote, so another
 * OpenCode (or this one restarted) drops its pauses at once instead of when the lease lapses.
 * A process killed outright never gets here; its lease simply lapses.
 */
export function leaveOnExit(file: PauseMarkerFile): void {
  const leases = processLeases()
  leases.files.set(file.path, file)
  if (leases.exitHooked) return
  leases.exitHooked = true
  try {
    process.once("exit", () => {
      for (const f of leases.files.values()) leaveNow(f, leases.identity.id)
    })
  } catch {
    // No process events here: the lease lapses instead.
  }
}
