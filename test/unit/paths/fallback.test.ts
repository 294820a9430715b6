/** Fallback models through the whole engine, on the simulated clock (src/paths/provider-failures/fallback-switch.ts and the path around it). */
import { describe, expect, test } from "bun:test"
import { RecoveryEngine } from "../../../src/core/engine.ts"
import { recoveryPaths } from "../../../src/paths/index.ts"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { makeHarness, SESSION, settle, streamFailure, userTurn, type Harness } from "../../support/harness.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"

const USER = { providerID: "openai", modelID: "gpt-x" }
const BACKUP = { providerID: "anthropic", modelID: "claude-y" }
const THIRD = { providerID: "local", modelID: "qwen" }
const HOUR = 3_600_000
/** A 429 the host gave up on, with the provider asking for an hour. */
const longRateLimit = { type: "error", name: "APIError", message: "Rate limit exceeded", status: 429, retryAfterMs: HOUR } as const
/** The host retrying the request an hour from now (1.x retry status, 2.x retry.scheduled). */
const farRetry = { type: "retryScheduled", retryInMs: HOUR, message: "Rate limit exceeded", status: 429 } as const
const ON = { fallbackModels: ["anthropic/claude-y", "local/qwen"] }

const modelsSent = (h: Harness) => h.port.sends.map((s) => s.setup?.model && `${s.setup.model.providerID}/${s.setup.model.modelID}`)

/** Every prompt of ours starts a run that fails at once with no output (a dead endpoint). */
function everyPromptFails(h: Harness): void {
  const send = h.port.send.bind(h.port)
  h.port.send = (request) => {
    const done = send(request)
    h.time.schedule(0, () => h.emit({ type: "userMessage", genuine: false }, { type: "busy" }))
    h.time.schedule(500, () => h.emit(streamFailure, { type: "idle" }))
    return done
  }
}

describe("a rate limit whose wait is longer than a stall budget", () => {
  test("goes on on the first fallback model once the failed run has ended, same agent, the continue naming both models", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, longRateLimit)
    await h.advance(1000)
    expect(h.port.sends).toHaveLength(0) // the run has not ended yet: nothing runs two turns
    h.emit({ type: "idle" })
    await h.advance(1000)
    expect(h.port.sends).toHaveLength(1)
    const sent = h.port.sends[0]!
    expect(sent.setup).toEqual({ agent: "build", model: BACKUP })
    expect(sent.onFallback).toBe(true)
    expect(sent.text).toContain("openai/gpt-x cannot go on for now")
    expect(sent.text).toContain("anthropic/claude-y takes over")
    expect(h.port.logged(/switching to fallback model anthropic\/claude-y/)).toBe(true)
    // Not held by a rate-limit wait of the old model.
    expect(h.port.logged(/waiting until/)).toBe(false)
    expect(h.engine.status(SESSION)?.fallback).toMatchObject({ model: "anthropic/claude-y", userModel: "openai/gpt-x" })
  })

  test("negative control: with fallbackModels empty the same timeline waits as today", async () => {
    const h = makeHarness()
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(10 * 60_000, 5000)
    expect(h.port.sends).toHaveLength(0)
    expect(h.port.logged(/rate limited \(HTTP 429\); hit 1, waiting until/)).toBe(true)
    expect(h.port.logged(/fallback/)).toBe(false)
    expect(h.engine.status(SESSION)?.fallback).toBeUndefined()
  })

  test("negative control: a wait within the stall budget is waited out on the user's model", async () => {
    const h = makeHarness({ ...ON, rateLimitCooldownsMs: [10_000] })
    h.emit(...userTurn, { ...longRateLimit, retryAfterMs: undefined }, { type: "idle" })
    await h.advance(30_000, 1000)
    expect(modelsSent(h)).toEqual(["openai/gpt-x"])
    expect(h.port.logged(/fallback/)).toBe(false)
  })
})

