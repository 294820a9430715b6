/**
 * `/auto-resume [on|off|status]` on OpenCode 1.x: registered by the `config` hook, handled in
 * `command.execute.before`. 1.18 runs every command as a model turn after that hook
 * (command-model.ts, test/e2e/HOST-NOTES.md), so:
 * - idle session: the command's message becomes one hidden text part holding the reply, switched
 *   to the in-process reply model; no provider is contacted, and both messages are dropped from
 *   later model requests.
 * - busy session (or no reply model): a queued command message would be picked up by the running
 *   turn, so the action is applied, the reply shown as a toast, and the hook throws to stop the
 *   command (the HTTP call answers 500, which the TUI does not display).
 * The one deliberate throw (CommandHandledStop) must reach the host: do not wrap
 * `command.execute.before` in a guard that swallows errors.
 */
import type { Hooks } from "@opencode-ai/plugin"
import { PAUSE_COMMAND_DESCRIPTION, PAUSE_COMMAND_NAME } from "../../pause/command.ts"
import { answerPauseCommand, quietLog, type PauseCommandHost } from "../pause-command.ts"
import { asObj, get, str } from "../shape.ts"
import {
  COMMAND_PART_KIND,
  REPLY_MODEL_ID,
  REPLY_PROVIDER_ID,
  commandPromptText,
  dropCommandExchanges,
  isCommandPart,
  registerReplyProvider,
} from "./command-model.ts"
import { OWN_PROMPT_METADATA } from "./port.ts"
import type { ModelRef } from "../../core/port.ts"
import { isStandIn, modelRef, newestRealModel, REAL_MODEL_HISTORY_LIMIT, RealModels } from "./stand-in-model.ts"

/** Bound on the host calls made while handling the command (busy check, toast). */
const HOST_CALL_TIMEOUT_MS = 1_500
const TOAST_DURATION_MS = 8_000

/** Thrown on purpose to stop OpenCode from turning the command into a model turn. */
export class CommandHandledStop extends Error {
  override readonly name = "CommandHandledStop"
}

export type V1CommandHooksDeps = PauseCommandHost & {
  /** The v1 SDK client from the plugin input: `session.status` and `tui.showToast`. */
  client?: unknown
  /** The sessions' real models (the adapter forgets a session here when the engine drops it). */
  realModels?: RealModels
}

export type V1CommandHooks = Required<Pick<Hooks, "config" | "command.execute.before" | "chat.message" | "experimental.chat.messages.transform">>

