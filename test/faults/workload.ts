/**
 * A fixed workload that makes the plugin call every host method it has: stalls recovered by
 * continue and by abort, finished turns judged from history (with texts the judge acts on),
 * todos, subagents, a context near its limit, tools, discovery rounds. Spread over many
 * sessions, so that a fault that were logged per event would show up many times over.
 */
import type { HostEvent } from "../property/events.ts"
import type { Scenario, Step } from "../property/model.ts"

const ev = (e: HostEvent): Step => ({ k: "ev", ev: e, how: "once" })
const wait = (ms: number): Step => ({ k: "wait", ms })

export const FAULT_OPTIONS = {
  chunkTimeoutMs: 2_000,
  gracePeriodMs: 100,
  checkIntervalMs: 500,
  baseBackoffMs: 100,
  maxBackoffMs: 400,
  maxRetries: 3,
  lifetimeMaxContinues: 6,
  loopMaxContinues: 2,
  loopWindowMs: 60_000,
  sendTimeoutMs: 1_000,
  toolTextCheckDelayMs: 200,
  discoveryDelayMs: 500,
  warmupMs: 0,
  activeUserWindowMs: 0,
  subagentWaitMs: 1_000,
  subagentNativeCompactionEnabled: true,
  busyStallStrategy: "continue",
}

/** `sessions` busy sessions that stall, plus sessions that finish turns the judge acts on. */
export function faultWorkload(sessions = 12, options: Record<string, unknown> = FAULT_OPTIONS): Scenario {
  const steps: Step[] = []
  for (let i = 0; i < sessions; i++) {
    const s = `w${i}`
    steps.push(ev({ t: "user", s, provider: "cloud" }), ev({ t: "busy", s }), ev({ t: "output", s }))
    if (i % 3 === 0) steps.push(ev({ t: "toolStart", s, call: 0, tool: "bash" }), wait(50), ev({ t: "toolEnd", s, call: 0 }))
    if (i % 4 === 1) steps.push(ev({ t: "usage", s, msg: 0, tokens: 300, context: 195_000 }))
    if (i % 4 === 2) steps.push(ev({ t: "todos", s, open: 2 }))
    // Every other session finishes its turn with a text the judge has an opinion about.
    if (i % 2 === 1) steps.push(ev({ t: "say", s, text: i % 8 }), ev({ t: "idle", s }))
  }
  // A parent with a subagent that goes quiet while the parent waits on its task call.
  steps.push(
    ev({ t: "user", s: "parent", provider: "cloud" }),
    ev({ t: "busy", s: "parent" }),
    ev({ t: "toolStart", s: "parent", call: 0, tool: "task" }),
    ev({ t: "created", s: "child", parent: "parent" }),
    ev({ t: "user", s: "child" }),
    ev({ t: "busy", s: "child" }),
  )
  // Let stalls, retries, judgements and discovery rounds run for a while (every call timing out
  // included: 1 s per call), with more finished turns arriving in between.
  for (let round = 0; round < 6; round++) {
    steps.push(wait(7_000))
    for (let i = 0; i < sessions; i += 2) steps.push(ev({ t: "user", s: `w${i}`, provider: "cloud" }), ev({ t: "busy", s: `w${i}` }), ev({ t: "say", s: `w${i}`, text: (i + round) % 8 }), ev({ t: "idle", s: `w${i}` }))
  }
  steps.push(wait(65_000))
  return { options, calls: [], steps }
}