describe("the host scheduling its own retry far ahead", () => {
  test("the host's retry is ended first (abort), then the fallback continue: never two models on one turn", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, { type: "busy" }, farRetry)
    await h.advance(200, 50)
    expect(h.port.actions).toEqual(["abort"])
    h.emit({ type: "idle" })
    await h.advance(ABORT_CONTINUE_DELAY_MS + 500, 250)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(modelsSent(h)).toEqual(["anthropic/claude-y"])
    expect(h.port.sends[0]!.text).toContain("its retry is 1h 0m 0s away")
  })

  test("the host reporting its far retry twice while the switch is under way still makes one switch, to the first fallback", async () => {
    const h = makeHarness(ON)
    // The history read before the switch takes a while: the second report arrives meanwhile.
    const read = h.port.readMessages.bind(h.port)
    h.port.readMessages = (id, limit) => new Promise((resolve) => h.time.schedule(100, () => resolve(read(id, limit))))
    h.emit(...userTurn, { type: "busy" }, farRetry)
    await h.advance(50, 10)
    h.emit(farRetry)
    await h.advance(500, 50)
    h.emit({ type: "idle" })
    await h.advance(ABORT_CONTINUE_DELAY_MS + 500, 250)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(modelsSent(h)).toEqual(["anthropic/claude-y"])
    expect(h.engine.status(SESSION)?.fallback?.model).toBe("anthropic/claude-y")
    expect(h.port.logged(/switching to fallback model local\/qwen/)).toBe(false)
  })

  test("negative control: a retry due within the stall budget is the host's business", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, { ...farRetry, retryInMs: 2000 })
    await h.advance(5000, 250)
    expect(h.port.actions).toEqual([])
  })

  test("negative control: with fallbackModels empty a far retry is left to the host until the stall budget", async () => {
    const h = makeHarness()
    h.emit(...userTurn, farRetry)
    await h.advance(60_000, 1000)
    expect(h.port.actions).toEqual([])
  })
})

describe("never", () => {
  const cases: [string, (h: Harness) => void][] = [
    ["after ESC", (h) => h.emit({ type: "interrupted", byUser: true })],
    ["while paused", (h) => h.pauses.pause(SESSION)],
    ["while the user is asked something", (h) => h.emit({ type: "awaitingUser", key: "q1", open: true })],
  ]
  for (const [label, hold] of cases) {
    test(`${label}`, async () => {
      const h = makeHarness(ON)
      h.emit(...userTurn)
      hold(h)
      h.emit(farRetry)
      h.emit(longRateLimit, { type: "idle" })
      await h.advance(60_000, 1000)
      expect(h.port.actions).toEqual([])
      expect(h.engine.status(SESSION)?.fallback).toBeUndefined()
    })
  }

  test("in a hand-off: the newest turn asks the user, so the usual wait applies instead", async () => {
    const h = makeHarness(ON)
    h.port.history.set(SESSION, [
      { id: "u1", role: "user", parts: [{ kind: "text", text: "refactor it" }] },
      { id: "a1", role: "assistant", parts: [{ kind: "text", text: "Which of the two options do you prefer?" }], finish: "stop" },
    ])
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(60_000, 1000)
    expect(h.port.sends).toHaveLength(0)
    expect(h.port.logged(/fallback to anthropic\/claude-y not made: the newest turn asks the user/)).toBe(true)
    expect(h.port.logged(/hit 1, waiting until/)).toBe(true)
    expect(h.engine.status(SESSION)?.fallback).toBeUndefined()
  })

  for (const [label, hold] of [
    ["paused", (h: Harness) => h.pauses.pause(SESSION)],
    ["ESC", (h: Harness) => h.emit({ type: "interrupted", byUser: true })],
  ] as const) {
    test(`${label} between the decision and the failed run's end: nothing goes out`, async () => {
      const h = makeHarness(ON)
      h.emit(...userTurn, longRateLimit)
      await h.advance(500)
      hold(h)
      h.emit({ type: "idle" })
      await h.advance(60_000, 1000)
      expect(h.port.actions).toEqual([])
    })
  }

  test("control for the holds: the same timeline with none of them switches", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(60_000, 1000)
    expect(modelsSent(h)).toEqual(["anthropic/claude-y"])
  })
})

