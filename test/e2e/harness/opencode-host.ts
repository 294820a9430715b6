/**
 * Boots a real `opencode serve` (opencode-ai 1.18.x) in a throwaway, offline sandbox for
 * end-to-end tests, wired to a fake provider (see fake-provider.ts).
 *
 * Isolation: fresh HOME / XDG_* folders under one temp root, an empty-ish environment (PATH and
 * locale only, plus opts.env), the seeding that stops OpenCode from npm-installing
 * `@opencode-ai/plugin` at start, a project-level opencode.json that only enables the fake
 * provider. The server runs in its own process group so stop() can take down anything it
 * spawned (bash tool children included).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import fs from "node:fs"
import net from "node:net"
import os from "node:os"
import path from "node:path"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk"

const REPO_ROOT = path.resolve(import.meta.dir, "..", "..", "..")
const PLUGIN_VERSION = "1.18.33"

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export type PluginSpec = string | [string, Record<string, unknown>]

export type StartOpencodeOptions = {
  /** Base URL of the fake provider, ending in /v1. */
  providerUrl: string
  /** Plugin entries as written in opencode.json (file:// URLs, optionally with options). */
  plugins?: PluginSpec[]
  /** Shallow-merged over the generated opencode.json. */
  configExtra?: Record<string, unknown>
  /** Extra environment for the server (wins over the defaults). */
  env?: Record<string, string>
  /**
   * Provider stream timeouts handed to OpenCode. Large by default so OpenCode's own
   * hung-stream handling never interferes with what a test is looking at. `null` leaves
   * `chunkTimeout` out of the config, so OpenCode's default (or a plugin) decides; the same
   * for `headerTimeoutMs` and `headerTimeout`.
   */
  chunkTimeoutMs?: number | null
  headerTimeoutMs?: number | null
  /** `--log-level` for the server (default: OpenCode's default, INFO). */
  logLevel?: "DEBUG" | "INFO" | "WARN" | "ERROR"
  /** Bound for boot (listening line + health + event stream). Default 30 s. */
  startTimeoutMs?: number
  /**
   * Start in this existing sandbox root (from an earlier host's `root`, kept with keepTemp):
   * the same config, data and state folders, so a restarted server sees the same sessions.
   */
  reuseRoot?: string
  /** Keep the temp root after stop() (also: env E2E_KEEP_TEMP=1). */
  keepTemp?: boolean
  /** Ring size for captured log lines. Default 20000. */
  maxLogLines?: number
}

export type RecordedEvent = { at: number; index: number; event: any }

export type EventRecorder = {
  /** Every event received so far (oldest first). */
  all(): any[]
  /** Same, with arrival time and index. */
  records(): RecordedEvent[]
  /** Current count: pass as `since` to only look at later events. */
  mark(): number
  /** Resolves with the first event at index >= since (default 0) matching pred. */
  waitForEvent(pred: (e: any) => boolean, timeoutMs: number, since?: number): Promise<any>
  /** Events at index >= since, optionally filtered to one session. */
  since(index: number, sessionID?: string): any[]
}

export type OpencodeHost = {
  url: string
  /** Project folder (the server's cwd and the client's directory). */
  directory: string
  /** Temp root holding home/, config/, data/, cache/, state/, project/. */
  root: string
  /** The XDG_CONFIG_HOME the server runs with (root/config unless opts.env names another). */
  configHome: string
  pid: number
  client: OpencodeClient
  events: EventRecorder
  logs(): string[]
  waitForLog(re: RegExp, timeoutMs: number): Promise<string>
  /** True once the server process has exited. */
  exited(): boolean
  stop(): Promise<void>
}

// ---------------------------------------------------------------------------------------------
// Binary resolution
// ---------------------------------------------------------------------------------------------

let cachedBinary: string | undefined

/**
 * `node_modules/.bin/opencode` is only a stub until opencode-ai's postinstall has copied the
 * platform binary over it. Prefer $OPENCODE_BIN, then a working .bin/opencode, then the
 * platform package's binary directly.
 */
