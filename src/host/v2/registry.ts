/**
 * The 2.x adapter's slots in the process-wide registry (../registry.ts): one live instance per
 * location (directory, plus workspace where there is one). A `setup` for another location must
 * not stop the first, but hot reload re-runs `setup` for the same location without always
 * disposing the previous instance, and two live instances there send the same prompt
 * milliseconds apart, so claiming a location's slot stops its previous holder. What must hold
 * across every instance of a scope is shared, not per slot (own sends, the send log, synthetic
 * refusals, seen user messages, step setups): session ids are unique across locations, so an
 * event that reaches two locations' instances still gets one send.
 */
import { MAX_SLOTS, processTable, slotIn } from "../registry.ts"
import { BoundedMap, makeRoom } from "../../core/bounded.ts"
import { SendLog } from "../send-log.ts"
import { OwnSends, SeenMessages } from "./user-turns.ts"
import type { InstanceSlot } from "../instance.ts"
import type { TurnSetup } from "../../core/port.ts"
import type { FileLog } from "./file-log.ts"
import type { V2Location } from "./context.ts"

const MAX_STEP_SETUPS = 1000

export type Slot = InstanceSlot & {
  readonly own: OwnSends
  readonly sendLog: SendLog
  readonly syntheticRefused: Set<string>
  readonly seen: SeenMessages
  /** The agent/model each session's last step ran with (from `session.step.started`). */
  readonly stepSetups: Map<string, TurnSetup>
}

/** The part of a slot every location of one scope shares. */
type ScopeShared = Pick<Slot, "own" | "sendLog" | "syntheticRefused" | "seen" | "stepSetups">

const slots = () => processTable<Slot>("v2-slots")
const scopes = () => processTable<ScopeShared>("v2-scopes")

/** A trailing separator does not make another directory (the event filter agrees). */
function trimDirectory(directory: string): string {
  return directory.length > 1 ? directory.replace(/[\\/]+$/, "") : directory
}

/** The slot key for a scope and a location; no location at all means the scope alone. */
export function v2SlotKey(scopeKey: string, location: V2Location | undefined): string {
  const directory = location?.directory ? trimDirectory(location.directory) : undefined
  const workspace = location?.workspaceID
  if (directory === undefined && workspace === undefined) return scopeKey
  // JSON keeps a directory holding "|" from colliding with another directory plus a workspace.
  return `${scopeKey}|loc:${JSON.stringify([directory ?? null, workspace ?? null])}`
}

function scopeShared(scopeKey: string): ScopeShared {
  const table = scopes()
  let shared = table.get(scopeKey)
  if (!shared) {
    shared = {
      own: new OwnSends(),
      sendLog: new SendLog(),
      syntheticRefused: new Set<string>(),
      seen: new SeenMessages(),
      stepSetups: new BoundedMap<string, TurnSetup>(MAX_STEP_SETUPS, { refresh: true }),
    }
    // One scope per process in production; past the cap (tests) one nobody runs in is forgotten.
    makeRoom(table, MAX_SLOTS, (_, candidate) => !scopeInUse(candidate))
    table.set(scopeKey, shared)
  }
  return shared
}

function scopeInUse(scopeKey: string): boolean {
  for (const slot of slots().values()) {
    if (slot.holder && (slot.key === scopeKey || slot.key.startsWith(`${scopeKey}|loc:`))) return true
  }
  return false
}

/** The location's slot in `scopeKey`, carrying the scope-wide shared records. */
export function getSlot(scopeKey: string, location?: V2Location): Slot {
  const key = v2SlotKey(scopeKey, location)
  return slotIn(slots(), key, () => ({ key, ...scopeShared(scopeKey) }))
}

/** One writer per log file per process, however many instances come and go. */
export function sharedFileLog(path: string, make: () => FileLog): FileLog {
  const logs = processTable<FileLog>("v2-file-logs")
  let log = logs.get(path)
  if (!log) {
    log = make()
    if (logs.size < MAX_SLOTS) logs.set(path, log)
  }
  return log
}

