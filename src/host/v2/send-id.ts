/**
 * Message ids of our own for 2.x sends. `session.prompt`/`synthetic` accept a caller-chosen id
 * and refuse a second send with the same one (a ConflictError), so two live instances of the
 * plugin (a reload that left the old one running, the plugin loaded for a second location)
 * that decide the same recovery from the same history land it once. The id is derived from
 * what both instances share: the session, the recovery path, the recovery count, and the
 * newest message the session showed before the send (so the next recovery, made after ours
 * landed or the model answered, gets another id). Without that message no id is given: a
 * guess shared by two different recoveries would swallow the second.
 */
import { get, str } from "../shape.ts"

/** The host's message ids start with `msg_` (its schema refuses anything else). */
const PREFIX = "msg_autoresume_"

/** FNV-1a over the UTF-16 code units, 52 bits (exact in a double), as base 36. */
function hash(text: string): string {
  let h = 0xcbf29ce484222325n & 0xfffffffffffffn
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i))
    h = (h * 0x100000001b3n) & 0xfffffffffffffn
  }
  return h.toString(36).padStart(11, "0")
}

export function ownMessageID(sessionID: string, path: string | undefined, attempt: number | undefined, newestMessageID: string | undefined): string | undefined {
  if (!newestMessageID) return undefined
  return PREFIX + hash([sessionID, path ?? "", String(attempt ?? 0), newestMessageID].join("\u0000"))
}

/** The host refused a send because its id is taken: the message is already in the session. */
export function isConflict(error: unknown): boolean {
  const name = str(get(error, "_tag")) ?? str(get(error, "name"))
  return name === "ConflictError" || get(error, "status") === 409
}