export function resolveOpencodeBinary(): string {
  if (cachedBinary) return cachedBinary
  const candidates: string[] = []
  if (process.env.OPENCODE_BIN) candidates.push(process.env.OPENCODE_BIN)
  candidates.push(path.join(REPO_ROOT, "node_modules", ".bin", "opencode"))
  const plat = process.platform === "win32" ? "windows" : process.platform
  const base = `opencode-${plat}-${process.arch}`
  for (const name of [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`])
    candidates.push(path.join(REPO_ROOT, "node_modules", name, "bin", "opencode"))
  for (const c of candidates) {
    if (!fs.existsSync(c)) continue
    const r = spawnSync(c, ["--version"], { encoding: "utf8", timeout: 15000, env: { PATH: process.env.PATH ?? "" } })
    if (r.status === 0 && /^\d+\.\d+\.\d+/.test(r.stdout.trim())) {
      cachedBinary = c
      return c
    }
  }
  throw new Error(`no working opencode binary found; tried:\n${candidates.join("\n")}`)
}

// ---------------------------------------------------------------------------------------------
// Process bookkeeping: nothing may outlive the test run
// ---------------------------------------------------------------------------------------------

const live = new Set<OpencodeHost>()
const livePids = new Set<number>()

function killGroup(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(-pid, sig)
  } catch {
    try {
      process.kill(pid, sig)
    } catch {
      /* already gone */
    }
  }
}

/**
 * Every live descendant of `pid` (Linux /proc walk). OpenCode starts bash-tool commands in their
 * own process groups, so signalling the server's group alone leaves them running as orphans.
 */
export function descendantPids(pid: number): number[] {
  let entries: string[]
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return []
  }
  const children = new Map<number, number[]>()
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8")
      // pid (comm) state ppid ...; comm may contain spaces or parens, so cut at the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      const list = children.get(ppid) ?? []
      list.push(Number(name))
      children.set(ppid, list)
    } catch {
      /* raced with exit */
    }
  }
  const out: number[] = []
  const queue = [pid]
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c)
      queue.push(c)
    }
  }
  return out
}

function killTree(pids: number[], sig: NodeJS.Signals) {
  for (const p of pids) {
    try {
      process.kill(-p, sig) // the group it leads, if any
    } catch {
      /* not a group leader or gone */
    }
    try {
      process.kill(p, sig)
    } catch {
      /* gone */
    }
  }
}

let exitHookInstalled = false
function installExitHook() {
  if (exitHookInstalled) return
  exitHookInstalled = true
  // Last resort if a test run dies without calling stop(): synchronous, so only signals.
  process.on("exit", () => {
    for (const pid of livePids) {
      killTree(descendantPids(pid), "SIGKILL")
      killGroup(pid, "SIGKILL")
    }
  })
}

/** Stops every host started by this module that is still running. */
export async function stopAllOpencode(): Promise<void> {
  await Promise.allSettled([...live].map((h) => h.stop()))
}

/**
 * Registers stopAllOpencode (and any extra cleanups, e.g. a fake provider's stop) with the
 * afterAll of the calling test file, so no server outlives the file even when a test throws.
 * Pass bun:test's `afterAll` (kept as a parameter so this module also loads outside bun test).
 *
 *   registerOpencodeCleanup(afterAll, () => provider?.stop())
 */
export function registerOpencodeCleanup(
  afterAll: (fn: () => Promise<void>, options?: number | { timeout?: number }) => void,
  ...extra: Array<() => unknown>
): void {
  afterAll(async () => {
    await stopAllOpencode()
    for (const fn of extra) await Promise.resolve().then(fn).catch(() => {})
  }, 20_000)
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port
      srv.close(() => resolve(port))
    })
  })
}

function seedNpmFolder(dir: string) {
  fs.mkdirSync(path.join(dir, "node_modules"), { recursive: true })
  const deps = { "@opencode-ai/plugin": PLUGIN_VERSION }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ dependencies: deps }, null, 2))
  fs.writeFileSync(
    path.join(dir, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies: deps } } }, null, 2),
  )
}

export function buildConfig(opts: StartOpencodeOptions): Record<string, unknown> {
  return {
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: {
          baseURL: opts.providerUrl,
          apiKey: "fake-key",
          ...(opts.chunkTimeoutMs === null ? {} : { chunkTimeout: opts.chunkTimeoutMs ?? 600_000 }),
          ...(opts.headerTimeoutMs === null ? {} : { headerTimeout: opts.headerTimeoutMs ?? 600_000 }),
        },
        models: {
          "fake-model": {
            name: "Fake Model",
            tool_call: true,
            limit: { context: 128_000, output: 4_096 },
          },
        },
      },
    },
    enabled_providers: ["fake"],
    model: "fake/fake-model",
    small_model: "fake/fake-model",
    permission: { "*": "allow" },
    autoupdate: false,
    share: "disabled",
    plugin: opts.plugins ?? [],
    ...opts.configExtra,
  }
}

function makeRecorder(): EventRecorder & { push(e: any): void } {
  const recs: RecordedEvent[] = []
  const waiters = new Set<(r: RecordedEvent) => void>()
  return {
    push(event: any) {
      const r = { at: Date.now(), index: recs.length, event }
      recs.push(r)
      for (const w of [...waiters]) w(r)
    },
    all: () => recs.map((r) => r.event),
    records: () => recs.slice(),
    mark: () => recs.length,
    since: (index, sessionID) =>
      recs
        .slice(index)
        .map((r) => r.event)
        .filter((e) => !sessionID || eventSessionID(e) === sessionID),
    waitForEvent(pred, timeoutMs, since = 0) {
      for (const r of recs.slice(since)) if (pred(r.event)) return Promise.resolve(r.event)
      return new Promise((resolve, reject) => {
        const w = (r: RecordedEvent) => {
          if (r.index < since || !pred(r.event)) return
          cleanup()
          resolve(r.event)
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`event not seen within ${timeoutMs} ms (recorded ${recs.length} events)`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(w)
        }
        waiters.add(w)
      })
    },
  }
}

/** Best-effort session id of a v1 bus event. */
export function eventSessionID(e: any): string | undefined {
  const p = e?.properties
  return p?.sessionID ?? p?.info?.sessionID ?? p?.part?.sessionID ?? (e?.type?.startsWith("session.") ? p?.info?.id : undefined)
}

// ---------------------------------------------------------------------------------------------
// startOpencode
// ---------------------------------------------------------------------------------------------

/**
 * A fresh, isolated OpenCode home: its own HOME and XDG folders, the npm folders seeded so
 * OpenCode installs nothing at start, the project's opencode.json, and the environment to
 * run it with. Shared by `opencode serve` and `opencode run`.
 */
export function prepareSandbox(prefix: string, opts: StartOpencodeOptions) {
  const root = opts.reuseRoot ?? fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const dirs = {
    home: path.join(root, "home"),
    config: path.join(root, "config"),
    data: path.join(root, "data"),
    cache: path.join(root, "cache"),
    state: path.join(root, "state"),
    project: path.join(root, "project"),
  }
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true })
  seedNpmFolder(path.join(dirs.config, "opencode"))
  seedNpmFolder(path.join(dirs.project, ".opencode"))
  fs.writeFileSync(path.join(dirs.project, "opencode.json"), JSON.stringify(buildConfig(opts), null, 2))
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: process.env.LANG ?? "C.UTF-8",
    TMPDIR: os.tmpdir(),
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    XDG_STATE_HOME: dirs.state,
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    ...opts.env,
  }
  return { root, dirs, env }
}

export async function startOpencode(opts: StartOpencodeOptions): Promise<OpencodeHost> {
  installExitHook()
  const bin = resolveOpencodeBinary()
  const startTimeout = opts.startTimeoutMs ?? 30_000
  const keepTemp = opts.keepTemp ?? process.env.E2E_KEEP_TEMP === "1"
  const maxLines = opts.maxLogLines ?? 20_000

  const { root, dirs, env } = prepareSandbox("oc-e2e-", opts)
  const port = await freePort()
  const args = ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--print-logs"]
  if (opts.logLevel) args.push("--log-level", opts.logLevel)

  const child: ChildProcess = spawn(bin, args, {
    cwd: dirs.project,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // own process group: stop() signals the whole group
  })
  const pid = child.pid
  if (!pid) throw new Error("failed to spawn opencode")
  livePids.add(pid)

  // ---- log capture -------------------------------------------------------------------------
  const lines: string[] = []
  const logWaiters = new Set<(line: string) => void>()
  const addLine = (line: string) => {
    lines.push(line)
    if (lines.length > maxLines) lines.splice(0, lines.length - maxLines)
    for (const w of [...logWaiters]) w(line)
  }
  const pump = (stream: NodeJS.ReadableStream | null) => {
    if (!stream) return
    let buf = ""
    stream.setEncoding("utf8")
    stream.on("data", (chunk: string) => {
      buf += chunk
      let nl: number
      while ((nl = buf.indexOf("\n")) >= 0) {
        addLine(buf.slice(0, nl).replace(/\r$/, ""))
        buf = buf.slice(nl + 1)
      }
    })
    stream.on("end", () => {
      if (buf) addLine(buf)
      buf = ""
    })
  }
  pump(child.stdout)
  pump(child.stderr)

  let hasExited = false
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", (code, sig) => {
      hasExited = true
      livePids.delete(pid)
      addLine(`[harness] opencode exited code=${code} signal=${sig}`)
      resolve()
    })
  })

  const waitForLog = (re: RegExp, timeoutMs: number): Promise<string> => {
    const hit = lines.find((l) => re.test(l))
    if (hit !== undefined) return Promise.resolve(hit)
    return new Promise((resolve, reject) => {
      const w = (line: string) => {
        if (!re.test(line)) return
        cleanup()
        resolve(line)
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`log line ${re} not seen within ${timeoutMs} ms`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        logWaiters.delete(w)
      }
      logWaiters.add(w)
    })
  }

  // ---- stop ----------------------------------------------------------------------------------
  const eventAbort = new AbortController()
  let stopRequested = false
  let streamDone: Promise<void> = Promise.resolve()
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      // Aborting the SDK's SSE fetch while it is reading makes its internal reader.cancel()
      // reject unhandled under Bun. So: flag first, stop the server, let the stream end on its
      // own; the retry sleep (below) then aborts while no reader is active.
      stopRequested = true
      // Note the tree now: once the server is gone its children are reparented and untraceable.
      const tree = hasExited ? [] : descendantPids(pid)
      if (!hasExited) {
        killGroup(pid, "SIGTERM")
        await Promise.race([exitPromise, sleep(3000)])
      }
      // Whatever is left (the server, its group, tool commands in their own groups): SIGKILL.
      killGroup(pid, "SIGKILL")
      killTree(tree, "SIGKILL")
      if (!hasExited) await Promise.race([exitPromise, sleep(2000)])
      livePids.delete(pid)
      live.delete(host)
      await Promise.race([streamDone, sleep(1000)])
      if (!eventAbort.signal.aborted) eventAbort.abort()
      for (const s of [child.stdout, child.stderr]) s?.destroy()
      if (!keepTemp) {
        try {
          fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 })
        } catch {
          /* best effort */
        }
      }
    })())

  const events = makeRecorder()
  const url = `http://127.0.0.1:${port}`
  const client = createOpencodeClient({ baseUrl: url, directory: dirs.project })

  const host: OpencodeHost = {
    url,
    directory: dirs.project,
    root,
    configHome: env.XDG_CONFIG_HOME!,
    pid,
    client,
    events,
    logs: () => lines.slice(),
    waitForLog,
    exited: () => hasExited,
    stop,
  }
  live.add(host)

  // ---- readiness -----------------------------------------------------------------------------
  const deadline = Date.now() + startTimeout
  const fail = async (why: string): Promise<never> => {
    const tail = lines.slice(-40).join("\n")
    await stop()
    throw new Error(`opencode did not start: ${why}\n--- last log lines ---\n${tail}`)
  }
  try {
    // Requests sent before this line can hang forever (readiness trap).
    await Promise.race([
      waitForLog(/opencode server listening on http:\/\//, startTimeout),
      exitPromise.then(() => {
        throw new Error("process exited during start")
      }),
    ])
  } catch (e) {
    return fail(String(e))
  }
  for (;;) {
    if (hasExited) return fail("process exited")
    if (Date.now() > deadline) return fail("health check timed out")
    try {
      const r = await fetch(`${url}/global/health`, { signal: AbortSignal.timeout(1000) })
      if (r.ok) break
    } catch {
      /* retry */
    }
    await sleep(100)
  }

  // ---- event stream (also boots the instance for the directory, which loads plugins) ----------
  const connected = events.waitForEvent((e) => e?.type === "server.connected", Math.max(1000, deadline - Date.now()))
  streamDone = (async () => {
    try {
      const sub = await client.event.subscribe({
        signal: eventAbort.signal,
        sseMaxRetryAttempts: 1_000_000,
        sseDefaultRetryDelay: 200,
        sseMaxRetryDelay: 1000,
        // Wake at once on abort instead of sleeping out a backoff.
        sseSleepFn: async (ms: number) => {
          const until = Date.now() + ms
          while (Date.now() < until && !stopRequested) await sleep(Math.min(50, until - Date.now()))
          if (stopRequested && !eventAbort.signal.aborted) eventAbort.abort()
        },
      } as any)
      for await (const ev of sub.stream) events.push(ev)
    } catch {
      /* stream closed */
    }
  })()
  try {
    await connected
  } catch (e) {
    return fail(`no server.connected event: ${e}`)
  }
  return host
}

// ---------------------------------------------------------------------------------------------
// Session helpers
// ---------------------------------------------------------------------------------------------

const promptMarks = new WeakMap<OpencodeHost, Map<string, number>>()

function unwrap<T>(r: { data?: T; error?: unknown; response?: Response }, what: string): T {
  if (r.error !== undefined || r.data === undefined)
    throw new Error(`${what} failed (${r.response?.status}): ${JSON.stringify(r.error)}`)
  return r.data
}

export async function createSession(host: OpencodeHost, body: { title?: string; parentID?: string } = {}): Promise<string> {
  const r = await host.client.session.create({ body })
  return unwrap(r, "session.create").id
}

export type PromptPart = { type: "text"; text: string; synthetic?: boolean; metadata?: Record<string, unknown> }

/**
 * Fire-and-forget prompt. Records the event index at send time so waitForIdle() only accepts an
 * idle that came after it. Returns that index.
 */
export async function promptAsync(
  host: OpencodeHost,
  sessionID: string,
  input: string | PromptPart[],
  extra: { agent?: string; model?: { providerID: string; modelID: string } } = {},
): Promise<number> {
  const parts = typeof input === "string" ? [{ type: "text" as const, text: input }] : input
  const mark = host.events.mark()
  let marks = promptMarks.get(host)
  if (!marks) promptMarks.set(host, (marks = new Map()))
  marks.set(sessionID, mark)
  const r = await host.client.session.promptAsync({ path: { id: sessionID }, body: { parts, ...extra } })
  if (r.error !== undefined || (r.response && !r.response.ok))
    throw new Error(`session.promptAsync failed (${r.response?.status}): ${JSON.stringify(r.error)}`)
  return mark
}

/** Waits for `session.idle` of sessionID after the last promptAsync() (or after `since`). */
export async function waitForIdle(host: OpencodeHost, sessionID: string, timeoutMs: number, since?: number): Promise<any> {
  const from = since ?? promptMarks.get(host)?.get(sessionID) ?? 0
  return host.events.waitForEvent(
    (e) => e?.type === "session.idle" && e.properties?.sessionID === sessionID,
    timeoutMs,
    from,
  )
}

export async function messages(host: OpencodeHost, sessionID: string): Promise<Array<{ info: any; parts: any[] }>> {
  const r = await host.client.session.messages({ path: { id: sessionID } })
  return unwrap(r, "session.messages") as any
}

export async function abortSession(host: OpencodeHost, sessionID: string): Promise<boolean> {
  const r = await host.client.session.abort({ path: { id: sessionID } })
  return unwrap(r, "session.abort") as boolean
}

// ---------------------------------------------------------------------------------------------
// Plugin log lines
// ---------------------------------------------------------------------------------------------

export type PluginLogLine = {
  level: string
  service: string
  message: string
  /** Every key=value pair of the line (including the ones above). */
  fields: Record<string, string>
  raw: string
}

/**
 * Parses one `--print-logs` line (logfmt: key=value, values with spaces are double-quoted).
 * Returns undefined for lines that are not in that format.
 */
export function parseLogLine(raw: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {}
  const re = /([A-Za-z0-9_.\-]+)=("(?:[^"\\]|\\.)*"|\S*)/g
  let m: RegExpExecArray | null
  let any = false
  while ((m = re.exec(raw))) {
    any = true
    let v = m[2] ?? ""
    if (v.startsWith('"')) {
      try {
        v = JSON.parse(v)
      } catch {
        v = v.slice(1, -1)
      }
    }
    // First occurrence wins: a plugin's extra may repeat a key such as `level`.
    if (!(m[1]! in fields)) fields[m[1]!] = v
  }
  return any ? fields : undefined
}

/**
 * Log lines a plugin wrote through `client.app.log({ body: { service, level, message, extra } })`.
 *
 * OpenCode 1.18.33 prints those as
 *   `timestamp=<iso> level=<INFO|WARN|ERROR|DEBUG> run=<id> message="<message>" <extra as key=value>`
 * and drops `body.service` entirely (nested extra objects are flattened to `a.b=...`, arrays are
 * JSON; `debug` only shows with logLevel "DEBUG"). So a line is attributed to `service` when its
 * extra carries `service=<service>` (have the plugin repeat the service inside `extra`) or its
 * message starts with `<service>:` or `[<service>]`.
 */
export function pluginLogs(host: OpencodeHost, service: string): PluginLogLine[] {
  const out: PluginLogLine[] = []
  for (const raw of host.logs()) {
    if (!raw.includes(service)) continue
    const f = parseLogLine(raw)
    if (!f || f.message === undefined) continue
    const msg = f.message
    if (f.service !== service && !msg.startsWith(`${service}:`) && !msg.startsWith(`[${service}]`)) continue
    out.push({ level: (f.level ?? "").toLowerCase(), service, message: msg, fields: f, raw })
  }
  return out
}
