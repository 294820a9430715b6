/**
 * How this adapter calls the OpenCode 2.x plugin `ctx` (shared/host/v2-opencode-2.x.md). Members
 * appeared and moved between 2.0.x releases, so every method is feature-detected at the moment of
 * the call; calls keep their receiver and a synchronous throw becomes a rejection.
 */
import { asObj, get, str } from "../shape.ts"

export class MissingMethodError extends Error {
  constructor(path: string) {
    super(`ctx.${path} is not available on this host`)
    this.name = "MissingMethodError"
  }
}

export function hasMethod(ctx: unknown, area: string, name: string): boolean {
  return typeof get(ctx, area, name) === "function"
}

/**
 * Calls `ctx.<area>.<name>(arg)` with its receiver. Rejects with MissingMethodError when the
 * method is absent, and turns a synchronous throw into a rejection.
 */
export async function callCtx(ctx: unknown, area: string, name: string, ...args: unknown[]): Promise<unknown> {
  const owner = get(ctx, area)
  const fn = get(owner, name)
  if (typeof fn !== "function") throw new MissingMethodError(`${area}.${name}`)
  return await (fn as (...a: unknown[]) => unknown).apply(owner, args)
}

/**
 * A registration's disposer (`ctx.tool.transform`, `ctx.command.transform`) that never throws
 * nor leaves a rejection behind: the host is probably tearing us down anyway.
 */
export function safeDisposer(registration: unknown): { dispose(): void } {
  const dispose = get(registration, "dispose")
  return {
    dispose() {
      try {
        if (typeof dispose === "function") void Promise.resolve(dispose.call(registration)).catch(() => undefined)
      } catch {
        // Already gone.
      }
    },
  }
}

/** `{ location, data }` envelopes (model.list, plugin.list) or a bare value. */
export function unwrapData(value: unknown): unknown {
  const o = asObj(value)
  return o && "data" in o ? o.data : value
}

/** The host's working directory, used to filter events from other locations. */
export function hostDirectory(ctx: unknown): string | undefined {
  return str(get(ctx, "location", "directory")) ?? str(get(ctx, "location"))
}

/** Where a 2.x instance runs: `ctx.location`'s directory and workspace, when the host gives them. */
export type V2Location = { directory?: string; workspaceID?: string }

/** This instance's location, the key of its registry slot; undefined when the host names neither. */
export function hostLocation(ctx: unknown): V2Location | undefined {
  const directory = hostDirectory(ctx)
  const workspaceID = str(get(ctx, "location", "workspaceID"))
  return directory === undefined && workspaceID === undefined ? undefined : { directory, workspaceID }
}

/** The host's own HTTP server, when this 2.x build exposes it (added after 2.0.16). */
export function hostServer(ctx: unknown): { url: string; password?: string } | undefined {
  const url = str(get(ctx, "app", "server", "url"))
  if (!url) return undefined
  return { url, password: str(get(ctx, "app", "server", "password")) }
}
