/**
 * The core's logger: never throws, drops debug lines unless asked for them, and reports a
 * recurring fault once per kind instead of once per event.
 */
import type { HostPort, LogLevel } from "./port.ts"

const MAX_FAULT_KINDS = 64

export class CoreLogger {
  private readonly faultsSeen = new Set<string>()

  constructor(
    private readonly port: Pick<HostPort, "log">,
    private readonly debugEnabled: () => boolean,
  ) {}

  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void {
    if (level === "debug" && !this.debugEnabled()) return
    try {
      this.port.log(level, message, extra)
    } catch {
      // A broken log sink must not take recovery down with it.
    }
  }

  /** Logs the first occurrence of a fault kind as a warning, later ones only at debug level. */
  fault(kind: string, message: string, extra?: Record<string, unknown>): void {
    if (this.faultsSeen.has(kind)) {
      this.log("debug", message, extra)
      return
    }
    if (this.faultsSeen.size < MAX_FAULT_KINDS) this.faultsSeen.add(kind)
    this.log("warn", `${message} (further ${kind} faults are logged at debug level)`, extra)
  }
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300)
  try {
    return String(error).slice(0, 300)
  } catch {
    return "unprintable error"
  }
}