describe("one episode", () => {
  test("each model once: the user's, then each fallback; with the list spent the normal wait applies", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2000)
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, longRateLimit, { type: "idle" })
    await h.advance(2000)
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, longRateLimit, { type: "idle" })
    await h.advance(10 * 60_000, 5000)
    expect(modelsSent(h)).toEqual(["anthropic/claude-y", "local/qwen"])
    expect(h.port.logged(/fallback models spent \(tried openai\/gpt-x, anthropic\/claude-y, local\/qwen\)/)).toBe(true)
    expect(h.port.logged(/hit 1, waiting until/)).toBe(true)
  })

  test("a dead endpoint: the chain's give-up moves on to the fallback, whose own give-up then stands", async () => {
    const h = makeHarness({ fallbackModels: ["anthropic/claude-y"] })
    h.emit(...userTurn, streamFailure, { type: "idle" })
    everyPromptFails(h)
    await h.advance(10 * 60_000, 250)
    const models = modelsSent(h)
    const switchAt = models.indexOf("anthropic/claude-y")
    expect(switchAt).toBeGreaterThan(0)
    expect(models.slice(0, switchAt).every((m) => m === "openai/gpt-x")).toBe(true)
    expect(models.slice(switchAt).every((m) => m === "anthropic/claude-y")).toBe(true)
    expect(h.port.logged(/cannot go on \(the endpoint keeps failing/)).toBe(true)
    expect(h.port.logged(/streaming-failure recovery gave up/)).toBe(true)
    expect(h.port.logged(/fallback models spent/)).toBe(true)
  })

  test("a give-up the fallback could not take over (a hand-off) stands: no switch, and no fresh chain either", async () => {
    const h = makeHarness({ fallbackModels: ["anthropic/claude-y"] })
    h.port.history.set(SESSION, [{ id: "a1", role: "assistant", parts: [{ kind: "text", text: "Shall I delete the old branch?" }], finish: "stop" }])
    h.emit(...userTurn, streamFailure, { type: "idle" })
    everyPromptFails(h)
    await h.advance(5 * 60_000, 250)
    const sentBefore = h.port.sends.length
    expect(modelsSent(h).every((m) => m === "openai/gpt-x")).toBe(true)
    expect(h.port.logged(/fallback to anthropic\/claude-y not made: the newest turn asks the user/)).toBe(true)
    expect(h.port.logged(/streaming-failure recovery gave up/)).toBe(true)
    // Another failure now finds the chain given up, as without fallbackModels.
    h.emit(streamFailure, { type: "idle" })
    await h.advance(60_000, 1000)
    expect(h.port.sends).toHaveLength(sentBefore)
  })

  test("the next genuine user message ends it: the user's model is theirs again, and so are our later prompts", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2000)
    expect(h.engine.userTurnModel(SESSION, BACKUP)).toEqual(USER)
    expect(h.engine.userTurnModel(SESSION, undefined)).toEqual(USER)
    expect(h.engine.userTurnModel(SESSION, THIRD)).toBeUndefined() // the user's own pick wins
    h.emit(...userTurn)
    expect(h.engine.userTurnModel(SESSION, BACKUP)).toBeUndefined()
    expect(h.engine.status(SESSION)?.fallback).toBeUndefined()
    expect(h.port.logged(/the user wrote; fallback episode over, back to openai\/gpt-x/)).toBe(true)
    // A new episode starts from the user's model again.
    h.emit(longRateLimit, { type: "idle" })
    await h.advance(2000)
    expect(modelsSent(h)).toEqual(["anthropic/claude-y", "anthropic/claude-y"])
  })

  test("2.x: a genuine user message while the fallback run is live puts the session back on the user's model at once", async () => {
    const h = makeHarness(ON)
    const restored: string[] = []
    Object.assign(h.port, { restoreModel: (id: string, model: typeof USER) => (restored.push(`${id} ${model.providerID}/${model.modelID}`), Promise.resolve()) })
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2000)
    expect(modelsSent(h)).toEqual(["anthropic/claude-y"])
    // The fallback run is live when the user writes; the episode ends with their message.
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, { type: "modelOutput" })
    expect(restored).toEqual([])
    h.emit(...userTurn)
    await h.advance(500)
    expect(restored).toEqual([`${SESSION} openai/gpt-x`])
    h.emit({ type: "idle" })
    await h.advance(500)
    expect(restored).toHaveLength(1)
  })

  test("2.x: a user message reported with the fallback's model (the newest step's) still counts as the user's own model", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2000)
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, { type: "modelOutput" }, { type: "idle" })
    // 2.x names no model on a user turn: the adapter reports the newest step's, the fallback's.
    h.emit({ type: "userMessage", genuine: true, setup: { agent: "build", model: BACKUP } }, { type: "busy" }, { type: "modelOutput" })
    h.emit(longRateLimit, { type: "idle" })
    await h.advance(2000)
    // The next episode starts from the user's model again: the first fallback is tried first.
    expect(modelsSent(h)).toEqual(["anthropic/claude-y", "anthropic/claude-y"])
    expect(h.port.sends[1]!.text).toContain("openai/gpt-x cannot go on for now")
    expect(h.engine.status(SESSION)?.fallback?.userModel).toBe("openai/gpt-x")
  })

  test("control: a user message naming a third model is the user's pick and stays theirs", async () => {
    const h = makeHarness(ON)
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2000)
    h.emit({ type: "userMessage", genuine: true, setup: { agent: "build", model: THIRD } }, { type: "busy" }, { type: "modelOutput" })
    h.emit(longRateLimit, { type: "idle" })
    await h.advance(2000)
    expect(modelsSent(h)).toEqual(["anthropic/claude-y", "anthropic/claude-y"])
    expect(h.port.sends[1]!.text).toContain("local/qwen cannot go on for now")
  })

  test("control: our own prompt during the episode does not put the session back (the fallback model carries on)", async () => {
    const h = makeHarness(ON)
    const restored: string[] = []
    Object.assign(h.port, { restoreModel: (id: string) => (restored.push(id), Promise.resolve()) })
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2000)
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, { type: "modelOutput" })
    await h.advance(500)
    expect(restored).toEqual([])
  })

  test("every prompt of ours during the episode goes on with the fallback model (a stall continue too)", async () => {
    const h = makeHarness({ ...ON, chunkTimeoutMs: 10_000, gracePeriodMs: 0 })
    h.emit(...userTurn, longRateLimit, { type: "idle" })
    await h.advance(2000)
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, { type: "modelOutput" }, { type: "idle" }, { type: "busy" })
    h.port.busySessions = []
    await h.advance(30_000, 500)
    expect(modelsSent(h).length).toBeGreaterThanOrEqual(2)
    expect(new Set(modelsSent(h))).toEqual(new Set(["anthropic/claude-y"]))
  })
})

