/** The marker store's synchronous fs calls, a seam so tests can substitute failing ones. */
import type nodeFs from "node:fs"

export type MarkerFs = Pick<
  typeof nodeFs,
  | "openSync"
  | "closeSync"
  | "readSync"
  | "writeSync"
  | "fsyncSync"
  | "fstatSync"
  | "fchmodSync"
  | "statSync"
  | "readFileSync"
  | "renameSync"
  | "unlinkSync"
  | "linkSync"
  | "mkdirSync"
>

/** Every failure of the marker store: I/O, a refused state, a lock that never came free. */
export class PauseFileError extends Error {
  override readonly name = "PauseFileError"
}

export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

/** A short reason for an error message: the errno code and syscall, else the message. */
export function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  return e?.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ""}` : error instanceof Error ? error.message : String(error)
}

/** `step()`, or `fallback` when it throws: for best-effort steps whose failure changes nothing that matters. */
export function orElse<T>(step: () => T, fallback: T): T {
  try {
    return step()
  } catch {
    return fallback
  }
}

/** An error's own message, for log lines that name what failed themselves. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
