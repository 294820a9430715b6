/**
 * The host's tool names, cached for TOOL_IDS_CACHE_MS and fetched with a bounded call.
 * With no registry, an empty one or one that throws, there is simply no list: callers must
 * then make no suggestion rather than guess.
 */
import { ToolListCache, usableToolNames } from "../detect/unknown-tool.ts"
import type { EngineContext } from "./context.ts"
import { withTimeout } from "./host-calls.ts"
import { errorText } from "./logger.ts"

export class ToolNames {
  private readonly cache = new ToolListCache()
  private inFlight?: Promise<readonly string[] | undefined>

  constructor(private readonly ctx: EngineContext, private readonly timeoutMs: () => number) {}

  /** The cached list if fresh; never waits. */
  peek(): readonly string[] | undefined {
    return this.cache.get(this.ctx.time.now())
  }

  /** The list, fetching it when the cache is stale; undefined when the host cannot say. */
  async get(): Promise<readonly string[] | undefined> {
    const fresh = this.peek()
    if (fresh) return fresh
    this.inFlight ??= this.fetch().finally(() => (this.inFlight = undefined))
    return this.inFlight
  }

  private async fetch(): Promise<readonly string[] | undefined> {
    try {
      const list = await withTimeout(this.ctx.time, this.timeoutMs(), "tool list", () => this.ctx.port.toolNames())
      const names = usableToolNames(Array.isArray(list) ? list.filter((x) => typeof x === "string").slice(0, 1000) : [])
      if (names.length === 0) return undefined
      this.cache.set(names, this.ctx.time.now())
      return names
    } catch (error) {
      this.ctx.logger.fault("tool-list", `tool list unavailable: ${errorText(error)}`)
      return undefined
    }
  }
}
