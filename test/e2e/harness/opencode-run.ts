/**
 * Runs the headless `opencode run [message]` (opencode-ai 1.18.x) once, in the same kind of
 * throwaway offline sandbox that `startOpencode` (opencode-host.ts) gives a server: fresh HOME
 * and XDG folders under one temp root, the environment cut down to PATH and locale, the npm
 * seeding that keeps OpenCode from installing `@opencode-ai/plugin` at start, and a
 * project-level opencode.json built by the same `buildConfig` (fake provider only, the given
 * plugins). The process runs in its own process group; whatever it leaves behind (its own
 * children, bash-tool commands in their own groups) is killed before the result is returned.
 */
import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { descendantPids, parseLogLine, prepareSandbox, resolveOpencodeBinary, type StartOpencodeOptions } from "./opencode-host.ts"

const PLUGIN_VERSION = "1.18.33"

export type RunOpencodeOptions = Omit<StartOpencodeOptions, "startTimeoutMs" | "maxLogLines"> & {
  /** The message, passed as the positional argument. */
  message: string
  /** `--model` (default "fake/fake-model"). */
  model?: string
  /** `--format` (default: OpenCode's default, formatted text). */
  format?: "default" | "json"
  /** Hard bound on the whole run; the process group is killed when it runs out. Default 60 s. */
  timeoutMs?: number
}

export type RunOpencodeResult = {
  /** Exit code, or null when killed by a signal (e.g. by the timeout). */
  code: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  stdout: string
  /** stderr, with `--print-logs` on: OpenCode's log lines, plugins' `client.app.log` included. */
  stderr: string
  /** Temp root (kept only with keepTemp / E2E_KEEP_TEMP=1). */
  root: string
}


/** Start time of a process (field 22 of /proc/<pid>/stat), to tell it from a later one reusing its pid. */
function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
  }
}

/** Signals each process (and the group it leads) that is still the very process that was noted. */
function signalTree(noted: Map<number, string | undefined>, sig: NodeJS.Signals) {
  for (const [p, started] of noted) {
    if (started === undefined || startTime(p) !== started) continue // gone, or its pid was reused
    for (const target of [-p, p]) {
      try {
        process.kill(target, sig)
      } catch {
        /* not a group leader, or gone */
      }
    }
  }
}

function noteProcesses(pids: number[], into = new Map<number, string | undefined>()): Map<number, string | undefined> {
  for (const p of pids) if (!into.has(p)) into.set(p, startTime(p))
  return into
}

const running = new Set<number>()
let exitHookInstalled = false
function installExitHook() {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on("exit", () => {
    for (const pid of running) signalTree(noteProcesses([...descendantPids(pid), pid]), "SIGKILL")
  })
}

export async function runOpencode(opts: RunOpencodeOptions): Promise<RunOpencodeResult> {
  installExitHook()
  const bin = resolveOpencodeBinary()
  const keepTemp = opts.keepTemp ?? process.env.E2E_KEEP_TEMP === "1"
  const { root, dirs, env } = prepareSandbox("oc-run-", opts)
  const args = ["run", "--print-logs", "--model", opts.model ?? "fake/fake-model"]
  if (opts.logLevel) args.push("--log-level", opts.logLevel)
  if (opts.format) args.push("--format", opts.format)
  args.push(opts.message)

  const child = spawn(bin, args, { cwd: dirs.project, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
  const pid = child.pid
  if (!pid) throw new Error("failed to spawn opencode run")
  running.add(pid)
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))

  let timedOut = false
  // Note the tree while the process lives: once it is gone its children are reparented.
  const tree = noteProcesses([pid])
  const noteTree = () => noteProcesses(descendantPids(pid), tree)
  const watch = setInterval(noteTree, 200)
  const timer = setTimeout(() => {
    timedOut = true
    noteTree()
    signalTree(tree, "SIGKILL")
  }, opts.timeoutMs ?? 60_000)

  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once("exit", (c, s) => resolve([c, s]))
  })
  clearTimeout(timer)
  clearInterval(watch)
  // Anything it started and left running goes now; then the pipes close.
  tree.delete(pid) // exited and reaped: its pid is no longer ours
  signalTree(tree, "SIGKILL")
  try {
    process.kill(-pid, "SIGKILL") // whatever is left in the group it led
  } catch {
    /* no such group: nothing left */
  }
  await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))])
  child.stdout.destroy()
  child.stderr.destroy()
  running.delete(pid)
  if (!keepTemp) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 })
  return { code, signal, timedOut, stdout, stderr, root }
}

/** Messages of the lines in a run's stderr that a plugin logged with `service=<service>`. */
export function runPluginLogs(result: RunOpencodeResult, service: string): string[] {
  const out: string[] = []
  for (const raw of result.stderr.split("\n")) {
    if (!raw.includes(service)) continue
    const fields = parseLogLine(raw)
    if (!fields || fields.message === undefined) continue
    if (fields.service !== service && !fields.message.startsWith(`${service}:`)) continue
    out.push(`${(fields.level ?? "").toLowerCase()} ${fields.message}`)
  }
  return out
}
