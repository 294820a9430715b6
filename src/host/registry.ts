/**
 * The process-wide registry both adapters use to keep one live instance per slot. Hosts start
 * the plugin more than once (2.x hot reload without always disposing the previous instance; 1.x
 * once per plugin entry, and again when it re-creates a directory's instance), and claiming a
 * slot stops the previous holder. It sits on `globalThis` under a registered symbol, so two
 * copies of this module loaded from different paths share it.
 */

import { makeRoom } from "../core/bounded.ts"

const REGISTRY_KEY = Symbol.for("opencode-auto-resume/registry")
/** Slots per table; past it a slot nobody holds is forgotten to make room. */
export const MAX_SLOTS = 64

export type SlotHolder = { readonly serial: number; stop(reason: string): void }

export type HeldSlot = { readonly key: string; holder?: SlotHolder }

type Registry = { serial: number; tables: Map<string, Map<string, unknown>> }

function registry(): Registry {
  const store = globalThis as unknown as Record<symbol, Registry | undefined>
  let reg = store[REGISTRY_KEY]
  if (!reg || typeof reg.serial !== "number" || !(reg.tables instanceof Map)) {
    reg = { serial: 0, tables: new Map() }
    store[REGISTRY_KEY] = reg
  }
  return reg
}

/** The table named `name` (one per adapter, plus any other process-wide map). */
export function processTable<T>(name: string): Map<string, T> {
  const tables = registry().tables
  let table = tables.get(name)
  if (!(table instanceof Map)) {
    table = new Map()
    tables.set(name, table)
  }
  return table as Map<string, T>
}

/** The scope part of a slot key: the whole process unless `registryScope` names another. */
export function slotKey(scope: string | undefined): string {
  return scope === undefined ? `pid:${process.pid}` : `scope:${scope}`
}

/** Numbers instances across the process, for log lines ("instance #3"). */
export function nextSerial(): number {
  return ++registry().serial
}

/** The slot under `key` in `table`, made on first use; a full table drops one unheld slot. */
export function slotIn<S extends HeldSlot>(table: Map<string, S>, key: string, make: () => S): S {
  const found = table.get(key)
  if (found) return found
  makeRoom(table, MAX_SLOTS, (s) => !s.holder)
  const slot = make()
  table.set(key, slot)
  return slot
}

/** Makes `holder` the live instance of `slot`, stopping whoever held it before. */
export function claimSlot(slot: HeldSlot, holder: SlotHolder): void {
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

export function releaseSlot(slot: HeldSlot, holder: SlotHolder): void {
  if (slot.holder === holder) slot.holder = undefined
}
