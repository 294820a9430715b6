/**
 * Memory: heap held per tracked session with 10,000 sessions fed through the real v1 hooks,
 * and after cleanup, on simulated time (so the idle sweep runs without waiting ten minutes).
 *
 *   bun bench/memory.ts [--sessions 10000] [--runs 5] [--json]
 *
 * Each session lives one ordinary turn: a genuine user message, busy, token usage, streamed
 * text, one tool call, its end, idle (the idle judgement runs and reads the history). The
 * engine tracks at most MAX_TRACKED_SESSIONS of them; the figure is the heap growth divided
 * by the sessions actually tracked. Cleanup: time passes beyond IDLE_CLEANUP_MS and the sweep
 * drops every idle session; the heap is measured again against the baseline taken right after
 * the plugin started. Bun.gc(true) before every reading; heapUsed from process.memoryUsage()
 * and heapSize from bun:jsc's heapStats().
 */
import { heapStats } from "bun:jsc"
import { CLEANUP_SWEEP_MS, MAX_TRACKED_SESSIONS } from "../src/core/engine.ts"
import { IDLE_CLEANUP_MS } from "../src/options/index.ts"
import { EventLoopTime } from "../test/support/event-loop-time.ts"
import { argNumber, median, report, startPlugin } from "./common.ts"

const SESSIONS = argNumber("sessions", 10_000)
const RUNS = argNumber("runs", 5)

function heap(): { used: number; jsc: number } {
  Bun.gc(true)
  Bun.gc(true)
  return { used: process.memoryUsage().heapUsed, jsc: heapStats().heapSize }
}

async function oneRun(sessions: number) {
  const time = new EventLoopTime()
  const { plugin, hooks, stop } = startPlugin({}, time)
  const ev = (type: string, properties: Record<string, unknown>) => hooks.event!({ event: { type, properties } })
  await time.advance(10)
  const base = heap()

  for (let i = 0; i < sessions; i++) {
    const id = `ses_${i.toString(36).padStart(6, "0")}`
    await hooks["chat.message"]!({ sessionID: id, agent: "build", model: { providerID: "anthropic", modelID: "claude-x" } }, { message: { id: `msg_u${i}` }, parts: [{ type: "text", text: "do the thing" }] })
    await ev("session.status", { sessionID: id, status: { type: "busy" } })
    await ev("message.updated", { info: { id: `msg_a${i}`, sessionID: id, role: "assistant", tokens: { output: 120, reasoning: 0, input: 5000 } } })
    await ev("message.part.updated", { part: { id: `prt_${i}`, type: "text", text: "Working on it.", sessionID: id, messageID: `msg_a${i}` } })
    await hooks["tool.execute.before"]!({ tool: "bash", sessionID: id, callID: `call_${i}` }, { args: { command: "ls" } })
    await hooks["tool.execute.after"]!({ tool: "bash", sessionID: id, callID: `call_${i}` }, { title: "", output: "ok", metadata: {} })
    await ev("session.idle", { sessionID: id })
  }
  // Let the idle judgements (both passes) run; stay short of the first sweep.
  await time.advance(Math.min(10_000, CLEANUP_SWEEP_MS - 1_000))
  const tracked = plugin.engine.trackedSessions
  const full = heap()

  // Past the idle cutoff: the sweep drops every idle session.
  await time.advance(IDLE_CLEANUP_MS + 2 * CLEANUP_SWEEP_MS)
  const trackedAfter = plugin.engine.trackedSessions
  const after = heap()
  stop()
  return {
    tracked,
    trackedAfter,
    perSessionBytes: (full.used - base.used) / Math.max(1, tracked),
    perSessionBytesJsc: (full.jsc - base.jsc) / Math.max(1, tracked),
    afterCleanupDeltaBytes: after.used - base.used,
    afterCleanupDeltaBytesJsc: after.jsc - base.jsc,
    baseHeapBytes: base.used,
  }
}

export async function memory(sessions = SESSIONS, runs = RUNS) {
  await oneRun(Math.min(sessions, 2_000)) // warm-up: code and caches in place before measuring
  const rows = []
  for (let r = 0; r < runs; r++) rows.push(await oneRun(sessions))
  return {
    bench: "memory",
    sessionsFed: sessions,
    maxTracked: MAX_TRACKED_SESSIONS,
    runs,
    tracked: median(rows.map((r) => r.tracked)),
    trackedAfterCleanup: median(rows.map((r) => r.trackedAfter)),
    perSessionBytes: median(rows.map((r) => r.perSessionBytes)),
    perSessionBytesJsc: median(rows.map((r) => r.perSessionBytesJsc)),
    afterCleanupDeltaBytes: median(rows.map((r) => r.afterCleanupDeltaBytes)),
    afterCleanupDeltaBytesJsc: median(rows.map((r) => r.afterCleanupDeltaBytesJsc)),
    baseHeapBytes: median(rows.map((r) => r.baseHeapBytes)),
    runsDetail: rows,
  }
}

if (import.meta.main) report(await memory())
