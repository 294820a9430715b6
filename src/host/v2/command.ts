/**
 * `/auto-resume [on|off|status]` on OpenCode 2.x, registered through `ctx.command.transform`.
 * `execute` returns nothing, which 2.x treats as an immediate command: no model turn runs, so
 * pausing costs no model call and cannot itself be taken for a stall.
 * The documented 2.x ctx gives a plugin no toast, no visible log and no command output, so the
 * reply is a non-waking `ctx.session.synthetic({ ..., resume: false })`, kept short because the
 * model reads it on the next turn. Without `synthetic`, or where this session's provider already
 * refused one, the reply goes to the log file alone; the pause is applied either way.
 */
import type { TimeSource } from "../../core/clock.ts"
import { withTimeout } from "../../core/host-calls.ts"
import { PAUSE_COMMAND_DESCRIPTION, PAUSE_COMMAND_NAME } from "../../pause/command.ts"
import { answerPauseCommand, quietLog, type PauseCommandHost } from "../pause-command.ts"
import { get, str } from "../shape.ts"
import { safeDisposer } from "./context.ts"

/** The slice of the 2.x command API this needs. */
export type V2CommandInvocation = { sessionID?: string; prompt?: { text?: string }; messageID?: string; delivery?: unknown }
export type V2CommandInfo = { name: string; description?: string; execute(invocation: V2CommandInvocation): Promise<undefined> }
export type V2CommandEditor = { add(info: V2CommandInfo): void }

export type V2PauseCommandDeps = PauseCommandHost & {
  /** Shows the reply to the user; defaults to a non-waking synthetic message when available. */
  reply?: (sessionID: string, text: string) => Promise<void> | void
  /** Sessions whose provider refused a synthetic message: the default reply only logs for them. */
  syntheticRefused?: ReadonlySet<string>
  /** Bounds the reply (a host call): with both, a reply that does not settle in time is given up. */
  time?: TimeSource
  timeoutMs?: () => number
}

export type Disposable = { dispose(): void }

export const PAUSE_REPLY_KIND = "pause-command"

/**
 * True for a stored message or inbox item that is one of our command's replies. It is neither
 * the user writing nor a recovery prompt of ours landing (taking it for one would end the wait
 * on a prompt still on its way), so the user-turn watcher passes over it.
 */
export function isPauseReply(value: unknown): boolean {
  return get(value, "metadata", "kind") === PAUSE_REPLY_KIND || get(value, "payload", "metadata", "kind") === PAUSE_REPLY_KIND
}

/**
 * Registers the command. Resolves to the registration's disposer, or undefined when the host
 * has no `command.transform` or it failed (logged once). Never throws.
 */
export async function registerV2PauseCommand(ctx: unknown, deps: V2PauseCommandDeps): Promise<Disposable | undefined> {
  const transform = get(ctx, "command", "transform")
  const log = quietLog(deps.log)
  if (typeof transform !== "function") {
    log("info", "/auto-resume is not available: this host has no command.transform")
    return undefined
  }
  const reply = deps.reply ?? syntheticReply(ctx, deps.syntheticRefused)
  const { time, timeoutMs } = deps
  const send = (sessionID: string, text: string): Promise<void> =>
    time && timeoutMs
      ? withTimeout(time, timeoutMs(), "/auto-resume reply", async () => reply(sessionID, text))
      : Promise.resolve().then(() => reply(sessionID, text))

  const execute = async (invocation: V2CommandInvocation): Promise<undefined> => {
    try {
      const sessionID = str(get(invocation, "sessionID"))
      if (!sessionID) return undefined
      const args = str(get(invocation, "prompt", "text")) ?? ""
      await send(sessionID, await answerPauseCommand(deps, sessionID, args))
    } catch (error) {
      log("warn", `/auto-resume failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    // Nothing returned: an immediate command, no model turn.
    return undefined
  }

  try {
    const registration = await Promise.resolve(
      transform.call(get(ctx, "command"), (editor: V2CommandEditor) => {
        editor.add({ name: PAUSE_COMMAND_NAME, description: PAUSE_COMMAND_DESCRIPTION, execute })
      }),
    )
    return safeDisposer(registration)
  } catch (error) {
    log("warn", `/auto-resume could not be registered: ${error instanceof Error ? error.message : String(error)}`)
    return undefined
  }
}

/** The default answer channel (see the top of this file); the log line is written either way. */
export function syntheticReply(ctx: unknown, refused?: ReadonlySet<string>): (sessionID: string, text: string) => Promise<void> {
  return async (sessionID, text) => {
    const synthetic = get(ctx, "session", "synthetic")
    if (typeof synthetic !== "function" || refused?.has(sessionID)) return
    await synthetic.call(get(ctx, "session"), {
      sessionID,
      text,
      description: "auto-resume",
      metadata: { autoResume: true, kind: PAUSE_REPLY_KIND },
      resume: false,
    })
  }
}
