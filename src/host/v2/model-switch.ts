/**
 * Fallback models on 2.x, where the model belongs to the session: a prompt on a fallback model
 * switches the session first (`session.switchModel`, feature-detected; its argument is the
 * model as 2.x spells it in messages, `{ providerID, id }`), and `restore` puts a session this
 * port switched back on the user's model. The 2.x prompt takes no model (its input is id, text,
 * files, agents, skills, metadata, delivery, resume), so a host without switchModel cannot run a
 * continue on another model: the send is refused, and the core keeps the usual wait or give-up
 * instead of announcing a switch that would not happen.
 *
 * The restore leaves a session alone whose model is no longer the one switched to: the user
 * picked another model meanwhile, and their choice wins.
 */
import { BoundedMap } from "../../core/bounded.ts"
import type { ModelRef, SendRequest } from "../../core/port.ts"
import { get, str } from "../shape.ts"
import { callCtx, hasMethod, unwrapData } from "./context.ts"

/** Sessions remembered as switched; past this the oldest is forgotten (it is only a restore). */
const MAX_SWITCHED_SESSIONS = 1000

const wire = (model: ModelRef) => ({ providerID: model.providerID, id: model.modelID })

export function createModelSwitch(ctx: unknown) {
  /** Sessions this port switched, and the model each was switched to. */
  const switched = new BoundedMap<string, ReturnType<typeof wire>>(MAX_SWITCHED_SESSIONS)

  /** Whether the host says the session now runs on another model than `ours` (unknown: no). */
  async function movedOn(sessionID: string, ours: ReturnType<typeof wire>): Promise<boolean> {
    if (!hasMethod(ctx, "session", "get")) return false
    try {
      const info = unwrapData(await callCtx(ctx, "session", "get", { sessionID }))
      const id = str(get(info, "model", "id")) ?? str(get(info, "model", "modelID"))
      const providerID = str(get(info, "model", "providerID"))
      return id !== undefined && providerID !== undefined && (id !== ours.id || providerID !== ours.providerID)
    } catch {
      return false
    }
  }

  return {
    /** Switches the session when `request` goes out on a fallback model; returns extra prompt fields. */
    async select(request: SendRequest): Promise<Record<string, unknown>> {
      const model = request.setup?.model
      if (!request.onFallback || !model) return {}
      if (!hasMethod(ctx, "session", "switchModel")) throw new Error("this host has no session.switchModel: the continue cannot go out on another model")
      await callCtx(ctx, "session", "switchModel", { sessionID: request.sessionID, model: wire(model) })
      switched.set(request.sessionID, wire(model))
      return {}
    },
    /** Only a session switched here goes back; the others never left the user's model. */
    async restore(sessionID: string, model: ModelRef): Promise<void> {
      const ours = switched.get(sessionID)
      if (!ours || !hasMethod(ctx, "session", "switchModel")) return
      switched.delete(sessionID)
      if (await movedOn(sessionID, ours)) return
      await callCtx(ctx, "session", "switchModel", { sessionID, model: wire(model) })
    },
  }
}
