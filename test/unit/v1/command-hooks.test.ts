/** /auto-resume on v1: registration, the no-turn handling, the reply model and history hygiene. */
import { describe, expect, test } from "bun:test"
import type { Hooks } from "@opencode-ai/plugin"
import type { SessionStatus } from "../../../src/core/status.ts"
import { CommandHandledStop, composeHooks, createV1CommandHooks } from "../../../src/host/v1/command-hooks.ts"
import {
  REPLY_MODEL_ID,
  REPLY_PROVIDER_ID,
  commandPromptText,
  dropCommandExchanges,
  registerReplyProvider,
  replyFetch,
  replyFromPromptText,
} from "../../../src/host/v1/command-model.ts"
import { normalizeV1Messages } from "../../../src/host/v1/messages.ts"
import { isOwnPromptPart } from "../../../src/host/v1/port.ts"
import { FakePauses, NOW, sampleStatus } from "../pause/helpers.ts"

function setup(opts: { engineBusy?: boolean; hostBusy?: boolean; status?: SessionStatus; history?: unknown[] } = {}) {
  const pauses = new FakePauses()
  const logs: string[] = []
  const toasts: unknown[] = []
  const client = {
    session: {
      status: async () => ({ data: opts.hostBusy ? { ses_a: { type: "busy" } } : {} }),
      messages: async () => ({ data: opts.history ?? [] }),
    },
    tui: {
      showToast: async (o: unknown) => {
        toasts.push(o)
        return { data: true }
      },
    },
  }
  const status = opts.status ?? (opts.engineBusy !== undefined ? sampleStatus({ busy: opts.engineBusy }) : undefined)
  const hooks = createV1CommandHooks({
    engine: { status: () => status },
    pauses,
    log: (level, message) => logs.push(`${level} ${message}`),
    client,
    now: () => NOW,
  })
  const config: Record<string, unknown> = { enabled_providers: ["fake"], provider: { fake: {} } }
  const run = async (args: string, command = "auto-resume") => {
    const output = { parts: [{ type: "text", text: `/auto-resume ${args}` }] as any[] }
    await hooks["command.execute.before"]({ command, sessionID: "ses_a", arguments: args }, output as never)
    return output.parts
  }
  return { hooks, pauses, logs, toasts, config, run }
}

describe("config hook", () => {
  test("registers the command and the local reply provider", async () => {
    const { hooks, config } = setup()
    await hooks.config(config as never)
    expect((config.command as any)["auto-resume"]).toEqual({ template: "/auto-resume $ARGUMENTS", description: expect.stringContaining("off pauses") })
    const provider = (config.provider as any)[REPLY_PROVIDER_ID]
    expect(provider.npm).toBe("@ai-sdk/openai-compatible")
    expect(typeof provider.options.fetch).toBe("function")
    expect(provider.models[REPLY_MODEL_ID].cost).toEqual({ input: 0, output: 0 })
    expect((config.provider as any).fake).toEqual({})
    expect(config.enabled_providers).toEqual(["fake", REPLY_PROVIDER_ID])
  })

  test("a config that disables the provider is respected", () => {
    const cfg = { disabled_providers: [REPLY_PROVIDER_ID] }
    expect(registerReplyProvider(cfg)).toBe(false)
    expect(cfg).toEqual({ disabled_providers: [REPLY_PROVIDER_ID] })
    expect(registerReplyProvider(null)).toBe(false)
  })
})

