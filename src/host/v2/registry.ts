/**
 * The 2.x adapter's slots in the process-wide registry (../registry.ts): one live instance
 * per slot. 2.x hot reload re-runs `setup` without always disposing the previous instance,
 * and two live instances send the same prompt milliseconds apart, so claiming a slot stops
 * the previous holder, timers, subscription and all. The slot is keyed by pid unless
 * `registryScope` picks another one (tests use that to run isolated instances side by side).
 *
 * The slot also holds what must outlive an instance: the record of our own sends, the send
 * log behind `injectIntervalMs`, the user messages already classified, and (for
 * `shareWatchState`) the last instance's session watch state.
 */
import { MAX_SLOTS, processTable, slotIn, type HeldSlot } from "../registry.ts"
import { SendLog } from "../send-log.ts"
import { OwnSends, SeenMessages } from "./user-turns.ts"
import type { WatchSnapshot } from "./watch-state.ts"
import type { TurnSetup } from "../port.ts"
import type { FileLog } from "./file-log.ts"

export { claimSlot, nextSerial, releaseSlot, slotKey, type SlotHolder } from "../registry.ts"

const MAX_STEP_SETUPS = 1000

export type Slot = HeldSlot & {
  readonly own: OwnSends
  readonly sendLog: SendLog
  readonly syntheticRefused: Set<string>
  readonly seen: SeenMessages
  /** The agent/model each session's last step ran with (from `session.step.started`). */
  readonly stepSetups: Map<string, TurnSetup>
  /** Left by the previous holder when it stopped; taken by the next one. */
  watch?: WatchSnapshot
}

const slots = () => processTable<Slot>("v2-slots")

export function getSlot(key: string): Slot {
  return slotIn(slots(), key, () => ({
    key,
    own: new OwnSends(),
    sendLog: new SendLog(),
    syntheticRefused: new Set<string>(),
    seen: new SeenMessages(),
    stepSetups: new Map<string, TurnSetup>(),
  }))
}

export function rememberStepSetup(slot: Slot, sessionID: string, setup: TurnSetup): void {
  slot.stepSetups.delete(sessionID)
  if (slot.stepSetups.size >= MAX_STEP_SETUPS) {
    const oldest = slot.stepSetups.keys().next()
    if (!oldest.done) slot.stepSetups.delete(oldest.value)
  }
  slot.stepSetups.set(sessionID, setup)
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

/** Test helper: forgets a slot entirely (its holder is not stopped). */
export function dropSlot(key: string): void {
  slots().delete(key)
}
