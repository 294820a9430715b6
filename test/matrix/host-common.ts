/**
 * What both host drivers share: the driver interface, fake-time helpers and the sandbox that
 * keeps the pause marker and the log file in a temporary folder.
 *
 * Time is bun's fake timers (`jest.useFakeTimers`): the plugin runs on its production clock
 * (Date.now and setTimeout, both faked), as it does when a host loads the default export.
 * setImmediate is not faked, so pending promise callbacks (and real file I/O) are let run by
 * yielding to it.
 */
import { jest } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import type { Act, Step } from "./steps.ts"

export type HostName = "v1" | "v2"

export interface MatrixHost {
  readonly name: HostName
  /** What the plugin did so far, in order. */
  readonly acts: Act[]
  play(step: Step): Promise<void>
  /** Every log line the plugin wrote (for failure messages). */
  logs(): string[]
  /** The startup line (`... accepted-but-inert=...`), once the plugin wrote it. */
  startupLine(): Promise<string | undefined>
  stop(): Promise<void>
}

export type HostFactory = (options: Record<string, unknown>) => Promise<MatrixHost>

/** Lets every pending promise callback run (a few turns of the event loop). */
export async function flush(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

const STEP_MS = 1000

/** Advances fake time by `ms` in one-second steps, letting promises settle between steps. */
export async function advance(ms: number, each?: () => void): Promise<void> {
  for (let left = ms; left > 0; left -= STEP_MS) {
    jest.advanceTimersByTime(Math.min(STEP_MS, left))
    await flush()
    each?.()
  }
}

/** Awaits a promise that may need real I/O (file reads) and fake timers (lock retries) to settle. */
export async function settle<T>(promise: Promise<T>): Promise<T> {
  let done = false
  const watched = promise.finally(() => {
    done = true
  })
  // Handled at once: a rejection waiting for the loop below must not read as unhandled.
  watched.catch(() => undefined)
  for (let i = 0; i < 5000 && !done; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve))
    if (i % 20 === 19) jest.advanceTimersByTime(5)
  }
  return watched
}

/** Real pauses for `until`: Atomics.wait sleeps on the wall clock even under fake timers. */
const realPause = new Int32Array(new SharedArrayBuffer(4))

/**
 * Waits until `ready()` holds or the bound runs out: first `turns` event-loop turns (no timer,
 * since a cell runs on fake time, which also freezes Date and performance.now), then turns with
 * a real 5 ms pause between them for up to `realMs` more. The second part is for what finishes
 * on another thread (a file write, the state-file log): a few thousand turns take a few ms,
 * which a loaded machine can outlast (seen: the journal's first line missing in a parallel run).
 */
export async function until(ready: () => boolean, turns = 3000, realMs = 5_000): Promise<boolean> {
  for (let i = 0; i < turns; i++) {
    if (ready()) return true
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  for (let waited = 0; waited < realMs; waited += 5) {
    if (ready()) return true
    Atomics.wait(realPause, 0, 0, 5)
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  return ready()
}

/**
 * The production clock is one per process, kept on globalThis (src/host/real-time.ts). A cell
 * runs it on fake time, which leaves it ahead of the wall afterwards: each cell gets its own
 * and the process's is put back, so tests after the matrix see the clock they would without it.
 */
const PROCESS_CLOCK = Symbol.for("opencode-auto-resume.forward-only-clock")

const ENV_KEYS = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "AUTO_RESUME_DEBUG", "AUTO_RESUME_VISIBLE_CONTINUE"] as const

/** A temporary home for the pause marker and the 2.x log, and fake timers; `close` restores all. */
export class Sandbox {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), "auto-resume-matrix-"))
  private readonly saved = new Map<string, string | undefined>()
  private readonly savedClock = (globalThis as Record<symbol, unknown>)[PROCESS_CLOCK]

  constructor() {
    delete (globalThis as Record<symbol, unknown>)[PROCESS_CLOCK]
    for (const key of ENV_KEYS) this.saved.set(key, process.env[key])
    process.env.XDG_CONFIG_HOME = path.join(this.dir, "config")
    process.env.XDG_STATE_HOME = path.join(this.dir, "state")
    delete process.env.AUTO_RESUME_DEBUG
    delete process.env.AUTO_RESUME_VISIBLE_CONTINUE
    jest.useFakeTimers()
  }

  close(): void {
    jest.useRealTimers()
    const g = globalThis as Record<symbol, unknown>
    if (this.savedClock === undefined) delete g[PROCESS_CLOCK]
    else g[PROCESS_CLOCK] = this.savedClock
    for (const [key, value] of this.saved) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
    rmSync(this.dir, { recursive: true, force: true })
  }
}

let serial = 0
/** A location no other test uses, so no instance of another test is superseded. */
export function freshDirectory(): string {
  return `/matrix/project-${process.pid}-${++serial}`
}
