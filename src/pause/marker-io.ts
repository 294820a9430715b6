/** The marker store's synchronous fs calls, a seam so tests can substitute failing ones. */
import type nodeFs from "node:fs"
import path from "node:path"

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

/**
 * One writer's way to a file beside the pause marker: its folder (0700), temp-file names no
 * other writer of the same file uses at the same moment, and the write itself, a 0600 temp
 * file fsynced and renamed into place so that a reader never sees half a file. Shared by the
 * pause marker and the rate-limit wait file.
 */
export class AtomicFileWriter {
  private seq = 0

  constructor(
    private readonly fs: MarkerFs,
    private readonly filePath: string,
    private readonly pid: number,
    private readonly now: () => number,
  ) {}

  /** Throws PauseFileError. */
  ensureDir(): void {
    const dir = path.dirname(this.filePath)
    try {
      this.fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    } catch (error) {
      throw new PauseFileError(`cannot create ${dir}: ${describe(error)}`)
    }
  }

  uniqueSuffix(): string {
    this.seq = (this.seq + 1) % 1_000_000
    return `${this.pid}.${this.now().toString(36)}.${this.seq}.${Math.random().toString(36).slice(2, 8)}`
  }

  /** Throws PauseFileError. */
  write(content: string): void {
    this.ensureDir()
    const tmp = `${this.filePath}.${this.uniqueSuffix()}.tmp`
    let fd: number | undefined
    try {
      fd = this.fs.openSync(tmp, "wx", 0o600)
      this.fs.fchmodSync(fd, 0o600)
      const bytes = Buffer.from(content, "utf8")
      let written = 0
      while (written < bytes.length) written += this.fs.writeSync(fd, bytes, written, bytes.length - written)
      this.fs.fsyncSync(fd)
      this.fs.closeSync(fd)
      fd = undefined
      this.fs.renameSync(tmp, this.filePath)
    } catch (error) {
      // Already failing, and the temp file may never have been created: clean up what there is.
      if (fd !== undefined) orElse(() => this.fs.closeSync(fd!), undefined)
      orElse(() => this.fs.unlinkSync(tmp), undefined)
      throw new PauseFileError(`cannot write ${this.filePath}: ${describe(error)}`)
    }
  }
}
