/**
 * The runner's 2.x driver: the real `startV2` on the property host's 2.x ctx (v2-host.ts) and
 * wire (v2-wire.ts), on the runner's clock, with the scenario's 2.x faults applied after the
 * steps they name. Each run gets its own registry slot, dropped at the end, so no state (send
 * log, own sends, seen messages) leaks from one scenario into the next.
 */
import type { MemoryPauses } from "../../src/core/pauses.ts"
import type { RecoveryEngine } from "../../src/core/engine.ts"
import { startV2 } from "../../src/host/v2/adapter.ts"
import type { EventLoopTime } from "../support/event-loop-time.ts"
import { sessionName, type HostEvent } from "./events.ts"
import type { ScriptedHost } from "./host.ts"
import type { Scenario } from "./model.ts"
import type { Oracle } from "./oracle.ts"
import { deliverV2, NO_V2_FAULTS, V2EventBus, v2Context } from "./v2-host.ts"
import { V2Wire } from "./v2-wire.ts"

/** The 2.x faults that really happened in a run (zero on the other drivers). */
export type V2FaultStats = { resubscribes: number; foreign: number; undurable: number; lost: number }

export type V2Driver = {
  engine: RecoveryEngine
  deliver(e: HostEvent, id: string): void
  /** After step `i` ran: the stream breaks and foreign bursts due then. */
  afterStep(i: number): void
  stop(): void
  stats(): V2FaultStats
}

let runs = 0

export function startV2Driver(deps: { sc: Scenario; host: ScriptedHost; oracle: Oracle; time: EventLoopTime; pauses: MemoryPauses }): V2Driver {
  const { sc, host, oracle, time, pauses } = deps
  const faults = sc.v2 ?? NO_V2_FAULTS
  const wire = new V2Wire(() => time.now())
  const bus = new V2EventBus(faults.undurableEvery)
  const scope = `property-v2-${process.pid}-${++runs}`
  const sendBegun = new Map<string, number>()
  const { ctx, fetch } = v2Context(host, wire, bus, oracle, { ...sc.options, registryScope: scope }, (id) => sendBegun.get(id))
  const instance = startV2(ctx, { time, pauses, env: {}, fetch, writeLog: (level, message) => host.log(level, message) })
  // When the core asks the port to send: the start of the call's time as the core counts it.
  const port = instance.port
  const send = port.send.bind(port)
  port.send = (request) => {
    if (sendBegun.size > 4096) sendBegun.clear()
    sendBegun.set(request.sessionID, time.now())
    return send(request)
  }
  let foreign = 0
  return {
    engine: instance.engine,
    deliver: (e, id) =>
      deliverV2(
        wire,
        bus,
        e,
        id,
        (via) => {
          oracle.note(`host -> ${id} ${e.t} [${via}]`)
          oracle.event(e, id, via)
        },
        (part, via) => {
          oracle.note(`host -> ${id} ${part.t} [${via}, part of ${e.t}]`)
          oracle.event(part, id, via)
        },
      ),
    afterStep(i) {
      for (const b of faults.breaks) {
        if (b.after !== i) continue
        oracle.note(`host: event stream ${b.how === "refuse" ? "refuses the next subscribe" : b.how === "end" ? "ends" : "throws"}`)
        bus.break(b.how)
      }
      if (faults.foreignEvery > 0 && i % faults.foreignEvery === faults.foreignEvery - 1) {
        for (const event of wire.foreign(sessionName(i % 4))) {
          foreign++
          bus.emit(event)
        }
      }
    },
    stop() {
      // Stopping releases the slot; the registry is bounded and evicts released slots first.
      instance.stop("end of scenario")
    },
    stats: () => ({ resubscribes: Math.max(0, bus.subscriptions - 1), foreign, undurable: bus.stripped, lost: bus.lost }),
  }
}
