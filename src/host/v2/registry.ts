/**
 * One live instance per process.
 *
 * 2.x hot reload re-runs `setup` without always disposing the previous instance, and two live
 * instances send the same prompt milliseconds apart. Every instance therefore claims a
 * process-wide slot (on `globalThis`, under a registered symbol, so even two copies of this
 * module loaded from different paths find the same registry): claiming stops the previous
 * holder, timers, subscription and all. The slot is keyed by pid unless `registryScope` picks
 * another one (tests use that to run isolated instances side by side).
 *
 * The slot also holds what must outlive an instance: the record of our own sends, the send
 * log behind `injectIntervalMs`, the user messages already classified, and (for
 * `shareWatchState`) the last instance's session watch state.
 */
import { SendLog } from "./port.ts"
import { OwnSends, SeenMessages } from "./user-turns.ts"
import type { WatchSnapshot } from "./watch-state.ts"
import type { TurnSetup } from "../port.ts"
import type { FileLog } from "./file-log.ts"

const REGISTRY_KEY = Symbol.for("opencode-auto-resume/v2-registry")
const MAX_SLOTS = 64
const MAX_STEP_SETUPS = 1000

export type SlotHolder = { readonly serial: number; stop(reason: string): void }

export type Slot = {
  readonly key: string
  holder?: SlotHolder
  readonly own: OwnSends
  readonly sendLog: SendLog
  readonly syntheticRefused: Set<string>
  readonly seen: SeenMessages
  /** The agent/model each session's last step ran with (from `session.step.started`). */
  readonly stepSetups: Map<string, TurnSetup>
  /** Left by the previous holder when it stopped; taken by the next one. */
  watch?: WatchSnapshot
}

type Registry = { slots: Map<string, Slot>; serial: number; logs: Map<string, FileLog> }

function registry(): Registry {
  const store = globalThis as unknown as Record<symbol, Registry | undefined>
  let reg = store[REGISTRY_KEY]
  if (!reg || !(reg.slots instanceof Map)) {
    reg = { slots: new Map(), serial: 0, logs: new Map() }
    store[REGISTRY_KEY] = reg
  }
  return reg
}

export function slotKey(scope: string | undefined): string {
  return scope === undefined ? `pid:${process.pid}` : `scope:${scope}`
}

export function getSlot(key: string): Slot {
  const reg = registry()
  let slot = reg.slots.get(key)
  if (slot) return slot
  if (reg.slots.size >= MAX_SLOTS) {
    for (const [k, s] of reg.slots) {
      if (!s.holder) {
        reg.slots.delete(k)
        break
      }
    }
  }
  slot = {
    key,
    own: new OwnSends(),
    sendLog: new SendLog(),
    syntheticRefused: new Set(),
    seen: new SeenMessages(),
    stepSetups: new Map(),
  }
  reg.slots.set(key, slot)
  return slot
}

export function nextSerial(): number {
  return ++registry().serial
}

/** Makes `holder` the live instance of `slot`, stopping whoever held it before. */
export function claimSlot(slot: Slot, holder: SlotHolder): void {
  const previous = slot.holder
  slot.holder = holder
  if (previous && previous !== holder) {
    try {
      previous.stop(`superseded by instance #${holder.serial}`)
    } catch {
      // A broken old instance must not keep the new one from starting.
    }
  }
}

/** Frees the slot if `holder` still owns it. */
export function releaseSlot(slot: Slot, holder: SlotHolder): void {
  if (slot.holder === holder) slot.holder = undefined
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
  const logs = registry().logs
  let log = logs.get(path)
  if (!log) {
    log = make()
    if (logs.size < MAX_SLOTS) logs.set(path, log)
  }
  return log
}

/** Test helper: forgets a slot entirely (its holder is not stopped). */
export function dropSlot(key: string): void {
  registry().slots.delete(key)
}
