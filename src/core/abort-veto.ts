/**
 * The last look before any abort: the newest assistant message, read once from the host.
 * Events can miss a tool call (started before a reload, a lost start event) that the host still
 * shows as `pending` or `running`; aborting then would kill the user's build or test run. Only
 * untracked calls veto: tracked ones carry the guards' deliberate exceptions.
 */
import type { EngineContext } from "./context.ts"
import { withTimeout } from "./host-calls.ts"
import { errorText } from "./logger.ts"
import type { SessionState } from "./session-state.ts"
import type { TranscriptMessage, TranscriptToolPart } from "./transcript.ts"

/** Enough history to reach the newest assistant message past a user prompt or two after it. */
const VETO_LOOKBACK_MESSAGES = 4

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

/** How a veto for an unreadable history begins (the stall's next look backs off on it). */
export const UNREAD_HISTORY_VETO = "the newest assistant message could not be read"

/** An unreadable history vetoes too: a late recovery costs less than a killed tool. */
export async function abortVeto(ctx: EngineContext, state: SessionState): Promise<string | undefined> {
  let messages: unknown
  try {
    const timeoutMs = ctx.effective(state).sendTimeoutMs
    messages = await withTimeout(ctx.time, timeoutMs, "read newest assistant message", () => ctx.port.readMessages(state.id, VETO_LOOKBACK_MESSAGES))
  } catch (error) {
    return `${UNREAD_HISTORY_VETO} (${errorText(error)}), so a tool may still be running`
  }
  if (!Array.isArray(messages)) return `${UNREAD_HISTORY_VETO} (not a message list), so a tool may still be running`
  const open = untrackedOpenTool(messages as TranscriptMessage[], new Set(state.openTools.keys()))
  return open ? `tool "${open.tool}" (${open.callID}) is still ${open.status} in the newest assistant message` : undefined
}
