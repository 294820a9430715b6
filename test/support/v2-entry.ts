/**
 * The plugin's default export (`src/index.ts`, `setup(ctx)`) on the fake 2.x host, on simulated
 * time: bun's fake timers drive the production clock, the pause marker and the log live in a
 * temporary folder (the matrix's Sandbox), and the host's HTTP server is reachable through a
 * stubbed globalThis.fetch. `close()` restores everything.
 */
import { readFileSync } from "node:fs"
import path from "node:path"
import plugin from "../../src/index.ts"
import { advance, flush, Sandbox } from "../matrix/host-common.ts"
import { FakeV2Host, type FakeV2Options } from "./fake-v2-host.ts"

export type EntryRig = {
  host: FakeV2Host
  /** Loads the plugin through the default export on `ctx` (the host's own unless given). */
  load(ctx?: Record<string, unknown>): void
  /** Advances fake time in one-second steps, letting promises settle. */
  advance(ms: number): Promise<void>
  /** The plugin's log lines so far. */
  log(): string[]
  close(): Promise<void>
}

let scopes = 0
/** A registry scope no other test uses. */
export function entryScope(): string {
  return `entry-v2-${process.pid}-${++scopes}`
}

export async function entryRig(options: Record<string, unknown> = {}, hostOptions: FakeV2Options = {}): Promise<EntryRig> {
  const sandbox = new Sandbox()
  const host = new FakeV2Host({ options: { registryScope: entryScope(), ...options }, directory: `/entry/project-${process.pid}-${scopes}`, ...hostOptions })
  const realFetch = globalThis.fetch
  globalThis.fetch = host.fetch as unknown as typeof fetch
  const cleanups: (() => void)[] = []
  const logFile = path.join(sandbox.dir, "state", "opencode-auto-resume", "auto-resume.log")
  const rig: EntryRig = {
    host,
    load(ctx = host.ctx) {
      const cleanup = plugin.setup(ctx)
      if (cleanup) cleanups.push(cleanup)
    },
    async advance(ms) {
      // What the last act set going (a host call, a hook) settles at the current instant first.
      await flush()
      await advance(ms)
    },
    log() {
      try {
        return readFileSync(logFile, "utf8").split("\n")
      } catch {
        return []
      }
    },
    async close() {
      for (const cleanup of cleanups) cleanup()
      await flush(10)
      globalThis.fetch = realFetch
      sandbox.close()
    },
  }
  rig.load()
  await flush(10)
  return rig
}
