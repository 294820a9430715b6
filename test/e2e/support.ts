/** Shared helpers for the plugin's end-to-end tests on a real OpenCode server. */
import path from "node:path"
import { pathToFileURL } from "node:url"
import { main as pauseToggle } from "../../src/cli/auto-resume-toggle.ts"
import type { FakeProvider, RecordedRequest } from "./harness/fake-provider.ts"
import {
  buildConfig,
  createSession as createHostSession,
  messages,
  pluginLogs,
  promptAsync as promptHost,
  startOpencode,
  waitForIdle as waitForHostIdle,
  type OpencodeHost,
} from "./harness/opencode-host.ts"

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

/**
 * Under SHORT_BUDGETS, the latest a stall is acted on: silence past chunkTimeoutMs +
 * gracePeriodMs, seen at the next check, and the first retry's backoff (3.2 s).
 */
export const STALL_ACT_MS = SHORT_BUDGETS.chunkTimeoutMs + SHORT_BUDGETS.gracePeriodMs + SHORT_BUDGETS.checkIntervalMs + SHORT_BUDGETS.baseBackoffMs
/**
 * The finished-turn judge's second pass after a turn ends, with the defaults: it first waits for
 * minActivityGapMs (1 s) of quiet, then toolTextCheckDelayMs (3 s).
 */
export const DEFAULT_JUDGE_DELAY_MS = 1_000 + 3_000
/**
 * From the moment an action goes out to the moment the provider shows it (a prompt's request, an
 * abort's hang-up): a few hundred ms measured; a second, for a loaded machine.
 */
export const SHOW_MS = 1_000
/**
 * How long a negative control under SHORT_BUDGETS watches a session for a plugin action that must
 * not come: the later of the two ways one could come (a stall acted on, STALL_ACT_MS; the judge's
 * second pass over a finished turn, DEFAULT_JUDGE_DELAY_MS and a check's worth for its history
 * read), plus SHOW_MS for it to reach the provider: 5.5 s. Waiting longer proves nothing more: by
 * then every path has looked at the session and decided.
 */
export const CONTROL_WAIT_MS = Math.max(STALL_ACT_MS, DEFAULT_JUDGE_DELAY_MS + SHORT_BUDGETS.checkIntervalMs) + SHOW_MS
/**
 * After the watchdog held a stall (a pause, say: its "held" log line is the look that would
 * have acted), three more of its looks and the time an action taken at any of them would need
 * to show at the provider.
 */
export const AFTER_HOLD_MS = 3 * SHORT_BUDGETS.checkIntervalMs + SHOW_MS

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

// ---- Helpers for judge.e2e.test.ts and failures.e2e.test.ts -------------------------------------

/** Requests from `since` on whose newest user turn contains `needle` (for prompts without the "auto-resume" marker). */
export function requestsWithUserText(provider: FakeProvider, needle: string, since = 0): RecordedRequest[] {
  return provider.requests.slice(since).filter((r) => r.lastUserText.includes(needle))
}

/** Every tool part of a session, oldest first. */
export async function toolParts(host: OpencodeHost, sessionID: string): Promise<any[]> {
  return (await messages(host, sessionID)).flatMap((m) => m.parts).filter((p: any) => p.type === "tool")
}

/**
 * `configExtra` for startOpencode that adds a second provider, `twinID`, served by the same
 * fake provider. With the plugin's `modelProfiles: { [twinID]: {...} }` a session prompted on
 * the twin runs with other options than one on `fake`, so one server can show both settings.
 */
export function twinProviderConfig(providerUrl: string, twinID: string): Record<string, unknown> {
  const base = buildConfig({ providerUrl }) as { provider: Record<string, any> }
  const fake = base.provider.fake
  return {
    provider: { fake, [twinID]: { ...fake, name: `Fake (${twinID})` } },
    enabled_providers: ["fake", twinID],
  }
}

/**
 * One server for a scenario file: the plugin from this checkout with `options`, the fake
 * provider and its twin `twinID` (see twinProviderConfig), debug logs, already warmed up.
 */
export async function startTwinHost(provider: FakeProvider, twinID: string, options: Record<string, unknown>): Promise<OpencodeHost> {
  const host = await startOpencode({
    providerUrl: provider.url,
    plugins: [[PLUGIN_URL, options]],
    configExtra: twinProviderConfig(provider.url, twinID),
    logLevel: "DEBUG",
  })
  await warmUp(host, provider)
  return host
}

/** The plugin's log lines that name one session. */
export function sessionLog(host: OpencodeHost, sessionID: string): string[] {
  return autoResumeLog(host).filter((l) => l.includes(sessionID))
}

/**
 * Runs one throwaway turn so the scenarios do not pay the instance's lazy start (the first
 * prompt of a fresh server takes ~3 s or more before its request, 6 s under load, longer than
 * SHORT_BUDGETS' stall budget). Returns once the provider has seen no request for `quietMs`
 * and the session is deleted, so nothing of the warm-up is left to consume a later scenario's
 * script: the turn is over at its idle (measured: no request of its own after that), and once
 * the session is gone nothing can prompt it, so the quiet only has to cover a request already
 * on its way.
 *
 * The warm-up session is paused for the plugin (the pause file, as `auto-resume-toggle <id>
 * off` writes it) while its turn runs. Otherwise the watchdog finds that slow first turn
 * stalled and aborts it before its request, and on 1.18.33 aborting a fresh instance's first
 * turn then breaks every later prompt of the server ("prompt_async failed ... All fibers
 * interrupted without error", no request reaches the provider): every scenario of the file
 * fails. The pause is lifted once the session is gone.
 */
export async function warmUp(host: OpencodeHost, provider: FakeProvider, quietMs = 500): Promise<void> {
  provider.setFallback({ kind: "text", content: "warm." })
  const sessionID = await createHostSession(host)
  await pauseForPlugin(host, sessionID, "off")
  await promptHost(host, sessionID, "warm up")
  await waitForHostIdle(host, sessionID, 45_000)
  await quiet(provider, quietMs, 20_000)
  await host.client.session.delete({ path: { id: sessionID } })
  await pauseForPlugin(host, sessionID, "on")
}

/** `auto-resume-toggle <sessionID> off|on` on the host's pause file, run in this process. */
async function pauseForPlugin(host: OpencodeHost, sessionID: string, action: "off" | "on"): Promise<void> {
  const said: string[] = []
  const code = await pauseToggle([sessionID, action], { env: { XDG_CONFIG_HOME: host.configHome }, stdout: (l) => said.push(l), stderr: (l) => said.push(l) })
  if (code !== 0) throw new Error(`auto-resume-toggle ${sessionID} ${action} exited ${code}: ${said.join("\n")}`)
}

/** Waits until the provider has seen no new request for `quietMs` (bounded by `timeoutMs`). */
export async function quiet(provider: FakeProvider, quietMs: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const seen = provider.requests.length
    await sleep(quietMs)
    if (provider.requests.length === seen) return true
    if (Date.now() > deadline) return false
  }
}
