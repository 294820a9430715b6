/**
 * Stall recovery on the simulated clock. Every positive case has a negative control: the same
 * timeline without the trigger must send nothing.
 */
import { describe, expect, test } from "bun:test"
import type { Signal } from "../../../src/core/port.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { makeHarness, userTurn } from "../../support/harness.ts"

const BUDGET = 183_000 // chunkTimeoutMs + gracePeriodMs (fast profile defaults)

describe("idle-phase stall", () => {
  test("a busy session silent past the budget gets one continue with the user's agent and model", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(BUDGET - 1000, 1000)
    expect(h.port.calls).toHaveLength(0)
    await h.advance(3000)
    expect(h.port.actions).toEqual(["send"])
    const sent = h.port.sends[0]!
    expect(sent.kind).toBe("continue")
    expect(sent.setup).toEqual({ agent: "build", model: { providerID: "openai", modelID: "gpt-x" } })
    expect(sent.text).toContain("Attempt 1/3")
    expect(h.port.logged(/stall detected phase=idle .*no tool in flight/)).toBe(true)
  })

  test("negative control: activity every minute keeps the session alive", async () => {
    // The silence budget alone: ten minutes of activity without progress would pass the
    // progress ceiling, which progress-ceiling.test.ts covers.
    const h = makeHarness({ progressCeilingMs: 0 })
    h.emit(...userTurn)
    for (let i = 0; i < 10; i++) {
      await h.advance(60_000, 5000)
      h.emit({ type: "activity" })
    }
    expect(h.port.calls).toHaveLength(0)
  })

  test("any event re-arms the watchdog, modelled or not; token growth counts, a flat total does not", async () => {
    const grows = makeHarness()
    grows.emit(...userTurn)
    for (let i = 1; i <= 5; i++) {
      await grows.advance(100_000, 5000)
      grows.emit({ type: "usage", tokens: i * 50, messageID: "m1" })
    }
    expect(grows.port.calls).toHaveLength(0)

    const flat = makeHarness()
    flat.emit(...userTurn, { type: "usage", tokens: 50, messageID: "m1" })
    for (let i = 1; i <= 5; i++) {
      await flat.advance(100_000, 5000)
      flat.emit({ type: "usage", tokens: 50, messageID: "m1" })
    }
    expect(flat.port.sends.length).toBeGreaterThan(0)
  })

  test("an idle session is never treated as stalled", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "idle" })
    await h.advance(30 * 60_000, 10_000)
    expect(h.port.calls).toHaveLength(0)
  })

  test("a custom continuePrompt is sent verbatim; richContinuePrompt false sends the bare word", async () => {
    const custom = makeHarness({ continuePrompt: "keep going please" })
    custom.emit(...userTurn)
    await custom.advance(BUDGET + 2000, 1000)
    expect(custom.port.sends[0]?.text).toBe("keep going please")

    const plain = makeHarness({ richContinuePrompt: false })
    plain.emit(...userTurn)
    await plain.advance(BUDGET + 2000, 1000)
    expect(plain.port.sends[0]?.text).toBe("continue")
  })
})

describe("the deadline ends with the run", () => {
  // The run's end reaches the deadline through the paths' liveness input ("ended", runtime/path.ts): ESC stops it,
  // so a session still reported busy is not looked at (and logged as held) every check.
  test("after ESC on a session still reported busy, the deadline is gone: no held stall is logged", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(3000)
    h.emit({ type: "interrupted", byUser: true })
    await h.advance(2 * BUDGET, 1000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/stall recovery held/)).toBe(false)
  })

  test("negative control: the same busy session without ESC reaches its deadline", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(3000)
    await h.advance(2 * BUDGET, 1000)
    expect(h.port.actions).toContain("send")
  })
})

