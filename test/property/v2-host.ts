/**
 * The scripted host as OpenCode 2.x hands it to `setup(ctx)`: the `ctx` surface the 2.x
 * adapter uses, answered through the same ScriptedHost (call scripts, oracle records), with
 * the events of V2Wire on `ctx.event.subscribe()`.
 *
 * The 2.x faults live here:
 *  - a subscription that ends, throws, or a subscribe that is refused (the adapter's EventPump
 *    must subscribe again). While nobody listens, durable events wait for the next subscription
 *    (the host keeps them, as it keeps the session's history) and ephemeral ones are lost;
 *  - events for another location (`location.directory` differs), which must be ignored;
 *  - durable events arriving without `durable`;
 *  - calls that never settle: the call scripts' `hang` reaches `session.prompt`, `interrupt`,
 *    `synthetic`, `compact`, `command` and `context` alike.
 *
 * The oracle is told of a neutral event when the plugin actually receives its last wire event,
 * so a late or lost delivery is what the plugin saw, not what the host meant to say, in the
 * host's order. What only the history shows (a todo list) is told when the host writes it.
 */
import type { FetchLike } from "../../src/host/v2/http.ts"
import { get, str } from "../../src/host/shape.ts"
import type { HostEvent } from "./events.ts"
import { HOST_OK, type ScriptedHost } from "./host.ts"
import type { MutatingMethod, Oracle } from "./oracle.ts"
import { HOME_DIRECTORY, type OwnItem, type V2Wire, type WireEvent } from "./v2-wire.ts"

/** The 2.x faults a scenario may carry (see arbitraries.ts, v2FaultsArb). */
export type V2Faults = {
  /** After step `after`, the open subscription ends, throws, or the next subscribe is refused. */
  breaks: Array<{ after: number; how: "end" | "throw" | "refuse" }>
  /** After every Nth step, a burst of events for another location (0: never). */
  foreignEvery: number
  /** Every Nth durable event that names its session in `data` comes without `durable` (0: never). */
  undurableEvery: number
}

export const NO_V2_FAULTS: V2Faults = { breaks: [], foreignEvery: 0, undurableEvery: 0 }

/** `keep`: durable as the host made it (a stripped `durable` is a shape fault, not a lost event). */
type Queued = { event: WireEvent; keep: boolean; onDelivered?: () => void }

type Subscription = {
  queue: Queued[]
  waiting?: { resolve: (r: IteratorResult<unknown>) => void; reject: (e: unknown) => void }
  closed: boolean
  failure?: unknown
}

/** Durable events kept for the next subscriber while none is open. */
const BACKLOG_CAP = 20_000

export class V2EventBus {
  private subs: Subscription[] = []
  private backlog: Queued[] = []
  private refuseNext = false
  private durableSeen = 0
  subscriptions = 0
  /** Ephemeral events nobody was subscribed for. */
  lost = 0
  /** Durable events sent without their `durable`. */
  stripped = 0

  constructor(private readonly undurableEvery: number) {}

  emit(event: WireEvent, onDelivered?: () => void): void {
    const keep = event.durable !== undefined
    if (keep && this.undurableEvery > 0 && typeof event.data.sessionID === "string" && ++this.durableSeen % this.undurableEvery === 0) {
      delete event.durable
      this.stripped++
    }
    const q: Queued = { event, keep, onDelivered }
    const open = this.subs.filter((s) => !s.closed)
    if (open.length === 0) {
      if (keep && this.backlog.length < BACKLOG_CAP) this.backlog.push(q)
      else this.lost++
      return
    }
    // Every open subscription gets the event; the oracle hears of it once.
    open.forEach((s, i) => this.offer(s, i === 0 ? q : { event, keep }))
  }

  private offer(s: Subscription, q: Queued): void {
    if (s.waiting) {
      const w = s.waiting
      s.waiting = undefined
      q.onDelivered?.()
      w.resolve({ value: structuredClone(q.event), done: false })
    } else s.queue.push(q)
  }

  /** Ends (or fails) every open subscription; "refuse" fails the next subscribe call instead. */
  break(how: "end" | "throw" | "refuse"): void {
    if (how === "refuse") {
      this.refuseNext = true
      return
    }
    for (const s of this.subs) this.close(s, how === "throw" ? new Error("event stream reset by the host") : undefined)
    this.subs = []
  }

  private close(s: Subscription, failure?: unknown): void {
    if (s.closed) return
    s.closed = true
    s.failure = failure
    // Undelivered events of a closed stream go back to the host for the next subscriber.
    for (const q of s.queue) if (q.keep && this.backlog.length < BACKLOG_CAP) this.backlog.push(q)
    s.queue = []
    const w = s.waiting
    s.waiting = undefined
    if (!w) return
    if (failure) w.reject(failure)
    else w.resolve({ value: undefined, done: true })
  }

  subscribe(signal?: AbortSignal): AsyncIterable<unknown> {
    this.subscriptions++
    if (this.refuseNext) {
      this.refuseNext = false
      throw new Error("event.subscribe refused: the host is restarting its bus")
    }
    const s: Subscription = { queue: this.backlog, closed: false }
    this.backlog = []
    this.subs.push(s)
    signal?.addEventListener("abort", () => this.close(s), { once: true })
    const next = (): Promise<IteratorResult<unknown>> => {
      if (s.closed) {
        const failure = s.failure
        s.failure = undefined
        return failure ? Promise.reject(failure) : Promise.resolve({ value: undefined, done: true })
      }
      const q = s.queue.shift()
      if (q) {
        q.onDelivered?.()
        return Promise.resolve({ value: structuredClone(q.event), done: false })
      }
      return new Promise((resolve, reject) => (s.waiting = { resolve, reject }))
    }
    return {
      [Symbol.asyncIterator]: () => ({
        next,
        return: () => {
          this.close(s)
          return Promise.resolve({ value: undefined, done: true })
        },
      }),
    }
  }
}

