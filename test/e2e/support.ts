/** Shared helpers for the plugin's end-to-end tests on a real OpenCode server. */
import path from "node:path"
import { pathToFileURL } from "node:url"
import type { FakeProvider, RecordedRequest } from "./harness/fake-provider.ts"
import { messages, pluginLogs, type OpencodeHost } from "./harness/opencode-host.ts"

/** The plugin as OpenCode loads it from this checkout: the TypeScript entry, via file://. */
export const PLUGIN_URL = pathToFileURL(path.join(import.meta.dir, "..", "..", "src", "index.ts")).href

/**
 * Defaults apart from shortened budgets, so a stall is found in ~2.5 s instead of ~3 min.
 * Everything else (strategy, retries, loop window, prompts) stays at its default.
 */
export const SHORT_BUDGETS = {
  chunkTimeoutMs: 2000,
  gracePeriodMs: 500,
  checkIntervalMs: 500,
  baseBackoffMs: 200,
  maxBackoffMs: 1000,
  debug: true,
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Requests whose newest user turn is one of the plugin's own prompts. */
export function pluginPromptRequests(provider: FakeProvider, since = 0): RecordedRequest[] {
  return provider.requests.slice(since).filter((r) => r.lastUserText.includes("auto-resume"))
}

export function autoResumeLog(host: OpencodeHost): string[] {
  return pluginLogs(host, "auto-resume").map((l) => `${l.level} ${l.message}`)
}

/** User messages in the session that the plugin sent (marked in their parts' metadata). */
export async function pluginMessages(host: OpencodeHost, sessionID: string) {
  const history = await messages(host, sessionID)
  return history.filter((m) => m.info.role === "user" && m.parts.some((p: any) => p.metadata?.autoResume === true))
}

export async function lastAssistantText(host: OpencodeHost, sessionID: string): Promise<string> {
  const history = await messages(host, sessionID)
  const assistant = history.filter((m) => m.info.role === "assistant").at(-1)
  return (assistant?.parts ?? []).filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
}

/** Polls until `check` returns true or the bound runs out; returns the last result. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await sleep(everyMs)
  }
}
