/**
 * The marker store's contact with the file system: the small set of synchronous fs calls it
 * makes (a seam, so tests can substitute failing ones) and how an fs failure is reported.
 * Shared by the reader/writer (marker-file.ts) and the lock (marker-lock.ts), which both
 * turn any I/O failure into one error type the callers can catch.
 */
import type nodeFs from "node:fs"

/** The synchronous fs calls the store uses; tests substitute failing ones. */
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

/** The errno code of an fs error, when it has one (ENOENT, EEXIST ...). */
export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

/** A short reason for an error message: the errno code and syscall, else the message. */
export function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  return e?.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ""}` : error instanceof Error ? error.message : String(error)
}
