/**
 * The OpenCode 1.x adapter: hooks and events in, signals to the core; the SDK client out.
 * Every hook is wrapped so that nothing we do can throw into the host.
 */
import type { Hooks } from "@opencode-ai/plugin"
import type { TimeSource } from "../../core/clock.ts"
import { RecoveryEngine } from "../../core/engine.ts"
import type { PauseSource } from "../../core/pauses.ts"
import { errorText } from "../../core/logger.ts"
import { resolveOptions } from "../../options/index.ts"
import { realTime } from "../real-time.ts"
import { get, str } from "../shape.ts"
import type { HostPort, TurnSetup } from "../port.ts"
import { startupLine } from "../startup.ts"
import { MessageRoles, mapV1Event } from "./events.ts"
import { createV1Port, isOwnPromptPart, type V1Client } from "./port.ts"
import { TASK_COMPLETE_DESCRIPTION, TASK_COMPLETE_TOOL } from "../../prompts/task-complete-tool.ts"
import { FilePauses, isPauseControl } from "../../pause/file-pauses.ts"
import { pauseFilePath } from "../../pause/marker-format.ts"
import { composeHooks, createV1CommandHooks } from "./command-hooks.ts"

export type V1Plugin = { hooks: Hooks; engine: RecoveryEngine }

/** What tests may inject; production uses the real clock and in-memory pauses. */
export type V1Deps = { time?: TimeSource; pauses?: PauseSource }

export function startV1(input: { client: unknown }, rawOptions: unknown, env: Record<string, string | undefined>, deps: V1Deps = {}): V1Plugin {
  const port = createV1Port(input.client as V1Client)
  const resolved = resolveOptions(rawOptions, env)
  const time = deps.time ?? realTime()
  // The marker file the CLI writes; reset once per process, so a restart clears every pause.
  const filePauses = deps.pauses
    ? undefined
    : new FilePauses({
        file: pauseFilePath(env),
        recheckMs: resolved.options.checkIntervalMs,
        now: () => time.now(),
        log: (level, message) => port.log(level, message),
      })
  void filePauses?.start()
  const engine = new RecoveryEngine({ port, time, options: resolved, pauses: deps.pauses ?? filePauses })
  port.log("info", startupLine("v1", resolved))
  for (const warning of resolved.warnings) port.log("warn", warning)

  const roles = new MessageRoles()
  const guard = <A extends unknown[]>(name: string, fn: (...args: A) => void) => {
    return async (...args: A): Promise<void> => {
      try {
        fn(...args)
      } catch (error) {
        engine.logger.fault(`hook:${name}`, `${name} hook failed: ${errorText(error)}`)
      }
    }
  }

  const hooks: Hooks = {
    tool: {
      [TASK_COMPLETE_TOOL]: {
        description: TASK_COMPLETE_DESCRIPTION,
        args: {},
        async execute(_args: unknown, context: { sessionID?: string }) {
          const sessionID = str(get(context, "sessionID"))
          if (!sessionID) return "Noted."
          const result = await engine.taskComplete(sessionID)
          // A failing result is the tool's own error, the one way to stop a model that keeps calling it.
          if (!result.ok) throw new Error(result.text)
          return result.text
        },
      },
    } as Hooks["tool"],
    event: guard("event", ({ event }: { event: unknown }) => {
      for (const signal of mapV1Event(event, roles, time.now())) engine.handle(signal)
    }),
    "chat.message": guard("chat.message", (hookInput: unknown, output: unknown) => {
      const sessionID = str(get(hookInput, "sessionID"))
      if (!sessionID) return
      const parts = get(output, "parts")
      const own = Array.isArray(parts) && parts.some(isOwnPromptPart)
      const messageID = str(get(output, "message", "id")) ?? str(get(hookInput, "messageID"))
      if (messageID) roles.set(messageID, "user")
      engine.handle({ type: "userMessage", sessionID, genuine: !own, setup: own ? undefined : turnSetup(hookInput, output) })
    }),
    "tool.execute.before": guard("tool.execute.before", (hookInput: unknown, output: unknown) => {
      const sessionID = str(get(hookInput, "sessionID"))
      const callID = str(get(hookInput, "callID"))
      if (!sessionID || !callID) return
      engine.handle({ type: "toolStart", sessionID, callID, tool: str(get(hookInput, "tool")) ?? "unknown", args: get(output, "args") })
    }),
    "tool.execute.after": guard("tool.execute.after", (hookInput: unknown) => {
      const sessionID = str(get(hookInput, "sessionID"))
      const callID = str(get(hookInput, "callID"))
      if (!sessionID || !callID) return
      engine.handle({ type: "toolEnd", sessionID, callID })
    }),
  }
  const control = filePauses ?? (isPauseControl(deps.pauses) ? deps.pauses : undefined)
  // The command hooks guard themselves: their one deliberate throw must reach the host.
  const all = control
    ? composeHooks(hooks, createV1CommandHooks({ engine, pauses: control, log: (l, m) => engine.logger.log(l, m), client: input.client, now: () => time.now() }))
    : hooks
  return { hooks: all, engine }
}

/** Agent and model of a genuine user turn, from the hook input or the stored message. */
function turnSetup(hookInput: unknown, output: unknown): TurnSetup {
  const agent = str(get(hookInput, "agent")) ?? str(get(output, "message", "agent"))
  const model = get(hookInput, "model") ?? get(output, "message", "model")
  const providerID = str(get(model, "providerID"))
  const modelID = str(get(model, "modelID"))
  return { agent, model: providerID && modelID ? { providerID, modelID } : undefined }
}

/** A port that only logs, for a plugin that could not start: it stays inert but visible. */
export function inertLog(input: unknown): HostPort["log"] {
  return (level, message) => {
    try {
      const log = get(input, "client", "app", "log")
      if (typeof log === "function") {
        void Promise.resolve(log.call(get(input, "client", "app"), { body: { service: "auto-resume", level, message, extra: { service: "auto-resume" } } })).catch(() => undefined)
      }
    } catch {
      // Nothing else we can do without a host.
    }
  }
}
