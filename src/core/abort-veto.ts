/**
 * The last look before any abort: the newest assistant message, read once from the host.
 *
 * The plugin tracks open tool calls from events, and the guards in actions.ts refuse an abort
 * while one runs. Events can miss a call: one that started before the plugin loaded (a reload
 * mid-run), or whose start event was lost. The host's own record still shows it as `pending`
 * or `running`, and aborting then would kill the user's build or test run. Calls the plugin does
 * track are left to its own guards (they carry the deliberate exceptions: a wedged tool past the
 * ceiling, a proven live loop, an orphan parent's subagent call), so only untracked ones veto.
 */
import type { EngineContext } from "./context.ts"
import { withTimeout } from "./host-calls.ts"
import { errorText } from "./logger.ts"
import type { SessionState } from "./session-state.ts"
import type { TranscriptMessage, TranscriptToolPart } from "./transcript.ts"

/** Enough history to reach the newest assistant message past a user prompt or two after it. */
const VETO_LOOKBACK_MESSAGES = 4

/** A tool part the newest assistant message still shows as open, whose call the plugin does not track. */
function untrackedOpenTool(messages: readonly TranscriptMessage[], tracked: ReadonlySet<string>): TranscriptToolPart | undefined {
  let newest: TranscriptMessage | undefined
  for (let i = messages.length - 1; i >= 0 && !newest; i--) if (messages[i]?.role === "assistant") newest = messages[i]
  const parts = Array.isArray(newest?.parts) ? newest.parts : []
  for (const part of parts) {
    if (part?.kind !== "tool" || tracked.has(part.callID)) continue
    if (part.status === "pending" || part.status === "running") return part
  }
  return undefined
}

/**
 * Why an abort must not go out now, or undefined when the look found nothing open. Never
 * throws; bounded by sendTimeoutMs. A history that cannot be read vetoes too: the look exists
 * because the plugin's own tracking may be wrong, and a late recovery costs less than a killed
 * tool (the stall is looked at again on the next check).
 */
export async function abortVeto(ctx: EngineContext, state: SessionState): Promise<string | undefined> {
  let messages: unknown
  try {
    const timeoutMs = ctx.effective(state).sendTimeoutMs
    messages = await withTimeout(ctx.time, timeoutMs, "read newest assistant message", () => ctx.port.readMessages(state.id, VETO_LOOKBACK_MESSAGES))
  } catch (error) {
    return `the newest assistant message could not be read (${errorText(error)}), so a tool may still be running`
  }
  if (!Array.isArray(messages)) return "the newest assistant message could not be read (not a message list), so a tool may still be running"
  const open = untrackedOpenTool(messages as TranscriptMessage[], new Set(state.openTools.keys()))
  return open ? `tool "${open.tool}" (${open.callID}) is still ${open.status} in the newest assistant message` : undefined
}