describe("tool phase", () => {
  test("a silent tool call is never interrupted, and the log names it", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "toolStart", callID: "c1", tool: "bash" })
    await h.advance(20 * 60_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/tool phase: tool "bash" \(c1\) in flight/)).toBe(true)
  })

  test("negative control: the same silence after the tool ended is a stall", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "toolStart", callID: "c1", tool: "bash" }, { type: "toolEnd", callID: "c1" })
    await h.advance(20 * 60_000, 5000)
    expect(h.port.sends.length).toBeGreaterThan(0)
  })

  test("a tool open past the 30-minute ceiling reads as wedged and is recovered, naming the tool", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "toolStart", callID: "c1", tool: "mcp_deadlock" })
    await h.advance(31 * 60_000, 10_000)
    expect(h.port.calls.length).toBeGreaterThan(0)
    expect(h.port.logged(/phase=tool-wedged .*tool="mcp_deadlock"/)).toBe(true)
  })

  test("open tools are reconciled on idle, so a lost after-hook does not pin the next turn", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "toolStart", callID: "lost", tool: "bash" }, { type: "idle" })
    h.emit(...userTurn)
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })

  test("open tools are reconciled on abort too", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "toolStart", callID: "lost", tool: "bash" }, { type: "interrupted", byUser: false })
    h.emit({ type: "busy" }, { type: "modelOutput" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })
})

