/**
 * A clean finished-turn judgement (issue 28 item 2): what judging one ordinary turn end costs,
 * through the real v1 hooks, with a 200-message history whose last answer is a plain report
 * (nothing to act on), and how often the judgement reads the history and the todo list.
 *
 *   bun bench/judgement.ts [--sessions 200] [--json]
 *
 * Each session lives one turn (a user message, busy, streamed text, idle); then time passes
 * through both passes of the judge. The figure is the CPU time of the process from the idle to
 * the end of the second pass, per session: the first session's is the cold figure (the ending
 * classifier's weights are read on first use), the median of the rest the warm one. Simulated
 * time (EventLoopTime) runs the timers without waiting, so no real pause is in the figure. The
 * SDK client answers at once, so the host's own latency is not in it either. Targets: 0.6 ms
 * warm, 5 ms cold, one history read and one todo read per judgement.
 */
import { EventLoopTime } from "../test/support/event-loop-time.ts"
import { argNumber, benchClient, machine, median, report } from "./common.ts"
import { MemoryPauses } from "../src/core/pauses.ts"
import { startV1 } from "../src/host/v1/adapter.ts"

const SESSIONS = argNumber("sessions", 200)
const HISTORY = 200
const WARM_TARGET_MS = 0.6
const COLD_TARGET_MS = 5

const REPORT =
  "I moved the date parsing into `src/lib/dates.ts` and pointed the three callers at it. The old helper in `utils/format.ts` is gone, " +
  "and the tests for the invoice export now cover the end-of-month case that broke last week."

/** A 1.x history of `HISTORY` messages, alternating user and assistant, the newest a plain report. */
function history(sessionID: string): unknown[] {
  const out: unknown[] = []
  for (let i = 0; i < HISTORY; i++) {
    const role = i % 2 === 0 ? "user" : "assistant"
    const text = role === "user" ? `Step ${i}: please look at the next part of the export.` : i === HISTORY - 1 ? REPORT : `Looked at part ${i}; it reads the rows in order and writes them back.`
    out.push({
      info: { id: `msg_${sessionID}_${i}`, sessionID, role, time: { created: i }, ...(role === "assistant" ? { finish: "stop", providerID: "anthropic", modelID: "claude-x" } : {}) },
      parts: [{ id: `prt_${sessionID}_${i}`, type: "text", text }],
    })
  }
  return out
}

async function main() {
  const time = new EventLoopTime()
  let historyReads = 0
  let todoReads = 0
  let sends = 0
  const client = benchClient(() => sends++)
  const histories = new Map<string, unknown[]>()
  client.session.messages = (async (o: { path?: { id?: string } }) => {
    historyReads++
    return { data: histories.get(String(o?.path?.id)) ?? [] }
  }) as typeof client.session.messages
  client.session.todo = (async () => {
    todoReads++
    return { data: [{ id: "t1", content: "Write the export tests", status: "completed", priority: "high" }] }
  }) as typeof client.session.todo
  const plugin = startV1({ client }, {}, {}, { time, pauses: new MemoryPauses() })
  const hooks = plugin.hooks as unknown as Record<string, (...args: unknown[]) => Promise<void>>
  const ev = (type: string, properties: Record<string, unknown>) => hooks.event!({ event: { type, properties } })
  await time.advance(10)

  const perSessionMs: number[] = []
  const readsPerJudgement: Array<{ history: number; todos: number }> = []
  for (let i = 0; i < SESSIONS; i++) {
    const id = `ses_${i.toString(36).padStart(5, "0")}`
    histories.set(id, history(id))
    await hooks["chat.message"]!({ sessionID: id, agent: "build", model: { providerID: "anthropic", modelID: "claude-x" } }, { message: { id: `msg_${id}_u` }, parts: [{ type: "text", text: "go on" }] })
    await ev("session.status", { sessionID: id, status: { type: "busy" } })
    await ev("message.part.updated", { part: { id: `prt_${id}_a`, type: "text", text: REPORT, sessionID: id, messageID: `msg_${id}_${HISTORY - 1}` } })
    // Past the warm-up and the active-user window, so the turn is judged as an unattended one.
    await time.advance(60_000)
    const reads = { history: historyReads, todos: todoReads }
    const cpu = process.cpuUsage()
    await ev("session.status", { sessionID: id, status: { type: "idle" } })
    await ev("session.idle", { sessionID: id })
    await time.advance(30_000)
    const used = process.cpuUsage(cpu)
    perSessionMs.push((used.user + used.system) / 1000)
    readsPerJudgement.push({ history: historyReads - reads.history, todos: todoReads - reads.todos })
    await ev("session.deleted", { info: { id } })
  }
  plugin.engine.dispose()

  const cold = perSessionMs[0]!
  const warm = median(perSessionMs.slice(1))
  const reads = readsPerJudgement.slice(1)
  const result = {
    sessions: SESSIONS,
    historyMessages: HISTORY,
    coldMs: Number(cold.toFixed(3)),
    warmMedianMs: Number(warm.toFixed(3)),
    warmTargetMs: WARM_TARGET_MS,
    coldTargetMs: COLD_TARGET_MS,
    historyReadsPerJudgement: median(reads.map((r) => r.history)),
    todoReadsPerJudgement: median(reads.map((r) => r.todos)),
    // A clean turn is judged, not answered: anything but 0 means the bench measured a recovery.
    sendsMade: sends,
    machine: machine(),
  }
  if (process.argv.includes("--json")) return report(result)
  console.log(`clean judgement, ${HISTORY}-message history, plain final answer, ${SESSIONS} sessions (CPU time from idle to the end of the second pass)`)
  console.log(`  cold ${result.coldMs} ms (target ${COLD_TARGET_MS}: ${(cold / COLD_TARGET_MS).toFixed(2)}x)`)
  console.log(`  warm median ${result.warmMedianMs} ms (target ${WARM_TARGET_MS}: ${(warm / WARM_TARGET_MS).toFixed(2)}x)`)
  console.log(`  per judgement: ${result.historyReadsPerJudgement} history read(s), ${result.todoReadsPerJudgement} todo read(s); prompts sent in all: ${sends}`)
}

await main()
