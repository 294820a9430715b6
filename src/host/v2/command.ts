/**
 * `/auto-resume [on|off|status]` on OpenCode 2.x, registered through `ctx.command.transform`.
 *
 * `execute` returns nothing, which 2.x treats as an immediate command: it ends there and no
 * model turn runs. The reply goes through `reply(sessionID, text)`; by default that is
 * `ctx.session.synthetic({ ..., resume: false })` when the host has it (stored in the session,
 * does not wake it; note it does reach the model as context on the next turn), otherwise
 * nothing is shown. The v2 adapter may pass a quieter channel.
 */
import type { SessionStatus } from "../../core/status.ts"
import { PAUSE_COMMAND_DESCRIPTION, PAUSE_COMMAND_NAME } from "../../pause/command.ts"
import type { PauseControl } from "../../pause/file-pauses.ts"
import { runPauseCommand } from "../../pause/run-command.ts"
import { get, str } from "../shape.ts"

/** The slice of the 2.x command API this needs. */
export type V2CommandInvocation = { sessionID?: string; prompt?: { text?: string }; messageID?: string; delivery?: unknown }
export type V2CommandInfo = { name: string; description?: string; execute(invocation: V2CommandInvocation): Promise<undefined> }
export type V2CommandEditor = { add(info: V2CommandInfo): void }

export type V2PauseCommandDeps = {
  engine: { status(sessionID: string): SessionStatus | undefined }
  pauses: PauseControl
  log: (level: "debug" | "info" | "warn" | "error", message: string) => void
  now?: () => number
  /** Shows the reply to the user; defaults to a non-waking synthetic message when available. */
  reply?: (sessionID: string, text: string) => Promise<void> | void
}

export type Disposable = { dispose(): void }

/**
 * Registers the command. Resolves to the registration's disposer, or undefined when the host
 * has no `command.transform` or it failed (logged once). Never throws.
 */
export async function registerV2PauseCommand(ctx: unknown, deps: V2PauseCommandDeps): Promise<Disposable | undefined> {
  const transform = get(ctx, "command", "transform")
  const log = (level: "debug" | "info" | "warn" | "error", message: string) => {
    try {
      deps.log(level, message)
    } catch {
      // Nothing to do.
    }
  }
  if (typeof transform !== "function") {
    log("info", "/auto-resume is not available: this host has no command.transform")
    return undefined
  }
  const reply = deps.reply ?? defaultReply(ctx)
  const now = deps.now ?? Date.now

  const execute = async (invocation: V2CommandInvocation): Promise<undefined> => {
    try {
      const sessionID = str(get(invocation, "sessionID"))
      if (!sessionID) return undefined
      const args = str(get(invocation, "prompt", "text")) ?? ""
      const { text } = await runPauseCommand(sessionID, args, { pauses: deps.pauses, status: (id) => deps.engine.status(id), now })
      log("info", `session ${sessionID}: /auto-resume ${args.trim() || "status"}: ${text.split("\n")[0]}`)
      await reply(sessionID, text)
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
    const dispose = get(registration, "dispose")
    return {
      dispose: () => {
        try {
          if (typeof dispose === "function") dispose.call(registration)
        } catch {
          // Already gone.
        }
      },
    }
  } catch (error) {
    log("warn", `/auto-resume could not be registered: ${error instanceof Error ? error.message : String(error)}`)
    return undefined
  }
}

function defaultReply(ctx: unknown): (sessionID: string, text: string) => Promise<void> {
  return async (sessionID, text) => {
    const synthetic = get(ctx, "session", "synthetic")
    if (typeof synthetic !== "function") return
    await synthetic.call(get(ctx, "session"), {
      sessionID,
      text,
      description: "auto-resume",
      metadata: { autoResume: true, kind: "pause-command" },
      resume: false,
    })
  }
}
