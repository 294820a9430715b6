/**
 * Which host is calling? OpenCode 1.x calls `server(input, options)`; 2.x calls `setup(ctx)`;
 * the 1.18 "v2 preview" loader calls `setup` too, with a ctx that has no session or event
 * API, and must get nothing from us or the plugin would run twice.
 */
import { asObj, get, str } from "./shape.ts"

export type V1InputCheck = { ok: true } | { ok: false; problem: string }

export function checkV1Input(input: unknown): V1InputCheck {
  const o = asObj(input)
  if (!o) return { ok: false, problem: "server() received no input object" }
  if (!o.serverUrl) return { ok: false, problem: "input.serverUrl is missing (not an OpenCode 1.x host?)" }
  const client = asObj(o.client)
  if (!client || !asObj(client.session) || typeof get(client, "session", "promptAsync") !== "function") {
    return { ok: false, problem: "input.client.session.promptAsync is missing" }
  }
  return { ok: true }
}

/** True only for a real 2.x host: it has an app version, a session API and an event stream. */
export function isRealV2Context(ctx: unknown): boolean {
  const o = asObj(ctx)
  if (!o) return false
  return str(get(o, "app", "version")) !== undefined && asObj(o.session) !== undefined && asObj(o.event) !== undefined
}