export function createV1CommandHooks(deps: V1CommandHooksDeps): V1CommandHooks {
  let replyModelReady = false
  const realModels = deps.realModels ?? new RealModels()
  const log = quietLog(deps.log)

  return {
    config: async (config: unknown) => {
      try {
        const cfg = asObj(config)
        if (!cfg) return
        const commands = asObj(cfg.command) ?? {}
        commands[PAUSE_COMMAND_NAME] = { template: "/auto-resume $ARGUMENTS", description: PAUSE_COMMAND_DESCRIPTION }
        cfg.command = commands
        replyModelReady = registerReplyProvider(cfg)
        if (!replyModelReady) log("info", `/auto-resume: provider "${REPLY_PROVIDER_ID}" is disabled in the config; the command will answer with a toast only`)
      } catch (error) {
        log("warn", `/auto-resume could not be registered: ${errorText(error)}`)
      }
    },

    "command.execute.before": async (input: unknown, output: unknown) => {
      if (str(get(input, "command")) !== PAUSE_COMMAND_NAME) return
      const sessionID = str(get(input, "sessionID"))
      const parts = get(output, "parts")
      if (!sessionID || !Array.isArray(parts)) return
      const args = typeof get(input, "arguments") === "string" ? (get(input, "arguments") as string) : ""

      const reply = await answerPauseCommand(deps, sessionID, args)

      const busy = await isBusy(sessionID).catch(() => false)
      if (replyModelReady && !busy) {
        const part = { type: "text", text: commandPromptText(args, reply), synthetic: true, metadata: { ...OWN_PROMPT_METADATA, kind: COMMAND_PART_KIND } }
        parts.splice(0, parts.length, part)
        return
      }
      await toast(reply)
      throw new CommandHandledStop(
        `auto-resume: /auto-resume ${args.trim() || "status"} was handled without a model turn (${busy ? "the session is busy" : "no reply model"}); this error only stops the command from reaching the model`,
      )
    },

    "chat.message": async (input: unknown, output: unknown) => {
      try {
        if (!replyModelReady) return
        const parts = get(output, "parts")
        const message = asObj(get(output, "message"))
        if (Array.isArray(parts) && parts.some(isCommandPart)) {
          if (message) message.model = { providerID: REPLY_PROVIDER_ID, modelID: REPLY_MODEL_ID }
          return
        }
        const sessionID = str(get(input, "sessionID")) ?? str(message?.sessionID)
        const model = modelRef(message?.model) ?? modelRef(get(input, "model"))
        if (!sessionID || !message) return
        if (!isStandIn(model)) return realModels.note(sessionID, model)
        // A prompt aimed at the stand-in (the UI restored it from the command's message): back
        // to the session's real model, or the stand-in answers that it cannot chat.
        const real = realModels.get(sessionID) ?? (await storedRealModel(sessionID))
        if (!real) return
        message.model = real
        log("info", `session ${sessionID}: a prompt went to the /auto-resume reply model; sent to ${real.providerID}/${real.modelID} instead`)
      } catch (error) {
        log("debug", `/auto-resume: chat.message hook failed: ${errorText(error)}`)
      }
    },

    "experimental.chat.messages.transform": async (_input: unknown, output: unknown) => {
      try {
        dropCommandExchanges(get(output, "messages"))
      } catch (error) {
        log("debug", `/auto-resume: messages.transform hook failed: ${errorText(error)}`)
      }
    },
  } as V1CommandHooks

  /** `client.<area>.<name>(...args)` with its receiver, bounded: undefined when absent, failed or late. A synchronous throw rejects. */
  async function callClient(area: string, name: string, ...args: unknown[]): Promise<unknown> {
    const owner = get(deps.client, area)
    const fn = get(owner, name)
    return typeof fn === "function" ? bounded(Promise.resolve(fn.apply(owner, args))) : undefined
  }

  async function storedRealModel(sessionID: string): Promise<ModelRef | undefined> {
    return newestRealModel(get(await callClient("session", "messages", { path: { id: sessionID }, query: { limit: REAL_MODEL_HISTORY_LIMIT } }), "data"))
  }

  async function isBusy(sessionID: string): Promise<boolean> {
    if (deps.engine.status(sessionID)?.busy) return true
    const type = str(get(await callClient("session", "status"), "data", sessionID, "type"))
    return type !== undefined && type !== "idle"
  }

  async function toast(message: string): Promise<void> {
    try {
      await callClient("tui", "showToast", { body: { title: "auto-resume", message, variant: "info", duration: TOAST_DURATION_MS } })
    } catch {
      // No TUI attached, or it failed: the log line above still has the reply.
    }
  }
}

/** Runs `extra`'s hooks after `base`'s for every hook both define; errors from `extra` propagate. */
export function composeHooks(base: Hooks, extra: Partial<Hooks>): Hooks {
  const merged: Record<string, unknown> = { ...base }
  for (const [name, fn] of Object.entries(extra)) {
    const first = (base as Record<string, unknown>)[name]
    if (typeof fn !== "function" || typeof first !== "function") {
      merged[name] = fn
      continue
    }
    merged[name] = async (...args: unknown[]) => {
      await first(...args)
      await (fn as (...a: unknown[]) => unknown)(...args)
    }
  }
  return merged as Hooks
}

function bounded<T>(promise: Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), HOST_CALL_TIMEOUT_MS)
  })
  return Promise.race([promise.catch(() => undefined), timeout]).finally(() => clearTimeout(timer))
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
