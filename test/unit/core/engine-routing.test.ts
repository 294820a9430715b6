/** How the engine hands signals to the paths that declared them, and tells adapters about sessions it forgets. */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { CLEANUP_SWEEP_MS, RecoveryEngine } from "../../../src/core/engine.ts"
import { recoveryPaths } from "../../../src/paths/index.ts"
import type { AnyPath, PathInput, RecoveryPath } from "../../../src/runtime/path.ts"
import type { Signal, SignalType } from "../../../src/core/port.ts"
import { IDLE_CLEANUP_MS, resolveOptions } from "../../../src/options/index.ts"
import { RecordingPort } from "../../support/recording-port.ts"

function engineWith(paths: readonly AnyPath[] = recoveryPaths, onSessionDropped?: (id: string) => void, options: Record<string, unknown> = {}) {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const engine = new RecoveryEngine({ paths, port, time, options: resolveOptions(options, {}), onSessionDropped })
  const emit = (...signals: Array<Partial<Signal> & { type: SignalType }>) => {
    for (const s of signals) engine.handle({ sessionID: "s1", ...s } as Signal)
  }
  const advance = async (ms: number, step = 1000) => {
    for (let left = ms; left > 0; left -= step) {
      time.advance(Math.min(step, left))
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
  return { time, engine, emit, port, advance }
}

/**
 * A probe path: it hears the signal types it names (none when `signals` is absent) and tells
 * `react` each one with the session as the step sees it; `react`'s answer is the step's.
 */
function probe(name: string, signals: readonly SignalType[] | undefined, react: (signal: Signal, input: { session: { id: string; cancelledByUser: boolean }; now: number }) => { effects?: [{ kind: "watch-output" }]; wakeAt?: number } | void, onWake?: (sessionID: string) => void): RecoveryPath<number> {
  return {
    name,
    ...(signals ? { signals } : {}),
    initial: () => 0,
    step(state, input, ctx) {
      if (input.type === "wake") return void onWake?.(ctx.session.id)
      if (input.type !== "signal") return undefined
      const answer = react(input.signal, ctx)
      return answer ? { state, effects: answer.effects ?? [], ...(answer.wakeAt !== undefined ? { wakeAt: answer.wakeAt } : {}) } : undefined
    },
  }
}

describe("signal routing", () => {
  test("a path that names its signals hears only those; one that names none hears no signal", () => {
    const picky: SignalType[] = []
    const none: SignalType[] = []
    const { emit } = engineWith([probe("picky", ["toolStart", "idle"], (signal) => void picky.push(signal.type)), probe("none", undefined, (signal) => void none.push(signal.type))])
    emit({ type: "busy" }, { type: "modelOutput" }, { type: "toolStart", callID: "c", tool: "bash" }, { type: "activity" }, { type: "idle" })
    expect(picky).toEqual(["toolStart", "idle"])
    expect(none).toEqual([])
  })

  test("model output reaches a path that names it only for a session a path asked to watch (watch-output); control: an unwatched session's is not handed out", () => {
    const heard: string[] = []
    const { engine } = engineWith([
      probe("watcher", ["modelOutput", "error"], (signal, ctx) => {
        if (signal.type === "error") return { effects: [{ kind: "watch-output" }] }
        heard.push(ctx.session.id)
      }),
    ])
    for (const id of ["watched", "plain"]) engine.handle({ type: "busy", sessionID: id })
    engine.handle({ type: "modelOutput", sessionID: "watched" })
    engine.handle({ type: "error", sessionID: "watched", name: "APIError", message: "x" })
    for (const id of ["watched", "plain", "watched"]) engine.handle({ type: "modelOutput", sessionID: id })
    expect(heard).toEqual(["watched", "watched"])
  })

  test("the time an adapter passes is the time the session is stamped with", () => {
    const { engine, time } = engineWith()
    const start = time.now()
    time.advance(5000)
    engine.handle({ type: "busy", sessionID: "s1" }, start + 1234)
    expect(engine.exportSessions()[0]?.lastActivityAt).toBe(start + 1234)
    engine.handle({ type: "activity", sessionID: "s1" })
    expect(engine.exportSessions()[0]?.lastActivityAt).toBe(start + 5000)
  })
})

describe("sessions leaving the table", () => {
  test("a deleted or swept session is reported to the adapter once; a live one is not", () => {
    const dropped: string[] = []
    const { engine, time } = engineWith(recoveryPaths, (id) => dropped.push(id))
    engine.handle({ type: "busy", sessionID: "deleted" })
    engine.handle({ type: "sessionDeleted", sessionID: "deleted" })
    expect(dropped).toEqual(["deleted"])

    engine.handle({ type: "busy", sessionID: "old" })
    engine.handle({ type: "idle", sessionID: "old" })
    engine.handle({ type: "busy", sessionID: "running" })
    for (let t = 0; t < IDLE_CLEANUP_MS + 2 * CLEANUP_SWEEP_MS; t += CLEANUP_SWEEP_MS) {
      time.advance(CLEANUP_SWEEP_MS)
      engine.handle({ type: "activity", sessionID: "running" })
    }
    expect(dropped).toEqual(["deleted", "old"])
    expect(engine.status("running")).toBeDefined()
  })

  test("an idle session a path still wants to wake outlives the sweep, and the wake comes; control: without it the session goes", () => {
    const run = (wantsWake: boolean) => {
      const seen: string[] = []
      const later = IDLE_CLEANUP_MS + 5 * CLEANUP_SWEEP_MS
      const waiter = probe("waiter", ["idle"], (_signal, ctx) => (wantsWake ? { wakeAt: ctx.now + later } : undefined), (id) => seen.push(`wake ${id}`))
      const { engine, time } = engineWith([...recoveryPaths, waiter], (id) => seen.push(`drop ${id}`))
      engine.handle({ type: "busy", sessionID: "s1" })
      engine.handle({ type: "idle", sessionID: "s1" })
      time.advance(later + 2 * CLEANUP_SWEEP_MS)
      return seen
    }
    // Kept until its wake, swept at the next sweep after it.
    expect(run(true)).toEqual(["wake s1", "drop s1"])
    expect(run(false)).toEqual(["drop s1"])
  })

  test("a callback that throws is contained", () => {
    const { engine } = engineWith(recoveryPaths, () => {
      throw new Error("adapter bug")
    })
    engine.handle({ type: "busy", sessionID: "x" })
    expect(() => engine.handle({ type: "sessionDeleted", sessionID: "x" })).not.toThrow()
    expect(engine.trackedSessions).toBe(0)
  })
})

describe("a user stop found out after the fact", () => {
  const fast = { busyStallStrategy: "abort", chunkTimeoutMs: 1000, gracePeriodMs: 0, baseBackoffMs: 0, sendTimeoutMs: 5000 }
  const run = async (abortAnswer: "hang" | "ok") => {
    const seen: boolean[] = []
    const h = engineWith([...recoveryPaths, probe("probe", ["interrupted"], (_signal, ctx) => void seen.push(ctx.session.cancelledByUser))], undefined, fast)
    h.port.abortBehaviour = abortAnswer
    h.emit({ type: "userMessage", genuine: true }, { type: "busy" })
    await h.advance(1500, 100) // the stall: our abort goes out
    expect(h.port.actions).toEqual(["abort"])
    h.emit({ type: "interrupted" }) // while the call is out: undecided
    await h.advance(6000, 100)
    return { seen, cancelled: h.engine.status("s1")?.cancelledByUser }
  }

  test("an interruption while our abort never answers turns out to be the user's: the paths hear the stand-down too", async () => {
    const { seen, cancelled } = await run("hang")
    expect(cancelled).toBe(true)
    expect(seen).toEqual([false, true])
  })

  test("control: the host accepts our abort at once, so the interruption was ours and no stand-down follows", async () => {
    const { seen, cancelled } = await run("ok")
    expect(cancelled).toBe(false)
    expect(seen).toEqual([false])
  })
})

describe("streamed text and liveness", () => {
  /** A path that notes what it hears and changes nothing. */
  const listening = (name: string, streams: AnyPath["streams"], heard: string[]): AnyPath => ({
    name,
    streams,
    initial: () => 0,
    step(_state, input: PathInput) {
      heard.push(input.type === "text" ? `${input.part}:${input.delta ?? ""}:${input.text ?? ""}` : input.type === "liveness" ? input.liveness : input.type)
      return undefined
    },
  })

  test("streamed text reaches the paths that read it, for every session, watched or not; a bare modelOutput does not", () => {
    const read: string[] = []
    const deaf: string[] = []
    const { emit } = engineWith([listening("reader", ["text"], read), listening("deaf", undefined, deaf)])
    emit({ type: "busy" }, { type: "modelOutput", part: "p1", delta: "Hi. " }, { type: "modelOutput", part: "p1", text: "Hi. There." }, { type: "modelOutput" })
    expect(read).toEqual(["p1:Hi. :", "p1::Hi. There."])
    // Control: a path that declared no stream hears neither the text nor the liveness.
    expect(deaf).toEqual([])
  })

  test("liveness reaches only the paths that declare it", () => {
    const live: string[] = []
    const reader: string[] = []
    const { emit } = engineWith([listening("live", ["liveness"], live), listening("reader", ["text"], reader)])
    emit({ type: "busy" }, { type: "modelOutput", part: "p1", delta: "x" }, { type: "idle" })
    expect(live).toEqual(["live", "live", "ended"])
    expect(reader).toEqual(["p1:x:"])
  })

  test("a reader that throws is logged as a fault and never escapes", () => {
    const broken: AnyPath = {
      name: "broken",
      streams: ["text"],
      initial: () => 0,
      step() {
        throw new Error("boom")
      },
    }
    const { emit, port } = engineWith([broken])
    expect(() => emit({ type: "busy" }, { type: "modelOutput", part: "p1", delta: "x" })).not.toThrow()
    expect(port.logged(/broken failed on text: .*boom/)).toBe(true)
  })
})