describe("command.execute.before", () => {
  test("idle session: the action runs and the turn is handed to the reply model", async () => {
    const { hooks, config, pauses, run, toasts } = setup({ engineBusy: false })
    await hooks.config(config as never)
    const parts = await run("off")
    expect(pauses.isPaused("ses_a")).toBe(true)
    expect(parts).toHaveLength(1)
    expect(parts[0].synthetic).toBe(true)
    expect(isOwnPromptPart(parts[0])).toBe(true) // the adapter never takes it for a genuine user turn
    expect(replyFromPromptText(parts[0].text)).toContain("is paused for this session")
    expect(toasts).toHaveLength(0)

    // chat.message then points the message at the reply model.
    const output = { message: { model: { providerID: "fake", modelID: "fake-model" } }, parts }
    await hooks["chat.message"]({ sessionID: "ses_a" } as never, output as never)
    expect(output.message.model).toEqual({ providerID: REPLY_PROVIDER_ID, modelID: REPLY_MODEL_ID })
  })

  test("status and unknown arguments answer, never throw, on an idle session", async () => {
    const { hooks, config, run } = setup({ status: sampleStatus({ busy: false }) })
    await hooks.config(config as never)
    expect(replyFromPromptText((await run(""))[0].text)).toContain("Budgets spent: retries 1/3")
    expect(replyFromPromptText((await run("sideways"))[0].text)).toContain("Usage: /auto-resume")
  })

  test("busy session: the action runs, a toast shows the reply, and the command is stopped", async () => {
    const { hooks, config, pauses, run, toasts } = setup({ engineBusy: true })
    await hooks.config(config as never)
    const error = await run("off").catch((e) => e)
    expect(error).toBeInstanceOf(CommandHandledStop)
    expect(error.message).toContain("without a model turn")
    expect(pauses.isPaused("ses_a")).toBe(true)
    expect(toasts).toEqual([{ body: { title: "auto-resume", message: expect.stringContaining("is paused"), variant: "info", duration: 8000 } }])
  })

  test("the host's own busy status counts too", async () => {
    const { hooks, config, run } = setup({ hostBusy: true })
    await hooks.config(config as never)
    await expect(run("status")).rejects.toBeInstanceOf(CommandHandledStop)
  })

  test("without the reply model the command is stopped as well", async () => {
    const { hooks, run, pauses } = setup({ engineBusy: false })
    await expect(run("off")).rejects.toBeInstanceOf(CommandHandledStop)
    expect(pauses.isPaused("ses_a")).toBe(true)
  })

  test("other commands are left alone", async () => {
    const { hooks, config, run, pauses } = setup()
    await hooks.config(config as never)
    expect(await run("off", "review")).toEqual([{ type: "text", text: "/auto-resume off" }])
    expect(pauses.paused.size).toBe(0)
  })

  test("chat.message ignores ordinary turns", async () => {
    const { hooks, config } = setup()
    await hooks.config(config as never)
    const output = { message: { model: { providerID: "fake", modelID: "m" } }, parts: [{ type: "text", text: "hi", metadata: { autoResume: true } }] }
    await hooks["chat.message"]({ sessionID: "ses_a" } as never, output as never)
    expect(output.message.model).toEqual({ providerID: "fake", modelID: "m" })
  })
})

describe("a session is taken back from the reply model", () => {
  const STAND_IN = { providerID: REPLY_PROVIDER_ID, modelID: REPLY_MODEL_ID }
  const REAL = { providerID: "fake", modelID: "fake-model" }
  const prompt = (model: unknown) => ({ message: { sessionID: "ses_a", model }, parts: [{ type: "text", text: "What is in the README?" }] })

  test("a prompt aimed at the stand-in (the UI restored it from the command) goes to the real model this process saw", async () => {
    const { hooks, config, logs } = setup()
    await hooks.config(config as never)
    await hooks["chat.message"]({ sessionID: "ses_a" } as never, prompt(REAL) as never)
    const output = prompt(STAND_IN)
    await hooks["chat.message"]({ sessionID: "ses_a" } as never, output as never)
    expect(output.message.model).toEqual(REAL)
    expect(logs.some((l) => l.includes("sent to fake/fake-model instead"))).toBe(true)
  })

  test("after a restart (nothing in memory) the newest real model in the stored history is used", async () => {
    const history = [
      { info: { id: "u1", role: "user", model: { providerID: "openai", modelID: "gpt-x" } }, parts: [] },
      { info: { id: "a1", role: "assistant", providerID: "fake", modelID: "fake-model" }, parts: [] },
      { info: { id: "u2", role: "user", model: STAND_IN }, parts: [] },
      { info: { id: "a2", role: "assistant", providerID: REPLY_PROVIDER_ID, modelID: REPLY_MODEL_ID }, parts: [] },
    ]
    const { hooks, config } = setup({ history })
    await hooks.config(config as never)
    const output = prompt(STAND_IN)
    await hooks["chat.message"]({ sessionID: "ses_a" } as never, output as never)
    expect(output.message.model).toEqual(REAL)
  })

  test("negative control: a prompt to a real model is left as it is, and the command itself still goes to the stand-in", async () => {
    const { hooks, config } = setup()
    await hooks.config(config as never)
    const output = prompt({ providerID: "other", modelID: "m2" })
    await hooks["chat.message"]({ sessionID: "ses_a" } as never, output as never)
    expect(output.message.model).toEqual({ providerID: "other", modelID: "m2" })
  })

  test("negative control: with no real model known anywhere the stand-in keeps it (and answers that it cannot chat)", async () => {
    const { hooks, config } = setup({ history: [] })
    await hooks.config(config as never)
    const output = prompt(STAND_IN)
    await hooks["chat.message"]({ sessionID: "ses_a" } as never, output as never)
    expect(output.message.model).toEqual(STAND_IN)
  })
})

