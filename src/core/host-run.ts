/**
 * Whether the host still runs a session, asked once a stall is decided; the answer picks the
 * cure (paths/stall/ladder.ts `stallActionFor`). 1.x lists only sessions that are not idle.
 */
import type { EngineContext } from "./context.ts"
import { withTimeout } from "./host-calls.ts"
import { errorText } from "./logger.ts"
import type { SessionState } from "./session-state.ts"

/** "unknown": the host did not answer in time, failed, or answered something that is not a listing. */
export type HostRun = { state: "live" | "stopped" | "unknown"; detail?: string }

/** Listings longer than this are not searched: the host is misbehaving, the answer is unknown. */
const MAX_LISTED = 1000

/** Never throws; bounded by sendTimeoutMs. */
export async function askHostRun(ctx: EngineContext, state: SessionState): Promise<HostRun> {
  let listed: unknown
  try {
    const timeoutMs = ctx.effective(state).sendTimeoutMs
    listed = await withTimeout(ctx.time, timeoutMs, "list running sessions", () => ctx.port.listBusySessions())
  } catch (error) {
    return { state: "unknown", detail: errorText(error) }
  }
  if (!Array.isArray(listed) || listed.length > MAX_LISTED) return { state: "unknown", detail: "the listing is not a list of session ids" }
  return { state: listed.includes(state.id) ? "live" : "stopped" }
}
