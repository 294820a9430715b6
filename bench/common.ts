/**
 * Shared by the benchmarks: the real v1 plugin (startV1) on a minimal SDK client that answers
 * at once, statistics, and the machine line. Every bench module also runs standalone and
 * prints JSON with `--json`, which is how bench/run.ts calls it (one process per bench, so one
 * bench's heap and JIT state cannot colour another's figures).
 */
import os from "node:os"
import type { TimeSource } from "../src/core/clock.ts"
import { MemoryPauses } from "../src/core/pauses.ts"
import { startV1 } from "../src/host/v1/adapter.ts"

export type SendSeen = { sessionID: string; at: number }

/** A 1.x SDK client that answers every call immediately and records prompts. */
export function benchClient(onSend?: (s: SendSeen) => void) {
  const ok = async () => ({ data: true })
  return {
    session: {
      promptAsync: async (o: { path?: { id?: string } }) => {
        onSend?.({ sessionID: String(o?.path?.id), at: performance.now() })
        return { data: {} }
      },
      abort: ok,
      messages: async () => ({ data: [] }),
      todo: async () => ({ data: [] }),
      status: async () => ({ data: {} }),
      summarize: ok,
      command: ok,
    },
    app: { log: ok },
    tool: { ids: async () => ({ data: ["bash", "read", "edit"] }) },
    config: { get: async () => ({ data: { plugin: [] } }), providers: async () => ({ data: { providers: [] } }) },
  }
}

/** The plugin as OpenCode 1.x runs it, minus the pause marker file (in-memory pauses). */
export function startPlugin(options: Record<string, unknown>, time?: TimeSource, onSend?: (s: SendSeen) => void) {
  const plugin = startV1({ client: benchClient(onSend) }, options, {}, { time, pauses: new MemoryPauses() })
  const hooks = plugin.hooks as unknown as Record<string, (...args: unknown[]) => Promise<void>>
  const stop = () => {
    const p = plugin as { stop?: (reason?: string) => void }
    if (typeof p.stop === "function") p.stop("bench done")
    else plugin.engine.dispose()
  }
  return { plugin, hooks, stop }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!
}

export function machine() {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    bun: typeof Bun !== "undefined" ? `${Bun.version} (${Bun.revision.slice(0, 9)})` : "n/a",
    jsc: process.versions.webkit ?? "n/a",
    nodeCompat: process.versions.node,
    loadAverage: os.loadavg().map((l) => l.toFixed(2)).join(" "),
  }
}

/** `--json`: print one JSON line (for bench/run.ts); otherwise a readable line per field. */
export function report(result: Record<string, unknown>): void {
  if (process.argv.includes("--json")) console.log(JSON.stringify(result))
  else for (const [k, v] of Object.entries(result)) console.log(`${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`)
}

export function argNumber(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  const n = i >= 0 ? Number(process.argv[i + 1]) : NaN
  return Number.isFinite(n) && n > 0 ? n : fallback
}