describe("history hygiene", () => {
  const user = (id: string, parts: unknown[]) => ({ info: { id, role: "user" }, parts })
  const assistant = (id: string, providerID: string) => ({ info: { id, role: "assistant", providerID }, parts: [] })
  const commandPart = { type: "text", text: commandPromptText("off", "paused"), synthetic: true, metadata: { autoResume: true, kind: "pause-command" } }

  test("command exchanges are dropped from later model requests, in place", () => {
    const messages = [
      user("u1", [{ type: "text", text: "hi" }]),
      assistant("a1", "fake"),
      user("u2", [commandPart]),
      assistant("a2", REPLY_PROVIDER_ID),
      user("u3", [{ type: "text", text: "go on" }]),
    ]
    const same = messages
    expect(dropCommandExchanges(messages)).toBe(2)
    expect(same.map((m) => m.info.id)).toEqual(["u1", "a1", "u3"])
  })

  test("a prompt the stand-in answered is left out of a real model's history with its answer", () => {
    const messages = [
      user("u1", [{ type: "text", text: "hi" }]),
      { info: { id: "u2", role: "user", model: { providerID: REPLY_PROVIDER_ID, modelID: REPLY_MODEL_ID } }, parts: [{ type: "text", text: "What is in the README?" }] },
      assistant("a2", REPLY_PROVIDER_ID),
      user("u3", [{ type: "text", text: "What is in the README?" }]),
    ]
    expect(dropCommandExchanges(messages)).toBe(2)
    expect(messages.map((m) => m.info.id)).toEqual(["u1", "u3"])
  })

  test("the transcript marks every message of a command exchange as ours, so no reader takes it for the model's turn", () => {
    const history = normalizeV1Messages([
      user("u1", [{ type: "text", text: "hi" }]),
      assistant("a1", "fake"),
      user("u2", [commandPart]),
      assistant("a2", REPLY_PROVIDER_ID),
      { info: { id: "u3", role: "user", model: { providerID: REPLY_PROVIDER_ID, modelID: REPLY_MODEL_ID } }, parts: [{ type: "text", text: "What is in the README?" }] },
      // Negative control: a prompt of ours that is no command (a continue) is ours, not a command exchange.
      user("u4", [{ type: "text", text: "continue", synthetic: true, metadata: { autoResume: true } }]),
    ])
    expect(history.map((m) => [m.id, m.ours])).toEqual([["u1", undefined], ["a1", undefined], ["u2", "command"], ["a2", "command"], ["u3", "command"], ["u4", undefined]])
    expect(history.find((m) => m.id === "u4")?.own).toBe(true)
  })

  test("the reply turn itself keeps its message", () => {
    const messages = [user("u1", [{ type: "text", text: "hi" }]), assistant("a1", "fake"), user("u2", [commandPart])]
    expect(dropCommandExchanges(messages)).toBe(0)
    expect(messages).toHaveLength(3)
  })

  test("the transform hook applies it", async () => {
    const { hooks } = setup()
    const messages = [user("u2", [commandPart]), assistant("a2", REPLY_PROVIDER_ID), user("u3", [{ type: "text", text: "x" }])]
    await hooks["experimental.chat.messages.transform"]({}, { messages } as never)
    expect(messages.map((m) => m.info.id)).toEqual(["u3"])
  })
})

describe("the reply model", () => {
  const body = (content: unknown, stream = true) => JSON.stringify({ model: REPLY_MODEL_ID, stream, messages: [{ role: "system", content: "sys" }, { role: "user", content }] })

  async function streamedText(response: Response): Promise<string> {
    const raw = await response.text()
    return raw
      .split("\n\n")
      .filter((l) => l.startsWith("data: {"))
      .map((l) => JSON.parse(l.slice(6)).choices[0].delta.content ?? "")
      .join("")
  }

  test("streams the reply carried by the command message, with zero usage", async () => {
    const response = await replyFetch("http://auto-resume.invalid/v1/chat/completions", { body: body(commandPromptText("status", "line 1\n\nline 2")) })
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const raw = await response.clone().text()
    expect(raw.trim().endsWith("data: [DONE]")).toBe(true)
    expect(raw).toContain('"finish_reason":"stop"')
    expect(raw).toContain('"total_tokens":0')
    expect(await streamedText(response)).toBe("line 1\n\nline 2")
  })

  test("content given as parts, and a non-streaming request", async () => {
    const parts = [{ type: "text", text: commandPromptText("on", "resumed") }]
    expect(await streamedText(await replyFetch("", { body: body(parts) }))).toBe("resumed")
    const json = (await (await replyFetch("", { body: body(commandPromptText("on", "resumed"), false) })).json()) as any
    expect(json.choices[0].message.content).toBe("resumed")
  })

  test("anything else gets a note that this model does not chat", async () => {
    expect(await streamedText(await replyFetch("", { body: body("write me a poem") }))).toContain("only answers the /auto-resume command")
    expect(await streamedText(await replyFetch("", { body: "{not json" }))).toContain("only answers")
  })
})

describe("composeHooks", () => {
  test("runs both in order; the extra hook's error reaches the host", async () => {
    const calls: string[] = []
    const base: Hooks = { "chat.message": async () => void calls.push("base") }
    const extra: Partial<Hooks> = {
      "chat.message": async () => void calls.push("extra"),
      "command.execute.before": async () => {
        throw new CommandHandledStop("stop")
      },
    }
    const merged = composeHooks(base, extra)
    await merged["chat.message"]!({} as never, {} as never)
    expect(calls).toEqual(["base", "extra"])
    await expect(merged["command.execute.before"]!({} as never, {} as never)).rejects.toBeInstanceOf(CommandHandledStop)
  })
})
