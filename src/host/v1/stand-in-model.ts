/**
 * Taking a session back from the /auto-resume reply model (command-model.ts). OpenCode's terminal
 * UI restores a session's model from its newest user message, so after `/auto-resume status` the
 * next prompt would go to a "model" that cannot chat: a non-command message aimed at the stand-in
 * is pointed back at the session's last real model (seen in this process, else the newest in the
 * stored history).
 */
import { BoundedMap } from "../../core/bounded.ts"
import type { ModelRef } from "../../core/port.ts"
import { asObj, get, str } from "../shape.ts"
import { modelOf } from "../normalize.ts"
import { REPLY_PROVIDER_ID } from "./command-model.ts"

const MAX_REMEMBERED_SESSIONS = 1000
/** How many stored messages are searched for a real model after a restart. */
export const REAL_MODEL_HISTORY_LIMIT = 20

export function modelRef(value: unknown): ModelRef | undefined {
  return modelOf(str(get(value, "providerID")), str(get(value, "modelID")))
}

export function isStandIn(model: ModelRef | undefined): boolean {
  return model?.providerID === REPLY_PROVIDER_ID
}

/** The newest real model in a 1.x history listing (user `info.model`, assistant `info.providerID/modelID`). */
export function newestRealModel(messages: unknown): ModelRef | undefined {
  if (!Array.isArray(messages)) return undefined
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = asObj(get(messages[i], "info"))
    const model = modelRef(info?.role === "user" ? info.model : info)
    if (model && !isStandIn(model)) return model
  }
  return undefined
}

/** The last real model of each session seen in this process, bounded (oldest session forgotten first). */
export class RealModels extends BoundedMap<string, ModelRef> {
  constructor() {
    super(MAX_REMEMBERED_SESSIONS, { refresh: true })
  }

  note(sessionID: string, model: ModelRef | undefined): void {
    if (model && !isStandIn(model)) this.set(sessionID, model)
  }

  /** The engine dropped the session: so does this memory (it is bounded, and must not outlive it). */
  forget(sessionID: string): void {
    this.delete(sessionID)
  }
}
