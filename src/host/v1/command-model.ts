/**
 * The in-process "model" that answers `/auto-resume` on OpenCode 1.x without a paid turn.
 * 1.18 always runs a command's template as a model turn, so the plugin registers (config hook) a
 * provider of its own, `auto-resume`, whose one model is served by a `fetch` in the plugin: no
 * network, no cost. Its messages are left out of every later real model request
 * (experimental.chat.messages.transform). Measured on 1.18.33: the provider's `options.fetch`
 * survives the config hook and serves every request of that provider (test/e2e/HOST-NOTES.md).
 */
import { asObj, get, str } from "../shape.ts"

export const REPLY_PROVIDER_ID = "auto-resume"
export const REPLY_MODEL_ID = "command-reply"
/** `metadata.kind` of the command's (hidden) user text part. */
export const COMMAND_PART_KIND = "pause-command"

const COMMAND_PREFIX = "/auto-resume"
const NOT_A_COMMAND_REPLY =
  "This model only answers the /auto-resume command of the opencode-auto-resume plugin; it cannot chat. Pick another model for your prompts."

/** The text of the command's user message: the command line, a blank line, then the reply. */
export function commandPromptText(args: string, reply: string): string {
  return `${`${COMMAND_PREFIX} ${args}`.trim()}\n\n${reply}`
}

export function replyFromPromptText(text: string): string | undefined {
  if (!text.startsWith(COMMAND_PREFIX)) return undefined
  const gap = text.indexOf("\n\n")
  return gap < 0 ? undefined : text.slice(gap + 2)
}

/** The provider entry put into `config.provider`. `fetch` is called in-process instead of the network. */
export function replyProviderConfig(fetchFn: typeof fetch = replyFetch as typeof fetch): Record<string, unknown> {
  return {
    name: "auto-resume (local command replies)",
    npm: "@ai-sdk/openai-compatible",
    options: {
      // Never contacted: every request goes to `fetch` below. `.invalid` cannot resolve.
      baseURL: "http://auto-resume.invalid/v1",
      apiKey: "not-used",
      fetch: fetchFn,
    },
    models: {
      [REPLY_MODEL_ID]: {
        name: "auto-resume command replies (no model call)",
        tool_call: false,
        attachment: false,
        reasoning: false,
        temperature: false,
        cost: { input: 0, output: 0 },
        // context 0 = unknown to OpenCode: never triggers an automatic compaction.
        limit: { context: 0, output: 4096 },
      },
    },
  }
}

/**
 * Adds the reply provider to a 1.x config (mutating it). Returns false when the user's config
 * disables it, in which case the command falls back to stopping without a turn.
 */
export function registerReplyProvider(config: unknown, fetchFn?: typeof fetch): boolean {
  const cfg = asObj(config)
  if (!cfg) return false
  const disabled = cfg.disabled_providers
  if (Array.isArray(disabled) && disabled.includes(REPLY_PROVIDER_ID)) return false
  const providers = asObj(cfg.provider) ?? {}
  providers[REPLY_PROVIDER_ID] = replyProviderConfig(fetchFn)
  cfg.provider = providers
  const enabled = cfg.enabled_providers
  if (Array.isArray(enabled) && !enabled.includes(REPLY_PROVIDER_ID)) enabled.push(REPLY_PROVIDER_ID)
  return true
}

export function isCommandPart(part: unknown): boolean {
  return get(part, "metadata", "autoResume") === true && get(part, "metadata", "kind") === COMMAND_PART_KIND
}

/**
 * A message of a command exchange (a 1.x history entry): the command's own message, a prompt the
 * reply model answered, or that model's answer. Never a turn of a real model.
 */
export function isCommandExchange(message: unknown): boolean {
  const info = get(message, "info")
  const role = str(get(info, "role"))
  if (role === "assistant") return str(get(info, "providerID")) === REPLY_PROVIDER_ID
  if (role === "user") {
    // The command's own message, or any prompt the stand-in answered (it only said it cannot
    // chat): neither belongs in a real model's history.
    if (str(get(info, "model", "providerID")) === REPLY_PROVIDER_ID) return true
    const parts = get(message, "parts")
    return Array.isArray(parts) && parts.some(isCommandPart)
  }
  return false
}

/**
 * Removes command exchanges from a model request's history, in place (OpenCode keeps using the
 * same array). Left alone when the newest user message is a command: that is the reply turn.
 */
export function dropCommandExchanges(messages: unknown): number {
  if (!Array.isArray(messages)) return 0
  let newestUser: unknown
  for (let i = messages.length - 1; i >= 0; i--) {
    if (str(get(messages[i], "info", "role")) === "user") {
      newestUser = messages[i]
      break
    }
  }
  if (newestUser !== undefined && isCommandExchange(newestUser)) return 0
  let removed = 0
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isCommandExchange(messages[i])) {
      messages.splice(i, 1)
      removed++
    }
  }
  return removed
}

// The "model": an OpenAI-compatible chat completions endpoint, in-process.

function lastUserText(body: unknown): string {
  const messages = get(body, "messages")
  if (!Array.isArray(messages)) return ""
  for (let i = messages.length - 1; i >= 0; i--) {
    if (get(messages[i], "role") !== "user") continue
    const content = get(messages[i], "content")
    if (typeof content === "string") return content
    if (Array.isArray(content)) return content.map((p) => str(get(p, "text")) ?? "").join("")
    return ""
  }
  return ""
}

/** The answer for one request body: the command's reply, or a note that this model cannot chat. */
export function replyForRequest(body: unknown): string {
  return replyFromPromptText(lastUserText(body)) ?? NOT_A_COMMAND_REPLY
}

export async function replyFetch(_input: unknown, init?: { body?: unknown }): Promise<Response> {
  let body: unknown
  try {
    body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined
  } catch {
    body = undefined
  }
  const text = replyForRequest(body)
  const created = Math.floor(Date.now() / 1000)
  const id = `auto-resume-${created}`
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
  if (get(body, "stream") === false) {
    const completion = {
      id,
      object: "chat.completion",
      created,
      model: REPLY_MODEL_ID,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage,
    }
    return new Response(JSON.stringify(completion), { status: 200, headers: { "content-type": "application/json" } })
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: REPLY_MODEL_ID, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`
  const payload = chunk({ role: "assistant", content: text }, null) + chunk({}, "stop", { usage }) + "data: [DONE]\n\n"
  return new Response(payload, { status: 200, headers: { "content-type": "text/event-stream" } })
}
