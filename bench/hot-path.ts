/**
 * Hot path: microseconds per streaming event (text deltas and text part updates of the
 * assistant message) through the real v1 `event` hook, for one busy session, against an empty
 * async event hook measured in the same process, interleaved run by run.
 *
 *   bun bench/hot-path.ts [--events 100000] [--runs 11] [--profile] [--json]
 *
 * Each hook call is awaited, as the host does. The real hook includes the repetition detector
 * and the progress stamp (the output's `included` says what each timed hook does). The figures
 * are wall time; the same loops are also timed by the process's CPU time (`*Cpu*`), which other
 * load on a shared machine moves less. `--profile` also records a CPU profile of the real hook
 * and lists where its self time goes.
 */
import { MessageRoles } from "../src/host/v1/events.ts"
import { mapV1Event } from "../test/support/map-events.ts"
import type { Signal } from "../src/core/port.ts"
import { realTime } from "../src/host/real-time.ts"
import { argNumber, median, report, startPlugin } from "./common.ts"

const EVENTS = argNumber("events", 100_000)
const RUNS = argNumber("runs", 11)
const SESSION = "ses_hot"

/**
 * Prose tokens: words of a seeded sequence with a sentence end every 8 to 15 words, so the
 * repetition detector does its whole look at each KB (a stream with no sentence end is the
 * cheap case it drops unread). Never the same sentence twice in a row: the detector stays quiet.
 */
function proseTokens(count: number): string[] {
  const words = "the model reads a file and checks which line of the table changed before it writes the answer back to every open session".split(" ")
  let x = 7
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return x / 2147483648
  }
  const out: string[] = []
  let left = 8
  for (let i = 0; i < count; i++) {
    const word = words[Math.floor(next() * words.length)]!
    left--
    out.push(left === 0 ? `${word}. ` : `${word} `)
    if (left === 0) left = 8 + Math.floor(next() * 8)
  }
  return out
}

/** A realistic stream: every other event a delta of prose, the others a growing text part update. */
function streamEvents(count: number): Array<{ event: unknown }> {
  const out: Array<{ event: unknown }> = []
  const tokens = proseTokens(count)
  let text = ""
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) {
      out.push({ event: { type: "message.part.delta", properties: { sessionID: SESSION, messageID: "msg_a", partID: "prt_1", field: "text", delta: tokens[i]! } } })
    } else {
      text += tokens[i - 1]! + tokens[i]!
      if (text.length > 4000) text = ""
      out.push({ event: { type: "message.part.updated", properties: { part: { id: "prt_1", type: "text", text, sessionID: SESSION, messageID: "msg_a" } } } })
    }
  }
  return out
}

/**
 * The floor: the least any hook can do that stamps liveness per event, which the watchdog
 * needs to time a stall to the millisecond. It reads the production clock once, finds the
 * session (one string compare: the newest-session fast path) and writes the three stamps a
 * streaming event moves. No mapping, no validation, no modules, no try/catch: the real hook
 * cannot get below this, so the ratio the issue targets cannot either.
 */
function floorHook(): (input: { event: unknown }) => Promise<void> {
  const now = realTime().now
  const session = { id: SESSION, lastSeenAt: 0, lastActivityAt: 0, lastModelOutputAt: 0 }
  const done = Promise.resolve()
  return (input) => {
    const t = now()
    const e = input.event as { type: string; properties: { sessionID?: string; part?: { sessionID?: string } } }
    const id = e.type === "message.part.delta" ? e.properties.sessionID : e.properties.part?.sessionID
    if (id === session.id) {
      session.lastSeenAt = t
      session.lastActivityAt = t
      session.lastModelOutputAt = t
    }
    return done
  }
}

/** µs per event, wall time; `cpu` (when given) gets the process's CPU µs per event of the same loop. */
async function drive(hook: (input: { event: unknown }) => Promise<void>, events: Array<{ event: unknown }>, n: number, cpu?: number[]): Promise<number> {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < n; i++) await hook(events[i % events.length]!)
  const wall = ((performance.now() - start) * 1000) / n
  if (cpu) {
    const used = process.cpuUsage(cpuStart)
    cpu.push((used.user + used.system) / n)
  }
  return wall
}

/** A genuine user turn: the session is busy, the assistant message is known. */
async function startTurn(hooks: Record<string, (...args: unknown[]) => Promise<void>>): Promise<void> {
  await hooks["chat.message"]!({ sessionID: SESSION, agent: "build", model: { providerID: "anthropic", modelID: "claude-x" } }, { message: { id: "msg_u" }, parts: [{ type: "text", text: "go" }] })
  await hooks.event!({ event: { type: "session.status", properties: { sessionID: SESSION, status: { type: "busy" } } } })
  await hooks.event!({ event: { type: "message.updated", properties: { info: { id: "msg_a", sessionID: SESSION, role: "assistant", tokens: { output: 1, reasoning: 0 } } } } })
}

