/**
 * The OpenCode 1.x adapter: hooks and events in, signals to the core; the SDK client out.
 * Every hook is wrapped so that nothing we do can throw into the host.
 *
 * The lifecycle is the shared one (../instance.ts), one live engine per (registry scope,
 * directory) (registry.ts). A superseded instance's hooks do nothing (the live instance gets
 * the same calls), except the task_complete tool, which the host may have taken from either
 * hook set and which therefore answers through the live engine. The `dispose` hook stops it.
 */
import type { Hooks } from "@opencode-ai/plugin"
import type { TimeSource } from "../../core/clock.ts"
import type { RecoveryEngine } from "../../core/engine.ts"
import type { PauseSource } from "../../core/pauses.ts"
import { errorText } from "../../core/logger.ts"
import { effectiveOptions, resolveOptions } from "../../options/index.ts"
import { realTime, wallClock } from "../real-time.ts"
import { get, str } from "../shape.ts"
import type { HostPort, TurnSetup } from "../../core/port.ts"
import { goalLimitsOf, startInstance, type Instance } from "../instance.ts"
import { turnSetupOf } from "../normalize.ts"
import { MessageRoles, mapOtherEvent, mapStreamingEvent, type OutputSink } from "./events.ts"
import { createV1Port, isOwnPromptPart, type V1Client } from "./port.ts"
import { MAX_EVIDENCE_CHARS, TASK_COMPLETE_DESCRIPTION, TASK_COMPLETE_EVIDENCE_DESCRIPTION, TASK_COMPLETE_TOOL } from "../../prompts/task-complete-tool.ts"
// The plugin API's own zod (tool.schema), as every 1.x plugin declares its tools' arguments.
import { tool } from "@opencode-ai/plugin"
import { composeHooks, createV1CommandHooks } from "./command-hooks.ts"
import { RealModels } from "./stand-in-model.ts"
import { REPLY_PROVIDER_ID } from "./command-model.ts"
import { applyProviderStreamTimeouts } from "./stream-timeouts.ts"
import { getV1Slot, type V1Slot } from "./registry.ts"

export type V1Plugin = Pick<Instance, "serial" | "engine" | "stopped" | "stop"> & {
  hooks: Hooks
  readonly slot: V1Slot
  /** Message roles remembered (bounded; a forgotten session takes its own along). For tests and the memory bench. */
  readonly rememberedMessages: number
  /** Sessions whose real model is remembered (stand-in-model.ts); the same rule. */
  readonly rememberedModels: number
}

/** What tests may inject; production uses the real clock, in-memory pauses and process.argv. */
export type V1Deps = { time?: TimeSource; pauses?: PauseSource; argv?: readonly unknown[]; rateWaitFile?: boolean }