describe("models the host does not know", () => {
  test("named in one warning at startup and never switched to", async () => {
    const time = new SimulatedTime()
    const port = new RecordingPort(() => time.now())
    const listed = { calls: 0 }
    Object.assign(port, {
      listModels: () => {
        listed.calls++
        return Promise.resolve([USER, THIRD])
      },
    })
    const engine = new RecoveryEngine({ paths: recoveryPaths, port, time, options: resolveOptions({ ...ON, modelProfiles: { ollama: { fallbackModels: ["x/y"] } } }, {}), pauses: new MemoryPauses() })
    await settle()
    expect(listed.calls).toBe(1)
    const warnings = port.logs.filter((l) => l.level === "warn" && /fallbackModels/.test(l.message))
    expect(warnings.map((w) => w.message)).toEqual(['fallbackModels: the host knows no model "anthropic/claude-y", "x/y"; dropped'])
    for (const s of userTurn) engine.handle({ sessionID: SESSION, ...s } as never)
    engine.handle({ sessionID: SESSION, ...longRateLimit })
    engine.handle({ sessionID: SESSION, type: "idle" })
    for (let i = 0; i < 8; i++) {
      time.advance(250)
      await settle()
    }
    expect(port.sends.map((s) => s.setup?.model)).toEqual([THIRD])
    engine.dispose()
  })

  test("negative control: with fallbackModels empty the host's list is not even asked", async () => {
    const time = new SimulatedTime()
    const port = new RecordingPort(() => time.now())
    let calls = 0
    Object.assign(port, { listModels: () => (calls++, Promise.resolve([USER])) })
    const engine = new RecoveryEngine({ paths: recoveryPaths, port, time, options: resolveOptions({}, {}), pauses: new MemoryPauses() })
    await settle()
    expect(calls).toBe(0)
    engine.dispose()
  })
})