export async function hotPath(events = EVENTS, runs = RUNS) {
  const { plugin, hooks, stop } = startPlugin({})
  const stream = streamEvents(1024)
  await startTurn(hooks)

  const empty = async (_input: { event: unknown }): Promise<void> => {}
  const floor = floorHook()
  const real = hooks.event as (input: { event: unknown }) => Promise<void>
  // Warm-up: every path compiled by the optimising tiers before anything is timed.
  await drive(empty, stream, 20_000)
  await drive(floor, stream, 20_000)
  await drive(real, stream, 20_000)

  const emptyUs: number[] = []
  const floorUs: number[] = []
  const realUs: number[] = []
  const floorCpuUs: number[] = []
  const realCpuUs: number[] = []
  for (let r = 0; r < runs; r++) {
    emptyUs.push(await drive(empty, stream, events))
    floorUs.push(await drive(floor, stream, events, floorCpuUs))
    realUs.push(await drive(real, stream, events, realCpuUs))
  }
  // Where the time goes, piece by piece (same events, same process, medians of `runs`):
  //  - one read of the production clock (realTime().now()), which the hook needs once per
  //    event to stamp liveness: on some virtual machines it alone costs about an empty hook;
  //  - the v1 event mapping alone (mapV1Event), synchronous;
  //  - engine.handle alone on the already-mapped signals, synchronous.
  const clock = realTime()
  const roles = new MessageRoles()
  roles.set("msg_a", "assistant", SESSION)
  const signals: Signal[] = stream.flatMap((e) => mapV1Event(e.event, roles, Date.now))
  const engine = plugin.engine
  const clockUs: number[] = []
  const mapUs: number[] = []
  const engineUs: number[] = []
  let sink = 0
  for (let r = 0; r < runs; r++) {
    let t = performance.now()
    for (let i = 0; i < events; i++) sink += clock.now()
    clockUs.push(((performance.now() - t) * 1000) / events)
    t = performance.now()
    for (let i = 0; i < events; i++) mapV1Event(stream[i % stream.length]!.event, roles, Date.now)
    mapUs.push(((performance.now() - t) * 1000) / events)
    t = performance.now()
    const now = Date.now()
    for (let i = 0; i < events; i++) engine.handle(signals[i % signals.length]!, now)
    engineUs.push(((performance.now() - t) * 1000) / events)
  }
  if (sink === 0) console.error("clock read nothing")
  stop()
  const emptyMedian = median(emptyUs)
  const floorMedian = median(floorUs)
  const realMedian = median(realUs)
  return {
    bench: "hot-path",
    // What each timed hook does per event, so the ratio says what it compares.
    included: {
      real: "the v1 event hook as the host calls it (startV1, default options): event mapping, session lookup, liveness and progress stamps, the stall deadline's check, the repetition detector on every text delta and text-part update (a look per KB)",
      floor: "one read of the production clock, the session id compared, three liveness stamps",
      empty: "an empty async function",
    },
    eventsPerRun: events,
    runs,
    emptyHookUsPerEvent: emptyMedian,
    realHookUsPerEvent: realMedian,
    ratio: realMedian / emptyMedian,
    overheadUsPerEvent: realMedian - emptyMedian,
    breakdownUs: { clockRead: median(clockUs), mapV1Event: median(mapUs), engineHandle: median(engineUs) },
    // The least a hook that stamps liveness can cost, against the empty hook and the real one.
    floorHookUsPerEvent: floorMedian,
    floorRatio: floorMedian / emptyMedian,
    ratioToFloor: realMedian / floorMedian,
    // The same loops timed by the process's CPU time (less moved by other load on a shared machine).
    floorCpuUsPerEvent: median(floorCpuUs),
    realCpuUsPerEvent: median(realCpuUs),
    ratioToFloorCpu: median(realCpuUs) / median(floorCpuUs),
    realRunsUs: realUs,
    floorRunsUs: floorUs,
    emptyRunsUs: emptyUs,
  }
}

/** Self time by function while the real hook runs, from a CPU profile (--profile). */
async function profile(): Promise<Array<{ fn: string; share: number }>> {
  const inspector = await import("node:inspector")
  const session = new inspector.Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))))
  const { hooks, stop } = startPlugin({})
  const stream = streamEvents(1024)
  // The same turn as the timed runs: text parts of a known assistant message.
  await startTurn(hooks)
  await post("Profiler.enable")
  await post("Profiler.start")
  await drive(hooks.event as (input: { event: unknown }) => Promise<void>, stream, 300_000)
  const res = (await post("Profiler.stop")) as { profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples: number[]; timeDeltas: number[] } }
  stop()
  const byId = new Map(res.profile.nodes.map((n) => [n.id, n]))
  const self = new Map<string, number>()
  let total = 0
  res.profile.samples.forEach((id, i) => {
    const n = byId.get(id)
    const d = res.profile.timeDeltas[i] ?? 0
    const name = n ? `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}` : "?"
    self.set(name, (self.get(name) ?? 0) + d)
    total += d
  })
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([fn, t]) => ({ fn, share: t / Math.max(1, total) }))
}

if (import.meta.main) {
  const result: Record<string, unknown> = await hotPath()
  if (process.argv.includes("--profile")) {
    try {
      result.profile = await profile()
    } catch (error) {
      result.profile = `profiling unavailable: ${error instanceof Error ? error.message : String(error)}`
    }
  }
  report(result)
}
