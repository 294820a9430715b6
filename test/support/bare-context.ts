/**
 * An engine context with nothing behind it but a recording port, in-memory pauses and the
 * default options: for tests of the shared actions (actions.ts) that need no engine.
 */
import type { EngineContext } from "../../src/core/context.ts"
import { CoreLogger } from "../../src/core/logger.ts"
import { MemoryPauses } from "../../src/core/pauses.ts"
import { WakeScheduler } from "../../src/core/scheduler.ts"
import { actGate, type HoldFacts } from "../../src/runtime/may-act.ts"
import { newSessionState } from "../../src/core/session-state.ts"
import { resolveOptions } from "../../src/options/index.ts"
import { RecordingPort } from "./recording-port.ts"
import { SimulatedTime } from "./simulated-time.ts"

/** `facts`: mayAct's facts where a test needs them other than none. */
export function bareContext(facts: Partial<HoldFacts> = {}) {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const options = resolveOptions({}, {}).options
  const pauses = new MemoryPauses()
  const scheduler = new WakeScheduler(time, () => undefined, () => undefined)
  const ctx: EngineContext = {
    wake: (state, owner, at, run) => scheduler.set(state, owner, at, run),
    time,
    port,
    logger: new CoreLogger(port, () => false),
    pauses,
    effective: () => options,
    mayAct: actGate({ paused: (id) => pauses.isPaused(id), pathHold: () => undefined, waitedOnSettled: () => false, ...facts }),
    userStopped: () => undefined,
    standDown: () => undefined,
  }
  const state = newSessionState("s1", time.now())
  return { time, port, pauses, ctx, state }
}