describe("the ladder in time", () => {
  test("a continue that does not revive the run escalates to abort, then continue after the pause", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(BUDGET + 1000, 1000)
    expect(h.port.actions).toEqual(["send"])
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["send", "abort"])
    // Our own abort arrives as an interruption and must not latch ESC.
    h.emit({ type: "interrupted" }, { type: "idle" })
    await h.advance(ABORT_CONTINUE_DELAY_MS)
    expect(h.port.actions).toEqual(["send", "abort", "send"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("negative control: when the model answers the continue, the next stall is a plain continue again", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(BUDGET + 1000, 1000)
    await h.advance(1000)
    h.emit({ type: "modelOutput" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.actions).toEqual(["send", "send"])
  })

  test("a clock stepped back during the run does not make the next stall repeat the continue: still abort first", async () => {
    const stepped = async (answered: boolean) => {
      const h = makeHarness()
      h.emit(...userTurn)
      await h.advance(3000)
      // ESC (it stops the watchdog), the clock steps back, the user writes again into the same
      // busy period: the continue below is stamped before the busy period began.
      h.emit({ type: "interrupted", byUser: true })
      h.time.jump(-(BUDGET + 60_000))
      h.emit(userTurn[0]!, { type: "busy" })
      await h.advance(BUDGET + 1000, 1000)
      expect(h.port.actions).toEqual(["send"])
      if (answered) {
        await h.advance(1000)
        h.emit({ type: "modelOutput" })
      }
      await h.advance(BUDGET + 2000, 1000)
      return h.port.actions
    }
    expect(await stepped(false)).toEqual(["send", "abort"])
    // Control: the model answered the continue, so the next stall is a plain continue again.
    expect(await stepped(true)).toEqual(["send", "send"])
  })

  test("output of the aborted run before the delayed continue does not count as an answer to that continue", async () => {
    const fast = { chunkTimeoutMs: 200, gracePeriodMs: 0, baseBackoffMs: 0, maxBackoffMs: 0, checkIntervalMs: 500, loopMaxContinues: 1, loopWindowMs: 1000, stallEpisodeMaxContinues: 5, lifetimeMaxContinues: 5, injectIntervalMs: 0 }
    const run = async (answered: boolean) => {
      const h = makeHarness(fast)
      h.emit(...userTurn)
      await h.advance(450, 50) // continue, then abort + continue (hallucination loop)
      expect(h.port.actions).toEqual(["send", "abort"])
      await h.advance(500, 50)
      h.emit({ type: "modelOutput" }) // the run being aborted still says something
      await h.advance(ABORT_CONTINUE_DELAY_MS - 400, 50) // the continue goes out ABORT_CONTINUE_DELAY_MS after the abort
      expect(h.port.actions).toEqual(["send", "abort", "send"])
      if (answered) h.emit({ type: "modelOutput" })
      await h.advance(300, 50)
      return h.port.actions
    }
    // Nothing after the continue: the next stall escalates, it does not repeat the continue.
    expect(await run(false)).toEqual(["send", "abort", "send", "abort"])
    // Control: the model answered the continue, so a plain continue is right.
    expect(await run(true)).toEqual(["send", "abort", "send", "send"])
  })

  test("a run that discovery finds running again is the same run: an unanswered continue still escalates", async () => {
    const run = async (busy: Partial<Signal> & { type: "busy" }) => {
      const h = makeHarness()
      h.emit(...userTurn)
      await h.advance(BUDGET + 1000, 1000)
      expect(h.port.actions).toEqual(["send"])
      // The listing lost the session and then shows it again; the host itself said nothing.
      h.emit({ type: "idle" }, busy)
      await h.advance(BUDGET + 3000, 1000) // the second rung backs off 2 s
      return h.port.actions
    }
    expect(await run({ type: "busy", inferred: true })).toEqual(["send", "abort"])
    // Control: a run the host reports starting is a new run, and gets a plain continue first.
    expect(await run({ type: "busy" })).toEqual(["send", "send"])
  })

  test("after the abort, a run that restarted by itself gets no extra continue", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(BUDGET + 1000, 1000)
    await h.advance(BUDGET + 2000, 1000)
    h.emit({ type: "interrupted" }, { type: "idle" }, { type: "busy" }, { type: "modelOutput" })
    await h.advance(3000)
    expect(h.port.actions).toEqual(["send", "abort"])
  })

  test("retries per episode stop at stallEpisodeMaxContinues, and model output opens a new episode", async () => {
    const h = makeHarness({ stallEpisodeMaxContinues: 2 })
    h.emit(...userTurn)
    await h.advance(BUDGET + 1000, 1000)
    await h.advance(BUDGET + 2000, 1000)
    h.emit({ type: "interrupted" }, { type: "busy" })
    await h.advance(10 * 60_000, 5000)
    const stoodDown = h.port.calls.length
    expect(h.port.sends).toHaveLength(2)
    expect(h.port.logged(/retries exhausted/)).toBe(true)
    h.emit({ type: "modelOutput" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.calls.length).toBeGreaterThan(stoodDown)
  })

  test("busyStallStrategy abort aborts first; off does nothing", async () => {
    const abort = makeHarness({ busyStallStrategy: "abort" })
    abort.emit(...userTurn)
    await abort.advance(BUDGET + 1000, 1000)
    expect(abort.port.actions).toEqual(["abort"])
    abort.emit({ type: "interrupted" }, { type: "idle" })
    await abort.advance(ABORT_CONTINUE_DELAY_MS)
    expect(abort.port.actions).toEqual(["abort", "send"])

    const off = makeHarness({ busyStallStrategy: "off" })
    off.emit(...userTurn)
    await off.advance(3 * BUDGET, 5000)
    expect(off.port.calls).toHaveLength(0)
  })

  test("loopMaxContinues continues inside loopWindowMs escalate to abort + continue", async () => {
    const h = makeHarness({ stallEpisodeMaxContinues: 10, lifetimeMaxContinues: 20 })
    h.emit(...userTurn)
    for (let i = 0; i < 3; i++) {
      await h.advance(BUDGET + 8000, 1000)
      h.emit({ type: "modelOutput" }) // each continue "works", so only the loop rule can escalate
    }
    expect(h.port.actions).toEqual(["send", "send", "send"])
    await h.advance(BUDGET + 8000, 1000)
    expect(h.port.actions).toEqual(["send", "send", "send", "abort", "send"])
    expect(h.port.logged(/hallucination loop/)).toBe(true)
  })

  test("the lifetime cap stands down until a genuine user message; the plugin's own prompt does not re-arm it", async () => {
    const h = makeHarness({ lifetimeMaxContinues: 2 })
    h.emit(...userTurn)
    for (let i = 0; i < 4; i++) {
      await h.advance(BUDGET + 8000, 1000)
      h.emit({ type: "userMessage", genuine: false }, { type: "modelOutput" })
    }
    expect(h.port.sends).toHaveLength(2)
    expect(h.port.logged(/lifetime cap reached/)).toBe(true)
    h.emit(...userTurn)
    await h.advance(BUDGET + 8000, 1000)
    expect(h.port.sends).toHaveLength(3)
  })
})

describe("send spacing", () => {
  test("the continue after an abort waits for injectIntervalMs since the previous prompt instead of being refused", async () => {
    const h = makeHarness({ chunkTimeoutMs: 1000, gracePeriodMs: 0, baseBackoffMs: 0, injectIntervalMs: 15_000 })
    h.emit(...userTurn)
    await h.advance(1100, 100)
    expect(h.port.actions).toEqual(["send"])
    await h.advance(1200, 100)
    expect(h.port.actions).toEqual(["send", "abort"])
    h.emit({ type: "interrupted" }, { type: "idle" })
    // Past the abort-to-continue pause, but the previous prompt went out less than 15 s ago.
    await h.advance(ABORT_CONTINUE_DELAY_MS + 1000, 100)
    expect(h.port.actions).toEqual(["send", "abort"])
    await h.advance(9000, 100)
    expect(h.port.actions).toEqual(["send", "abort", "send"])
  })
})
