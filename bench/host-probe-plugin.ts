/**
 * The plugin as bench/host-share.ts loads it into a real host: the default export of
 * src/index.ts, each of its hooks timed. The time spent inside the plugin's hooks (wall time of
 * each call, which on the host's one JavaScript thread is CPU time of that thread unless the
 * machine preempts it) is summed per hook and written, with the event counts, to the file named
 * by AUTO_RESUME_PROBE_OUT whenever a session goes idle. That direct figure does not depend on
 * the run-to-run noise of the host's own CPU time, which the with/without comparison does.
 *
 * Loaded by OpenCode as a plugin module: nothing but the default export.
 */
import { writeFileSync } from "node:fs"
import plugin from "../src/index.ts"
import { BUCKETS, bucketOf } from "./host-probe-histogram.ts"

type Totals = { hookMs: Record<string, number>; calls: Record<string, number>; eventTypes: Record<string, number>; eventTypeMs: Record<string, number> }

/** AUTO_RESUME_PROBE_PROFILE names a file: a CPU profile of the whole host, written at each idle. */
async function profiler(file: string | undefined): Promise<(() => void) | undefined> {
  if (!file) return undefined
  const inspector = await import("node:inspector")
  const session = new inspector.Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))))
  await post("Profiler.enable")
  await post("Profiler.setSamplingInterval", { interval: 100 })
  await post("Profiler.start")
  return () => {
    void post("Profiler.stop")
      .then((res) => writeFileSync(file, JSON.stringify((res as { profile: unknown }).profile)))
      .then(() => post("Profiler.start"))
      .catch(() => undefined)
  }
}

async function server(input: unknown, options?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const snapshot = await profiler(process.env.AUTO_RESUME_PROBE_PROFILE)
  const hooks = (await plugin.server(input as never, options)) as unknown as Record<string, unknown>
  const out = process.env.AUTO_RESUME_PROBE_OUT
  const totals: Totals = { hookMs: {}, calls: {}, eventTypes: {}, eventTypeMs: {} }
  const wrapped: Record<string, unknown> = {}
  const delta = { shortMs: 0, longMs: 0, longCalls: 0, histogram: new Array<number>(BUCKETS).fill(0) }
  for (const [name, hook] of Object.entries(hooks)) {
    if (typeof hook !== "function") {
      wrapped[name] = hook
      continue
    }
    totals.hookMs[name] = 0
    totals.calls[name] = 0
    wrapped[name] = (...args: unknown[]) => {
      const t = performance.now()
      let result: unknown
      let took = 0
      try {
        result = (hook as (...a: unknown[]) => unknown)(...args)
      } finally {
        took = performance.now() - t
        totals.hookMs[name]! += took
        totals.calls[name]!++
      }
      if (name === "event") {
        const type = (args[0] as { event?: { type?: string } } | undefined)?.event?.type ?? "?"
        totals.eventTypes[type] = (totals.eventTypes[type] ?? 0) + 1
        totals.eventTypeMs[type] = (totals.eventTypeMs[type] ?? 0) + took
        if (type === "message.part.delta") {
          // Calls of a millisecond or more are the thread being preempted, or a collection of
          // the host's garbage landing in our call, rather than the hook's own work: apart.
          if (took >= 1) {
            delta.longCalls++
            delta.longMs += took
          } else delta.shortMs += took
          delta.histogram[bucketOf(took * 1000)]!++
        }
        if (type === "session.idle" && out) {
          try {
            snapshot?.()
            writeFileSync(out, JSON.stringify({ ...totals, delta }))
          } catch {
            // The bench reads what it can; the host must not notice.
          }
        }
      }
      return result
    }
  }
  return wrapped
}

export default { id: "opencode-auto-resume-probe", server }
