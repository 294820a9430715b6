/**
 * The log on 2.x: the host has no log API and does not capture a plugin's console, so lines go to
 * a size-capped file (`$XDG_STATE_HOME/opencode-auto-resume/auto-resume.log`, else
 * `~/.local/state/...`). Writing never throws or blocks: one asynchronous writer drains a bounded
 * queue (overflow is counted in the next line), and the file rotates to `.1`, so the plugin never
 * uses more than twice the cap on disk.
 */
import { appendFile, mkdir, rename, stat } from "node:fs/promises"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import type { LogLevel } from "../../core/port.ts"

export const LOG_FILE_MAX_BYTES = 1_048_576
const MAX_QUEUED_LINES = 1000
const MAX_LINE_CHARS = 4000

/** Where the log file lives, or undefined when no state directory can be worked out. */
export function defaultLogPath(env: Record<string, string | undefined>): string | undefined {
  let base = env.XDG_STATE_HOME?.trim()
  if (!base) {
    try {
      const home = env.HOME?.trim() || homedir()
      base = home ? join(home, ".local", "state") : undefined
    } catch {
      base = undefined
    }
  }
  return base ? join(base, "opencode-auto-resume", "auto-resume.log") : undefined
}

export function formatLogLine(now: number, level: LogLevel, message: string, extra?: Record<string, unknown>): string {
  let tail = ""
  if (extra && Object.keys(extra).length > 0) {
    try {
      tail = ` ${JSON.stringify(extra)}`
    } catch {
      tail = " {unprintable extra}"
    }
  }
  const text = `${message}${tail}`.replace(/\r?\n/g, "\\n").slice(0, MAX_LINE_CHARS)
  return `${new Date(now).toISOString()} ${level.toUpperCase()} pid=${process.pid} ${text}\n`
}

export class FileLog {
  private readonly queue: string[] = []
  private dropped = 0
  private draining?: Promise<void>
  private size?: number
  private broken = false

  constructor(
    readonly path: string,
    private readonly maxBytes = LOG_FILE_MAX_BYTES,
  ) {}

  write(line: string): void {
    if (this.broken) return
    if (this.queue.length >= MAX_QUEUED_LINES) {
      this.dropped++
      return
    }
    if (this.dropped > 0) {
      this.queue.push(`(auto-resume: ${this.dropped} log line(s) dropped: the log could not keep up)\n`)
      this.dropped = 0
    }
    this.queue.push(line)
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined
    })
  }

  /** Resolves once every queued line has been written (or given up on). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining
  }

  private async drain(): Promise<void> {
    try {
      if (this.size === undefined) {
        await mkdir(dirname(this.path), { recursive: true })
        this.size = await stat(this.path).then((s) => s.size, () => 0)
      }
      while (this.queue.length > 0) {
        const chunk = this.queue.splice(0, this.queue.length).join("")
        const bytes = Buffer.byteLength(chunk)
        if (this.size + bytes > this.maxBytes && this.size > 0) {
          await rename(this.path, `${this.path}.1`).catch(() => undefined)
          this.size = 0
        }
        await appendFile(this.path, chunk)
        this.size += bytes
      }
    } catch {
      // An unwritable state directory must not cost anything more than the log itself.
      this.broken = true
      this.queue.length = 0
    }
  }
}
