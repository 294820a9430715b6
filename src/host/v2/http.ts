/**
 * The two reads 2.x offers only over HTTP: the running sessions and the message route.
 *
 * Requests go to the host's own server (`ctx.app.server.url`) and nowhere else: no guessed
 * port, no localhost fallback. The Basic credentials (`opencode:<password>`) are attached only
 * when the host has a password, and only to that URL. Each request is cancelled after the
 * timeout on the injected clock, so a hung socket never outlives the core's bound.
 */
import type { TimeSource } from "../../core/clock.ts"
import { hostServer } from "./context.ts"

export type FetchResponse = { ok: boolean; status: number; json(): Promise<unknown> }
export type FetchLike = (
  url: string,
  init: { method: "GET"; headers: Record<string, string>; signal: AbortSignal },
) => Promise<FetchResponse>

/** Largest page the message route is reported to return. */
export const MESSAGE_ROUTE_CAP = 200

export class HostHttp {
  constructor(
    private readonly ctx: unknown,
    private readonly fetchImpl: FetchLike | undefined,
    private readonly time: TimeSource,
    private readonly timeoutMs: () => number,
  ) {}

  get available(): boolean {
    return this.fetchImpl !== undefined && hostServer(this.ctx) !== undefined
  }

  /** GET `path` on the host's server; rejects on anything but a 2xx JSON answer. */
  async getJson(path: string, query?: Record<string, string | number>): Promise<unknown> {
    const server = hostServer(this.ctx)
    if (!server) throw new Error("the host exposes no server URL (ctx.app.server.url); HTTP reads are unavailable")
    if (!this.fetchImpl) throw new Error("no fetch implementation available")
    const base = new URL(server.url)
    const url = new URL(`${base.href.replace(/\/+$/, "")}${path}`)
    if (url.origin !== base.origin) throw new Error("refusing a request outside the host's server")
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, String(value))

    const headers: Record<string, string> = { accept: "application/json" }
    if (server.password) headers.authorization = `Basic ${Buffer.from(`opencode:${server.password}`).toString("base64")}`

    const controller = new AbortController()
    const ms = this.timeoutMs()
    const cancel = this.time.schedule(ms, () => controller.abort(new Error(`GET ${path} did not answer within ${ms}ms`)))
    try {
      const response = await this.fetchImpl(url.href, { method: "GET", headers, signal: controller.signal })
      if (!response.ok) throw new Error(`GET ${path} answered HTTP ${response.status}`)
      return await response.json()
    } finally {
      cancel()
    }
  }
}
