/**
 * The 1.x adapter's slots in the process-wide registry (../registry.ts), one live engine per
 * (registry scope, directory): 1.x calls `server()` once per plugin entry for every directory, so a
 * plugin listed twice would answer each stall twice, and again when it re-creates a directory's
 * instance. The slot keeps what must outlive an instance: the send log and the watch state.
 */
import type { InstanceSlot } from "../instance.ts"
import { processTable, slotIn, slotKey } from "../registry.ts"
import { SendLog } from "../send-log.ts"

/** A live 1.x instance's engine answers the task_complete calls of the instances it superseded. */
export type V1Slot = InstanceSlot & { readonly sendLog: SendLog }

const slots = () => processTable<V1Slot>("v1-slots")

export function v1SlotKey(scope: string | undefined, directory: string): string {
  return `${slotKey(scope)}|dir:${directory}`
}

/**
 * The slot for this scope and directory. Without a directory (not a real 1.x input: the host
 * always passes one) two calls cannot be told to be the same project, so the instance gets a
 * slot of its own that nothing else can claim.
 */
export function getV1Slot(scope: string | undefined, directory: string | undefined): V1Slot {
  const make = (key: string): V1Slot => ({ key, sendLog: new SendLog() })
  if (directory === undefined || directory === "") return make(`${slotKey(scope)}|standalone`)
  const key = v1SlotKey(scope, directory)
  return slotIn(slots(), key, () => make(key))
}