export function startV1(
  input: { client: unknown; directory?: unknown },
  rawOptions: unknown,
  env: Record<string, string | undefined>,
  deps: V1Deps = {},
): V1Plugin {
  const resolved = resolveOptions(rawOptions, env)
  const time = deps.time ?? realTime()
  const slot = getV1Slot(resolved.options.registryScope, str(get(input, "directory")))
  const port = createV1Port(input.client as V1Client, { resolved, time, sendLog: slot.sendLog })
  const roles = new MessageRoles()
  const realModels = new RealModels()
  const instance = startInstance({
    host: "v1",
    slot,
    resolved,
    time,
    port,
    env,
    pauses: deps.pauses,
    directory: str(get(input, "directory")),
    rateWaitFile: deps.rateWaitFile,
    onSessionDropped: (sessionID) => {
      roles.forgetSession(sessionID)
      realModels.forget(sessionID)
    },
  })
  const { engine, serial, stop } = instance

  /** The engine that answers for this instance: its own, or the live one once superseded. */
  const liveEngine = (): RecoveryEngine | undefined => (instance.stopped ? slot.holder?.engine : engine)

  // Plain functions, not async ones: the host awaits whatever a hook returns, and a shared
  // settled promise spares the event hook a promise per streaming event (the hot path).
  const guard = <A extends unknown[]>(name: string, fn: (...args: A) => void) => {
    return (...args: A): Promise<void> => {
      try {
        fn(...args)
      } catch (error) {
        engine.logger.fault(`hook:${name}`, `${name} hook failed: ${errorText(error)}`)
      }
      return DONE
    }
  }

  /**
   * The streaming path, every event the host has: one plain function with no wrapper layers
   * (it does its own stopped check and its own catch) and one clock read per event (model
   * output goes straight to the engine, which reads it).
   */
  const wallNow = wallClock(time)
  const output: OutputSink = (sessionID, part, delta, text) => engine.output(sessionID, part, delta, text)
  function onEvent(input: { event: unknown }): Promise<void> {
    if (instance.stopped) return DONE
    try {
      const event = (input as { event?: unknown } | undefined)?.event
      // Streaming events first, with no array around their one signal.
      const streamed = mapStreamingEvent(event, roles, output)
      if (streamed === null) return DONE
      const now = time.now()
      if (streamed) engine.handle(streamed, now)
      else {
        const signals = mapOtherEvent(event, roles, wallNow)
        for (let i = 0; i < signals.length; i++) engine.handle(signals[i]!, now)
      }
    } catch (error) {
      engine.logger.fault("hook:event", `event hook failed: ${errorText(error)}`)
    }
    return DONE
  }

  const hooks: Hooks = {
    // OpenCode's own hung-request retry gets our stall budget (run, serve and the TUI alike).
    config: guard("config", (config: unknown) => {
      applyProviderStreamTimeouts(config, {
        argv: deps.argv ?? process.argv,
        budgetMs: (providerID) => effectiveOptions(resolved, providerID).chunkTimeoutMs,
        log: (level, message) => engine.logger.log(level, message),
        ownProviders: [REPLY_PROVIDER_ID],
      })
    }),
    tool: {
      [TASK_COMPLETE_TOOL]: {
        description: TASK_COMPLETE_DESCRIPTION,
        args: { evidence: tool.schema.string().optional().describe(TASK_COMPLETE_EVIDENCE_DESCRIPTION) },
        async execute(args: unknown, context: { sessionID?: string }) {
          const sessionID = str(get(context, "sessionID"))
          const target = liveEngine()
          if (!sessionID || !target) return "Noted."
          const result = await target.callTool(sessionID, TASK_COMPLETE_TOOL, { evidence: str(get(args, "evidence"))?.slice(0, MAX_EVIDENCE_CHARS) })
          // A failing result is the tool's own error, the one way to stop a model that keeps calling it.
          if (!result.ok) throw new Error(result.text)
          return result.text
        },
      },
    } as Hooks["tool"],
    event: onEvent,
    "chat.message": guard("chat.message", (hookInput: unknown, output: unknown) => {
      const sessionID = str(get(hookInput, "sessionID"))
      if (!sessionID) return
      const parts = get(output, "parts")
      const own = Array.isArray(parts) && parts.some(isOwnPromptPart)
      const messageID = str(get(output, "message", "id")) ?? str(get(hookInput, "messageID"))
      if (messageID) roles.set(messageID, "user", sessionID)
      const setup = own ? undefined : userSetup(sessionID, hookInput, output)
      engine.handle({ type: "userMessage", sessionID, genuine: !own, setup })
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
  /**
   * A genuine turn's setup. After a fallback took over, a message naming no model (or the one
   * the terminal UI restored from our continue) would run on it: the core says where it goes
   * instead, and the message is changed before the host runs it, as for the stand-in model.
   */
  function userSetup(sessionID: string, hookInput: unknown, output: unknown): TurnSetup {
    const setup = turnSetup(hookInput, output)
    const back = engine.userTurnModel(sessionID, setup.model)
    const message = get(output, "message")
    if (!back || typeof message !== "object" || message === null) return setup
    ;(message as Record<string, unknown>).model = { providerID: back.providerID, modelID: back.modelID }
    engine.logger.log("info", `session ${sessionID}: the user's message goes back to ${back.providerID}/${back.modelID} (the fallback model took over only until the user wrote)`)
    return { ...setup, model: back }
  }

  const control = instance.pauses.control
  // The command hooks guard themselves: their one deliberate throw must reach the host.
  const all = control
    ? composeHooks(hooks, createV1CommandHooks({ engine, pauses: control, history: instance.history, goals: instance.goals, goalLimits: goalLimitsOf(resolved), log: (l, m) => engine.logger.log(l, m), client: input.client, now: () => time.now(), realModels }))
    : hooks
  const live = silencedWhenStopped(all, () => instance.stopped)
  live.event = onEvent
  live.dispose = async () => {
    try {
      stop("disposed by the host")
    } catch {
      // Disposal must never throw into the host.
    }
  }
  return {
    hooks: live,
    engine,
    serial,
    slot,
    get stopped() {
      return instance.stopped
    },
    get rememberedMessages() {
      return roles.size
    },
    get rememberedModels() {
      return realModels.size
    },
    stop,
  }
}

const DONE: Promise<void> = Promise.resolve()

/**
 * Every function hook of `hooks`, turned into a no-op once `stopped()`; tools are left as they
 * are (their own code decides). A stopped instance must not act: its successor gets the same
 * calls from the host.
 */
function silencedWhenStopped(hooks: Hooks, stopped: () => boolean): Hooks {
  const out: Record<string, unknown> = {}
  for (const [name, hook] of Object.entries(hooks)) {
    if (typeof hook !== "function") {
      out[name] = hook
      continue
    }
    out[name] = (...args: unknown[]) => {
      if (stopped()) return DONE
      try {
        return (hook as (...a: unknown[]) => unknown)(...args)
      } catch (error) {
        // A hook that throws synchronously still reaches the host as a rejection, as an async one would.
        return Promise.reject(error)
      }
    }
  }
  return out as Hooks
}

/** Agent and model of a genuine user turn, from the hook input or the stored message. */
function turnSetup(hookInput: unknown, output: unknown): TurnSetup {
  const model = get(hookInput, "model") ?? get(output, "message", "model")
  return turnSetupOf(str(get(hookInput, "agent")) ?? str(get(output, "message", "agent")), str(get(model, "providerID")), str(get(model, "modelID")))
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
