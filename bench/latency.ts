/**
 * Detection latency on the real clock: from the last event of a busy session to the moment
 * the recovery prompt reaches the host, against the configured budget
 * (chunkTimeoutMs + gracePeriodMs). The plugin runs as on OpenCode 1.x (startV1, real timers).
 *
 *   bun bench/latency.ts [--runs 20] [--chunk 200] [--grace 50] [--json]
 *
 * The first retry's backoff is set to 0 so that the figure is the detector's own delay; with
 * the shipped baseBackoffMs (1 s) the prompt goes out that much later, by design.
 */
import { argNumber, median, quantile, report, startPlugin, type SendSeen } from "./common.ts"

const RUNS = argNumber("runs", 20)
const CHUNK = argNumber("chunk", 200)
const GRACE = argNumber("grace", 50)

export async function latency(runs = RUNS, chunkTimeoutMs = CHUNK, gracePeriodMs = GRACE) {
  const budget = chunkTimeoutMs + gracePeriodMs
  let waiting: ((s: SendSeen) => void) | undefined
  const { hooks, stop } = startPlugin(
    { chunkTimeoutMs, gracePeriodMs, baseBackoffMs: 0, maxBackoffMs: 0, discoveryDelayMs: 600_000, injectIntervalMs: 0 },
    undefined,
    (s) => waiting?.(s),
  )
  const overshoots: number[] = []
  const totals: number[] = []
  let missed = 0
  for (let r = 0; r < runs; r++) {
    const id = `ses_lat_${r}`
    await hooks["chat.message"]!({ sessionID: id, agent: "build", model: { providerID: "anthropic", modelID: "claude-x" } }, { message: { id: `msg_u${r}` }, parts: [{ type: "text", text: "go" }] })
    await hooks.event!({ event: { type: "session.status", properties: { sessionID: id, status: { type: "busy" } } } })
    const sent = new Promise<SendSeen | undefined>((resolve) => {
      waiting = (s) => {
        if (s.sessionID === id) resolve(s)
      }
      setTimeout(() => resolve(undefined), budget + 5_000)
    })
    await hooks.event!({ event: { type: "message.part.delta", properties: { sessionID: id, messageID: `msg_a${r}`, partID: "p", field: "text", delta: "last words" } } })
    const lastEventAt = performance.now()
    const seen = await sent
    if (!seen) {
      missed++
      continue
    }
    totals.push(seen.at - lastEventAt)
    overshoots.push(seen.at - lastEventAt - budget)
    // Close the episode so the next run starts clean.
    await hooks.event!({ event: { type: "session.idle", properties: { sessionID: id } } })
  }
  stop()
  return {
    bench: "latency",
    runs,
    budgetMs: budget,
    chunkTimeoutMs,
    gracePeriodMs,
    missed,
    medianTotalMs: median(totals),
    medianOvershootMs: median(overshoots),
    p90OvershootMs: quantile(overshoots, 0.9),
    maxOvershootMs: Math.max(...overshoots),
    minOvershootMs: Math.min(...overshoots),
  }
}

if (import.meta.main) report(await latency())