export const SERVER_URL = "http://127.0.0.1:4096"

const MODEL_LIST = [
  { id: "claude-x", providerID: "anthropic", limit: { context: 200_000, output: 32_000 } },
  { id: "qwen3", providerID: "ollama", limit: { context: 32_000, output: 8_000 } },
]

/** The `ctx` and `fetch` the 2.x adapter gets, on top of the scripted host. */
/**
 * `sendBegun(sessionID)`: when the core last asked the port to send to the session (the runner
 * records it), so the oracle times a prompt from there (see oracle.ts, invariant 3a).
 */
export function v2Context(
  host: ScriptedHost,
  wire: V2Wire,
  bus: V2EventBus,
  oracle: Oracle,
  options: Record<string, unknown>,
  sendBegun: (sessionID: string) => number | undefined,
): { ctx: unknown; fetch: FetchLike } {
  const location = { directory: HOME_DIRECTORY }
  const sid = (a: unknown) => String(get(a, "sessionID"))
  /** A session-changing call; an accepted prompt is admitted as an inbox item of ours. */
  const mutate = (method: MutatingMethod, a: unknown, answer: (a: unknown) => unknown): Promise<unknown> => {
    const kind = str(get(a, "metadata", "kind"))
    const begunAt = method === "send" ? sendBegun(sid(a)) : undefined
    return host.mutate(method, sid(a), kind, "v2", begunAt).then((value) => (value === HOST_OK ? answer(a) : value))
  }
  const admit = (type: OwnItem["type"]) => (a: unknown) => {
    const item: OwnItem = { id: wire.nextId("inb"), type, text: String(get(a, "text")), metadata: (get(a, "metadata") as Record<string, unknown>) ?? {} }
    wire.admitted(sid(a), item)
    return { id: item.id, sessionID: sid(a), type, payload: { text: item.text, metadata: item.metadata }, delivery: "queue" }
  }
  const ctx = {
    app: { name: "opencode", version: "2.0.22", channel: "latest", server: { url: SERVER_URL } },
    location,
    options,
    event: { subscribe: (o?: { signal?: AbortSignal }) => bus.subscribe(o?.signal) },
    session: {
      prompt: (a: unknown) => mutate("send", a, admit("user")),
      synthetic: (a: unknown) => mutate("send", a, admit("synthetic")),
      // Whether a run was there to stop, when the host carries the call out.
      interrupt: (a: unknown) => mutate("abort", a, () => ({ interrupted: wire.isRunning(sid(a)) })),
      compact: (a: unknown) => mutate("compact", a, () => ({ id: wire.nextId("inb_compact"), type: "compaction" })),
      command: (a: unknown) => mutate("command", a, () => undefined),
      context: (a: unknown) => host.read("readMessages", wire.messages(sid(a)), "v2"),
    },
    tool: { list: () => host.read("toolNames", [{ name: "bash" }, { name: "read" }, { name: "edit" }, { name: "subagent" }], "v2") },
    plugin: { list: () => host.read("pluginNames", { location, data: [] }, "v2") },
    model: { list: () => host.read("modelLimits", { location, data: MODEL_LIST }, "v2") },
  }
  const fetch: FetchLike = (url, init) => {
    const { pathname: path, searchParams } = new URL(url)
    const messages = /^\/api\/session\/([^/]+)\/message$/.exec(path)
    const limit = Math.min(200, Number(searchParams.get("limit") ?? 200) || 200)
    const answer =
      path === "/api/session/active"
        ? host.read("listBusySessions", { data: Object.fromEntries(oracle.busyIds().map((id) => [id, { type: "running" }])) }, "v2")
        : messages
          ? // The message route: newest first, capped, as a page.
            host.read("readMessages", { data: wire.messages(decodeURIComponent(messages[1]!)).reverse().slice(0, limit), cursor: null }, "v2")
          : Promise.resolve({ __status: 404 })
    // Like a real fetch: the request's signal cancels it.
    return new Promise((resolve, reject) => {
      init.signal.addEventListener("abort", () => reject(init.signal.reason ?? new Error("aborted")), { once: true })
      answer.then((body) => {
        const status = get(body, "__status") === 404 ? 404 : 200
        resolve({ ok: status === 200, status, json: async () => body })
      }, reject)
    })
  }
  return { ctx, fetch }
}

/**
 * Delivers one neutral event as 2.x events; `onSeen` runs when the plugin receives the last,
 * with the wire types that carried it.
 */
export function deliverV2(
  wire: V2Wire,
  bus: V2EventBus,
  e: HostEvent,
  id: string,
  onSeen: (via: string) => void,
  onPart: (part: HostEvent, via: string) => void,
): void {
  const events = wire.translate(e, id)
  const via = events.map((ev) => ev.type).join("+")
  // Only in the history (a todo list): the plugin may read it from now on.
  if (events.length === 0) {
    onSeen("history only")
    return
  }
  events.forEach((event, i) => {
    if (i === events.length - 1) return bus.emit(event, () => onSeen(via))
    // An earlier event of the group tells the plugin part of it already (a run starting, the
    // model writing): the oracle hears that part when the plugin does, so a stream cut inside
    // the group leaves both with the same account.
    const part = partOf(event.type, e.s)
    bus.emit(event, part ? () => onPart(part, event.type) : undefined)
  })
}

/** What a leading event of a group says on its own, as a neutral event. */
function partOf(type: string, s: HostEvent["s"]): HostEvent | undefined {
  if (type === "session.execution.started") return { t: "busy", s }
  if (type.startsWith("session.tool.input.") || type === "session.text.ended") return { t: "output", s }
  return undefined
}
