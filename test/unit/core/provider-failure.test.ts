import { describe, expect, test } from "bun:test"
import { OPTION_DEFAULTS } from "../../../src/options/index.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { ECHO_GRACE_MS as FAILURE_ECHO_GRACE_MS } from "../../../src/options/constants.ts"
import {
  FAILURE_WATCHDOG_MIN_MS,
  INITIAL_FAILURE_STATE,
  nextFailureStep,
  type FailureBudgets,
  type FailureEvent,
  type FailureState,
  type FailureStep,
} from "../../../src/paths/provider-failures/failure-chain.ts"
import {
  explainFailure,
  isStreamingFailure,
  looksSuperLinear,
  type ErrorSignal,
  type FailureClass,
  type FailureClassifierOptions,
} from "../../../src/core/provider-failure.ts"
import { abortResumeReason, streamingFailureReason } from "../../../src/paths/provider-failures/prompts.ts"

const classifyFailure = (signal: ErrorSignal, options: FailureClassifierOptions): FailureClass => explainFailure(signal, options).kind

const defaults: FailureClassifierOptions = {
  streamingFailureErrorNames: OPTION_DEFAULTS.streamingFailureErrorNames,
  streamingFailureMessagePatterns: OPTION_DEFAULTS.streamingFailureMessagePatterns,
}

const sig = (name: string, message = "", status?: number): ErrorSignal => ({ name, message, status })

describe("classification", () => {
  test.each<[ErrorSignal, string]>([
    // aborted
    [sig("MessageAbortedError", "Aborted"), "aborted"],
    // rate limit: wins over the streaming name APIError
    [sig("APIError", "Rate limit exceeded", 429), "rate-limit"],
    [sig("APIError", "whatever", 429), "rate-limit"],
    [sig("UnknownError", "Too Many Requests"), "rate-limit"],
    [sig("APIError", "You exceeded your current quota, please check your plan"), "rate-limit"],
    [sig("APIError", '{"error":{"code":"insufficient_quota"}}'), "rate-limit"],
    [sig("APIError", "RESOURCE_EXHAUSTED: quota"), "rate-limit"],
    [sig("APIError", "Resource exhausted"), "rate-limit"],
    [sig("APIError", "rate_limit_error"), "rate-limit"],
    [sig("ProviderError", "You have reached your usage limit"), "rate-limit"],
    [sig("APIError", "ThrottlingException: Rate exceeded"), "rate-limit"],
    [sig("APIError", "Rate limit reached on tokens per min; too many tokens", 400), "rate-limit"],
    // context overflow: wins over the streaming name, and over a 400
    [sig("APIError", "prompt is too long: 210000 tokens > 200000 maximum", 400), "context-overflow"],
    [sig("APIError", "This model's maximum context length is 128000 tokens", 400), "context-overflow"],
    [sig("APIError", "context_length_exceeded"), "context-overflow"],
    [sig("APIError", "Input exceeds the context window"), "context-overflow"],
    [sig("UnknownError", "too many tokens in request"), "context-overflow"],
    [sig("ContextOverflowError", ""), "context-overflow"],
    // output cap is not an overflow
    [sig("MessageOutputLengthError", "output length exceeded"), "other"],
    // streaming
    [sig("APIError", "Internal server error", 500), "streaming"],
    [sig("ProviderError", ""), "streaming"],
    [sig("StreamError", "x"), "streaming"],
    [sig("UnknownError", "Streaming response failed"), "streaming"],
    [sig("UnknownError", "stream read failure"), "streaming"],
    [sig("Error", "Connection was RESET by peer"), "streaming"],
    [sig("Error", "connection unexpectedly closed"), "streaming"],
    [sig("APIError", "timeout", 408), "streaming"],
    // deterministic client errors are never retried, even with a streaming name
    [sig("APIError", "invalid request: bad schema", 400), "other"],
    [sig("APIError", "unauthorized", 401), "other"],
    [sig("ProviderAuthError", "bad key"), "other"],
    // names are exact and case-sensitive
    [sig("apierror", "boom"), "other"],
    [sig("UnknownError", "something odd"), "other"],
  ])("%j -> %s", (signal, expected) => {
    expect(classifyFailure(signal, defaults)).toBe(expected as never)
  })

  test("explainFailure says why", () => {
    expect(explainFailure(sig("APIError", "x", 429), defaults).why).toContain("429")
    expect(explainFailure(sig("APIError", "bad", 400), defaults).why).toContain("deterministic")
  })

  test("the message is capped: a marker past the cap is not seen", () => {
    const far = "a".repeat(10_000) + " rate limit"
    expect(classifyFailure(sig("UnknownError", far), defaults)).toBe("other")
    expect(classifyFailure(sig("UnknownError", "rate limit " + "a".repeat(10_000)), defaults)).toBe("rate-limit")
  })

  test("garbage fields never throw", () => {
    expect(classifyFailure({ name: undefined as never, message: 42 as never, status: Number.NaN }, defaults)).toBe("other")
  })
})

describe("classification of 2.x error types (the adapter passes the type as the name)", () => {
  test.each<[ErrorSignal, FailureClass]>([
    [sig("provider.rate-limit", "429", 429), "rate-limit"],
    [sig("provider.rate-limit", "slow down"), "rate-limit"],
    [sig("provider.quota", "out of credits"), "rate-limit"],
    [sig("provider.transport", "socket closed"), "streaming"],
    [sig("provider.internal", "upstream error", 500), "streaming"],
    [sig("provider.unknown", "stream broke"), "streaming"],
    [sig("provider.content-filter", "Provider blocked the response"), "other"],
    [sig("provider.auth", "invalid key"), "other"],
    [sig("provider.invalid-request", "bad schema"), "other"],
    [sig("aborted", "Aborted"), "aborted"],
    [sig("provider.transport", "prompt is too long"), "context-overflow"],
  ])("%o -> %s", (signal, kind) => {
    expect(classifyFailure(signal, defaults)).toBe(kind)
  })

  test("streamingFailureErrorNames matches a 2.x type exactly; a content filter stays out even when listed", () => {
    const none: FailureClassifierOptions = { streamingFailureErrorNames: [], streamingFailureMessagePatterns: [] }
    expect(classifyFailure(sig("provider.transport", "socket closed"), none)).toBe("other")
    expect(classifyFailure(sig("provider.transport", "socket closed"), { ...none, streamingFailureErrorNames: ["provider.transport"] })).toBe("streaming")
    expect(classifyFailure(sig("provider.content-filter", "blocked"), { ...none, streamingFailureErrorNames: ["provider.content-filter"] })).toBe("other")
  })
})

describe("failures bound to the model: another model may serve the same request (fallbackModels switch at once)", () => {
  const bound = (signal: ErrorSignal) => explainFailure(signal, defaults).modelBound === true
  test.each<[ErrorSignal, boolean]>([
    [sig("provider.no-route", "no route to model"), true],
    [sig("provider.auth", "invalid key", 401), true],
    [sig("ProviderAuthError", "invalid key"), true],
    [sig("APIError", "The model `gpt-x` does not exist or you do not have access to it.", 404), true],
    [sig("APIError", "forbidden", 403), true],
    [sig("UnknownError", "model_not_found"), true],
    [sig("UnknownError", "Unknown model: gpt-9"), true],
    // Not the model's: a full context (compaction answers it), a content filter (a refusal of
    // the content, not to be taken to another provider), another 400 (the request's own shape).
    [sig("provider.transport", "prompt is too long"), false],
    [sig("APIError", "This model's maximum context length is 128000 tokens", 400), false],
    [sig("provider.content-filter", "Provider blocked the response"), false],
    [sig("provider.invalid-request", "bad schema", 400), false],
    [sig("APIError", "bad request", 400), false],
    // Transient, whatever the words: a 5xx, a rate limit.
    [sig("APIError", "model not found in this region, try again", 503), false],
    [sig("provider.rate-limit", "model gpt-x does not exist in your quota tier", 429), false],
    [sig("provider.transport", "socket closed"), false],
  ])("%o -> %p", (signal, want) => {
    expect(bound(signal)).toBe(want)
    if (want) expect(explainFailure(signal, defaults).deterministic).toBe(true)
  })
})

describe("streaming patterns", () => {
  test("an invalid regex falls back to a case-insensitive substring", () => {
    const opts: FailureClassifierOptions = { streamingFailureErrorNames: [], streamingFailureMessagePatterns: ["socket (hang"] }
    expect(isStreamingFailure({ name: "E", message: "Socket (HANG up" }, opts)).toBe(true)
    expect(isStreamingFailure({ name: "E", message: "socket hang up" }, opts)).toBe(false)
  })

  test("a valid regex matches as a regex, case-insensitively", () => {
    const opts: FailureClassifierOptions = { streamingFailureErrorNames: [], streamingFailureMessagePatterns: ["upstream.*gone"] }
    expect(isStreamingFailure({ name: "E", message: "UPSTREAM went GONE" }, opts)).toBe(true)
    expect(isStreamingFailure({ name: "E", message: "gone upstream" }, opts)).toBe(false)
  })

  test("an empty pattern matches nothing (instead of everything)", () => {
    const opts: FailureClassifierOptions = { streamingFailureErrorNames: [], streamingFailureMessagePatterns: [""] }
    expect(isStreamingFailure({ name: "E", message: "anything" }, opts)).toBe(false)
  })

  test("a super-linear pattern is matched as plain text, and stays fast", () => {
    const evil = "(a+)+$"
    expect(looksSuperLinear(evil)).toBe(true)
    const opts: FailureClassifierOptions = { streamingFailureErrorNames: [], streamingFailureMessagePatterns: [evil] }
    const started = performance.now()
    expect(isStreamingFailure({ name: "E", message: "a".repeat(3_000) + "!" }, opts)).toBe(false)
    expect(performance.now() - started).toBeLessThan(200)
    expect(isStreamingFailure({ name: "E", message: "x (A+)+$ y" }, opts)).toBe(true)
  })

  test.each([
    ["(a+)+", true],
    ["(a|ab)*c", true],
    ["(\\w+\\s?){2,}", true],
    ["(a)\\1", true],
    ["((a+)b)*", true],
    ["stream.*fail", false],
    ["connection.*closed", false],
    ["(foo)+", false],
    ["(a+)?", false],
    ["[(a+)]+", false],
    ["\\(a+\\)+", false],
  ])("looksSuperLinear(%s) = %p", (source, expected) => {
    expect(looksSuperLinear(source)).toBe(expected)
  })

  test("compiled once per options object; a replaced list is recompiled", () => {
    const opts = { streamingFailureErrorNames: [] as string[], streamingFailureMessagePatterns: ["alpha"] }
    expect(isStreamingFailure({ name: "E", message: "alpha" }, opts)).toBe(true)
    opts.streamingFailureMessagePatterns = ["beta"]
    expect(isStreamingFailure({ name: "E", message: "alpha" }, opts)).toBe(false)
    expect(isStreamingFailure({ name: "E", message: "beta" }, opts)).toBe(true)
  })
})

// ---- the recovery chain ----

const budgets: FailureBudgets = { streamingFailureMaxPrompts: 3, baseBackoffMs: 1_000, maxBackoffMs: 8_000, streamingFailureWatchdogMs: 3_000 }

/**
 * Runs events in order; returns every step. Unless `echo` is false the host shows each recovery
 * prompt in the session the moment it is decided, as OpenCode does (folded into the prompt's
 * step); with `echo` false only explicit SEEN events show it.
 */
function run(events: [number, FailureEvent][], start: FailureState = INITIAL_FAILURE_STATE, b: FailureBudgets = budgets, echo = true): FailureStep[] {
  let state = start
  const steps: FailureStep[] = []
  for (const [now, event] of events) {
    let step = nextFailureStep(state, event, now, b)
    if (echo && step.effect.kind === "continue") step = { ...step, state: nextFailureStep(step.state, SEEN, now, b).state }
    steps.push(step)
    state = step.state
  }
  return steps
}
const actions = (steps: FailureStep[]) => steps.map((s) => s.effect.kind)
const F: FailureEvent = { type: "failure", name: "APIError" }
const IDLE: FailureEvent = { type: "idle" }
const BUSY: FailureEvent = { type: "busy" }
const TICK: FailureEvent = { type: "tick" }
const OUTPUT: FailureEvent = { type: "modelOutput" }
/** The host call of the recovery prompt settled. */
const SENT: FailureEvent = { type: "sent" }
/** Our own prompt showed up in the session (own user message). */
const SEEN: FailureEvent = { type: "ownPromptSeen" }

describe("streaming-failure chain", () => {
  test("armed -> prompt once idle and past the base backoff", () => {
    const steps = run([
      [0, F],
      [10, IDLE], // idle, but the backoff (1 s) is not over
      [1_000, TICK],
      [1_000, SENT],
    ])
    expect(steps[0]!.state.phase).toBe("armed")
    expect(steps[0]!.wakeAt).toBe(1_000)
    expect(actions(steps)).toEqual(["none", "none", "continue", "none"])
    expect(steps[2]!.effect).toEqual({ kind: "continue", attempt: 1, maxAttempts: 3, reason: "APIError" })
    expect(steps[3]!.wakeAt).toBe(1_000 + 3_000)
  })

  test("the watchdog after a prompt counts from the settled send, not from the decision", () => {
    // The host takes 3.5 s to accept prompt 1: the watchdog (3 s) runs from then.
    const slow = run([
      [0, F],
      [1_000, IDLE], // prompt 1 decided
      [4_000, TICK], // 3 s after the decision: the send is still on its way, nothing
      [4_500, SENT],
      [7_499, TICK],
      [7_500, TICK], // 3 s after the send settled: re-armed with backoff(1) = 2000
    ])
    expect(actions(slow)).toEqual(["none", "continue", "none", "none", "none", "none"])
    expect(slow[1]!.wakeAt).toBeUndefined()
    expect(slow[2]!.state).toMatchObject({ phase: "prompted", sending: true })
    expect(slow[2]!.wakeAt).toBeUndefined()
    expect(slow[3]!.wakeAt).toBe(7_500)
    expect(slow[4]!.state.phase).toBe("prompted")
    expect(slow[5]!.state.phase).toBe("armed")
    expect(slow[5]!.wakeAt).toBe(9_500)
    // Control: a send that settles at once leaves the decision's timing as it was.
    const quick = run([
      [0, F],
      [1_000, IDLE],
      [1_000, SENT],
      [4_000, TICK],
    ])
    expect(quick[2]!.wakeAt).toBe(4_000)
    expect(quick[3]!.state.phase).toBe("armed")
  })

  test("a settle that arrives after the chain moved on changes nothing", () => {
    const steps = run([
      [0, F],
      [1_000, IDLE], // prompt decided
      [1_200, BUSY], // the prompt worked
      [1_300, SENT],
    ])
    expect(steps[3]!.state.phase).toBe("running")
    expect(steps[3]!.wakeAt).toBeUndefined()
  })

  test("never prompts while busy (negative control)", () => {
    const steps = run([
      [0, BUSY],
      [1, F],
      [5_000, TICK],
    ])
    expect(actions(steps)).toEqual(["none", "none", "none"])
  })

  test("going busy before the prompt went out disarms (race guard)", () => {
    const steps = run([
      [0, F],
      [500, BUSY],
      [600, IDLE],
      [2_000, TICK],
    ])
    expect(steps[1]!.state.phase).toBe("clear")
    expect(actions(steps)).toEqual(["none", "none", "none", "none"])
  })

  test("a prompt that made the session busy takes no further step: the incident stays open until model output", () => {
    const steps = run([
      [0, F],
      [1_000, IDLE],
      [1_200, BUSY],
      [10_000, TICK],
      [11_000, IDLE],
      [60_000, TICK],
      [61_000, OUTPUT],
    ])
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "none", "none", "none"])
    expect(steps[2]!.state).toMatchObject({ phase: "running", attempts: 1 })
    expect(steps[5]!.state.phase).toBe("running")
    expect(steps[6]!.state).toMatchObject({ phase: "clear", attempts: 0, consecutive: 0 })
  })

  test("watchdog: still not busy after streamingFailureWatchdogMs -> retries with doubling backoff, then abort+resume, then give up", () => {
    const t0 = 1_000
    const steps = run([
      [0, F],
      [t0, IDLE], // prompt 1 at 1000
      [t0, SENT],
      [t0 + 2_999, TICK], // watchdog not due
      [t0 + 3_000, TICK], // due: re-armed with backoff(1) = 2000
      [t0 + 4_999, TICK],
      [t0 + 5_000, TICK], // prompt 2 at 6000
      [6_000, SENT],
      [6_000 + 3_000, TICK], // re-armed with backoff(2) = 4000
      [9_000 + 4_000, TICK], // prompt 3 at 13000
      [13_000, SENT],
      [13_000 + 3_000, TICK], // attempts exhausted -> abort + resume
      [21_000, SENT], // its continue, ABORT_CONTINUE_DELAY_MS after the abort, settled
      [21_000, SEEN],
      [21_000 + 3_000 - 1, TICK],
      [21_000 + 3_000, TICK], // still nothing -> give up
      [99_000, TICK],
    ])
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "none", "none", "continue", "none", "none", "continue", "none", "abort-continue", "none", "none", "none", "stand-down", "none"])
    expect(steps[4]!.wakeAt).toBe(t0 + 3_000 + 2_000)
    expect(steps[6]!.effect).toMatchObject({ attempt: 2 })
    expect(steps[9]!.effect).toMatchObject({ attempt: 3 })
    expect(steps[15]!.state.phase).toBe("gave-up")
  })

  test("retry budget 1: one prompt, then abort+resume", () => {
    const steps = run(
      [
        [0, F],
        [1_000, IDLE],
        [1_000, SENT],
        [4_000, TICK],
      ],
      INITIAL_FAILURE_STATE,
      { ...budgets, streamingFailureMaxPrompts: 1 },
    )
    expect(actions(steps)).toEqual(["none", "continue", "none", "abort-continue"])
  })

  test("retry budget 0: no prompt at all, just a logged give-up", () => {
    const steps = run([[0, F], [1_000, IDLE]], INITIAL_FAILURE_STATE, { ...budgets, streamingFailureMaxPrompts: 0 })
    expect(actions(steps)).toEqual(["none", "stand-down"])
  })

  test("streamingFailureWatchdogMs 0 still leaves the host a moment to go busy", () => {
    const b: FailureBudgets = { ...budgets, streamingFailureWatchdogMs: 0 }
    const steps = run([[0, F], [1_000, IDLE], [1_000, SENT], [1_000, TICK], [1_000 + FAILURE_WATCHDOG_MIN_MS, TICK]], INITIAL_FAILURE_STATE, b)
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "none"])
    expect(steps[3]!.state.phase).toBe("prompted") // a tick in the same instant is not the watchdog
    expect(steps[3]!.wakeAt).toBe(1_000 + FAILURE_WATCHDOG_MIN_MS)
    expect(steps[4]!.state.phase).toBe("armed")
  })

  test("zero backoff: the watchdog retries in the same step", () => {
    const b = { ...budgets, baseBackoffMs: 0, maxBackoffMs: 0 }
    const steps = run([[0, F], [0, IDLE], [0, SENT], [3_000, TICK]], INITIAL_FAILURE_STATE, b)
    expect(actions(steps)).toEqual(["none", "continue", "none", "continue"])
  })

  /** A dead endpoint: each recovery of ours starts a run that fails 1 s later with no output. */
  const deadEndpoint = (rounds: number): [number, FailureEvent][] => {
    const events: [number, FailureEvent][] = []
    let t = 0
    for (let i = 0; i < rounds; i++) {
      events.push([t, F], [t + 100, IDLE], [t + 5_000, TICK], [t + 5_000, SENT], [t + 5_100, BUSY])
      t += 10_000
    }
    return events
  }

  test("endpoint permanently down: one incident, recovery 1/3, 2/3, abort + resume 3/3, then the failure loop latches", () => {
    const steps = run(deadEndpoint(6))
    const taken = steps.filter((s) => s.effect.kind !== "none").map((s) => s.effect)
    expect(taken).toEqual([
      { kind: "continue", attempt: 1, maxAttempts: 3, reason: "APIError" },
      { kind: "continue", attempt: 2, maxAttempts: 3, reason: "APIError" },
      { kind: "abort-continue", attempt: 3, maxAttempts: 3, reason: expect.stringContaining("ended in another failure") },
      { kind: "stand-down", reason: "failure loop: 3 recoveries in a row brought no model output (APIError)" },
    ])
    // The failure that answers prompt 1 continues the incident instead of starting a new one.
    expect(steps[5]!.state).toMatchObject({ phase: "armed", attempts: 1, consecutive: 1 })
    // Its backoff grows with the incident (backoff(1) = 2 s), as for a prompt judged dead.
    expect(steps[6]!.wakeAt).toBe(10_000 + 2_000)
    expect(steps.at(-1)!.state.phase).toBe("loop-latched")
    // Once latched, further failures and ticks do nothing.
    expect(actions(steps.slice(-4))).toEqual(["none", "none", "none", "none"])
  })

  test("negative control: a failure that does not follow a recovery of ours starts a new incident at recovery 1/3", () => {
    // Same timeline, but the model speaks in each revived run before it fails again.
    const events = deadEndpoint(4).flatMap((e): [number, FailureEvent][] => (e[1] === BUSY ? [e, [e[0] + 50, OUTPUT]] : [e]))
    const prompts = run(events).filter((s) => s.effect.kind !== "none").map((s) => s.effect)
    expect(prompts).toEqual([1, 1, 1, 1].map((attempt) => ({ kind: "continue", attempt, maxAttempts: 3, reason: "APIError" })))
  })

  test("a failure before our prompt's call settled still answers it; its late settle changes nothing", () => {
    const steps = run([[0, F], [1_000, IDLE], [1_900, F], [2_000, SENT], [3_900, IDLE], [3_900, SENT]])
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "continue", "none"])
    expect(steps[4]!.effect).toMatchObject({ attempt: 2 })
  })

  test("abort + resume answered by a failure gives up, with a loop limit not reached yet", () => {
    // streamingFailureMaxPrompts 1: prompt 1/1 fails again -> abort + resume -> it fails again -> give up.
    const steps = run(deadEndpoint(4), INITIAL_FAILURE_STATE, { ...budgets, streamingFailureMaxPrompts: 1, failureLoopLimit: 5 })
    const taken = steps.filter((s) => s.effect.kind !== "none").map((s) => s.effect.kind)
    expect(taken).toEqual(["continue", "abort-continue", "stand-down"])
    expect(steps.find((s) => s.effect.kind === "stand-down")!.effect).toMatchObject({ reason: expect.stringContaining("abort + resume did not restart") })
  })

  test("a prompt refused before it reached the host is not an attempt: the same prompt is due again at retryAt", () => {
    const steps = run([[0, F], [1_000, IDLE], [1_000, { type: "refused", retryAt: 6_000 }], [5_999, TICK], [6_000, TICK]])
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "continue"])
    expect(steps[2]!.state).toMatchObject({ phase: "armed", attempts: 0 })
    expect(steps[2]!.wakeAt).toBe(6_000)
    expect(steps[4]!.effect).toMatchObject({ attempt: 1 })
    // Negative control: a refusal after the prompt settled (a late report) changes nothing.
    const late = run([[0, F], [1_000, IDLE], [1_000, SENT], [1_500, { type: "refused", retryAt: 6_000 }]])
    expect(late[3]!.state).toEqual(late[2]!.state)
  })

  test("model output between failures resets the count (negative control)", () => {
    const events: [number, FailureEvent][] = []
    let t = 0
    for (let i = 0; i < 6; i++) {
      events.push([t, F], [t + 1_000, IDLE], [t + 1_100, BUSY], [t + 1_150, OUTPUT], [t + 1_200, IDLE])
      t += 10_000
    }
    expect(actions(run(events)).filter((a) => a === "continue").length).toBe(6)
  })

  test("a custom failure-loop limit", () => {
    const events: [number, FailureEvent][] = [
      [0, F],
      [1_000, IDLE],
      [1_100, BUSY],
      [2_000, F],
    ]
    expect(actions(run(events, INITIAL_FAILURE_STATE, { ...budgets, failureLoopLimit: 1 }))).toEqual(["none", "continue", "none", "stand-down"])
  })

  test("gave-up and loop-latched are lifted by a genuine user turn or by model output", () => {
    const latched: FailureState = { ...INITIAL_FAILURE_STATE, phase: "loop-latched", consecutive: 3 }
    const user = nextFailureStep(latched, { type: "genuineUser" }, 0, budgets)
    expect(user.state).toMatchObject({ phase: "clear", consecutive: 0 })
    const out = nextFailureStep({ ...latched, phase: "gave-up" }, OUTPUT, 0, budgets)
    expect(out.state).toMatchObject({ phase: "clear", consecutive: 0 })
    // Negative control: a tick or a busy changes nothing.
    expect(nextFailureStep(latched, TICK, 0, budgets).state.phase).toBe("loop-latched")
    expect(nextFailureStep(latched, BUSY, 0, budgets).state.phase).toBe("loop-latched")
  })

  test("a tick with nothing armed does nothing", () => {
    expect(nextFailureStep(INITIAL_FAILURE_STATE, TICK, 0, budgets)).toEqual({ state: INITIAL_FAILURE_STATE, effect: { kind: "none", reason: "nothing due" } })
  })
})

describe("streaming-failure chain: a recovery prompt the host shows late (K16)", () => {
  // Prompt 1 is decided and taken by the host at 1000; watchdog 3 s, backoff(1) 2 s.
  const prompted: [number, FailureEvent][] = [
    [0, F],
    [1_000, IDLE],
    [1_000, SENT],
  ]

  test("shown after the watchdog: no verdict before it is seen; it starts the run, so no second prompt", () => {
    const steps = run([...prompted, [4_000, TICK], [5_000, SEEN], [5_000, BUSY], [60_000, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "none", "none", "none"])
    expect(steps[3]!.state.phase).toBe("prompted") // the usual verdict time: not yet, the prompt is unseen
    expect(steps[3]!.wakeAt).toBe(1_000 + 3_000 + FAILURE_ECHO_GRACE_MS)
    expect(steps[5]!.state.phase).toBe("running")
  })

  test("shown late but no run follows: the watchdog counts from the sighting", () => {
    const steps = run([...prompted, [5_000, SEEN], [7_999, TICK], [8_000, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(steps[3]!.wakeAt).toBe(8_000)
    expect(steps[4]!.state.phase).toBe("prompted")
    expect(steps[5]!.state.phase).toBe("armed")
    expect(steps[5]!.wakeAt).toBe(10_000)
  })

  test("shown before its call settled: the watchdog counts from the settle", () => {
    const steps = run([[0, F], [1_000, IDLE], [1_200, SEEN], [2_500, SENT], [5_499, TICK], [5_500, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(steps[3]!.wakeAt).toBe(5_500)
    expect(steps[4]!.state.phase).toBe("prompted")
    expect(steps[5]!.state.phase).toBe("armed")
  })

  test("negative control: shown at once and no run follows: the verdict comes at the usual time", () => {
    const steps = run([...prompted, [1_000, SEEN], [3_999, TICK], [4_000, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(steps[3]!.wakeAt).toBe(4_000)
    expect(steps[4]!.state.phase).toBe("prompted")
    expect(steps[5]!.state.phase).toBe("armed")
  })

  test("negative control: a host that never shows the prompt gets the old verdict after the grace", () => {
    const due = 1_000 + 3_000 + FAILURE_ECHO_GRACE_MS
    const steps = run([...prompted, [due - 1, TICK], [due, TICK], [due + 2_000, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "none", "continue"])
    expect(steps[4]!.state.phase).toBe("armed")
    expect(steps[5]!.effect).toMatchObject({ attempt: 2 })
  })

  test("each prompt waits for its own sighting: prompt 1's does not count for prompt 2", () => {
    const b = { ...budgets, baseBackoffMs: 0, maxBackoffMs: 0 }
    const steps = run([...prompted, [1_000, SEEN], [4_000, TICK], [4_000, SENT], [7_000, TICK]], INITIAL_FAILURE_STATE, b, false)
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "continue", "none", "none"])
    expect(steps[6]!.state.phase).toBe("prompted")
    expect(steps[6]!.wakeAt).toBe(4_000 + 3_000 + FAILURE_ECHO_GRACE_MS)
  })

  test("a sighting outside a prompted phase changes nothing", () => {
    expect(nextFailureStep(INITIAL_FAILURE_STATE, SEEN, 5, budgets)).toEqual({ state: INITIAL_FAILURE_STATE, effect: { kind: "none", reason: "nothing due" } })
    const armed = run([[0, F], [10, SEEN]])
    expect(armed[1]!.state).toEqual(armed[0]!.state)
  })
})

describe("streaming-failure chain: a recovery prompt whose call timed out (K18)", () => {
  // Prompt 1 is decided at 1000; its call times out at 1100 and may land until 61 100.
  const overdue: [number, FailureEvent][] = [
    [0, F],
    [1_000, IDLE],
    [1_100, { type: "sent", mayLandUntil: 61_100 }],
  ]

  test("unseen, it is not judged before it could no longer land", () => {
    const due = 61_100 + 3_000 + FAILURE_ECHO_GRACE_MS
    const steps = run([...overdue, [9_100, TICK], [due - 1, TICK], [due, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(steps[2]!.wakeAt).toBe(due)
    expect(steps[3]!.state.phase).toBe("prompted")
    expect(steps[4]!.state.phase).toBe("prompted")
    expect(steps[5]!.state.phase).toBe("armed")
  })

  test("seen, it has landed: the watchdog counts from the sighting, not from the hold", () => {
    const steps = run([...overdue, [20_000, SEEN], [23_000, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(steps[3]!.wakeAt).toBe(23_000)
    expect(steps[4]!.state.phase).toBe("armed")
  })

  test("negative control: a call that settled in time gets the usual verdict", () => {
    const steps = run([[0, F], [1_000, IDLE], [1_100, SENT], [1_100 + 3_000 + FAILURE_ECHO_GRACE_MS, TICK]], INITIAL_FAILURE_STATE, budgets, false)
    expect(steps[3]!.state.phase).toBe("armed")
  })
})

describe("streaming-failure chain: abort + resume is judged from its continue", () => {
  // streamingFailureMaxPrompts 1: prompt 1 at 1000, taken at once and shown; 3 s later abort + resume is decided.
  const b1 = { ...budgets, streamingFailureMaxPrompts: 1 }
  const decided: [number, FailureEvent][] = [
    [0, F],
    [1_000, IDLE],
    [1_000, SENT],
    [1_000, SEEN],
    [4_000, TICK],
  ]
  /** The continue goes out ABORT_CONTINUE_DELAY_MS after the abort; this host takes 20 s to accept it. */
  const settle = 4_000 + ABORT_CONTINUE_DELAY_MS + 20_000

  test("a continue the host is slow to accept: no verdict until the watchdog after it settled", () => {
    const steps = run([...decided, [4_000 + ABORT_CONTINUE_DELAY_MS + 3_000, TICK], [settle, SENT], [settle, SEEN], [settle + 2_999, TICK], [settle + 3_000, TICK]], INITIAL_FAILURE_STATE, b1, false)
    expect(actions(steps)).toEqual(["none", "continue", "none", "none", "abort-continue", "none", "none", "none", "none", "stand-down"])
    expect(steps[4]!.wakeAt).toBeUndefined() // the watchdog is armed by the continue's settle
    expect(steps[5]!.state).toMatchObject({ phase: "abort-resumed", sending: true }) // the old verdict time: still on its way
    expect(steps[7]!.wakeAt).toBe(settle + 3_000)
    expect(steps[9]!.state.phase).toBe("gave-up")
  })

  test("a continue never shown gets the echo grace on top, like a prompt", () => {
    const steps = run([...decided, [settle, SENT], [settle + 3_000, TICK], [settle + 3_000 + FAILURE_ECHO_GRACE_MS, TICK]], INITIAL_FAILURE_STATE, b1, false)
    expect(steps[5]!.wakeAt).toBe(settle + 3_000 + FAILURE_ECHO_GRACE_MS)
    expect(actions(steps).slice(5)).toEqual(["none", "none", "stand-down"])
  })

  test("a continue that revives the session before its call settled: a later failure is recovered again", () => {
    // The old timing gave up at 4000 + ABORT_CONTINUE_DELAY_MS + 3000, before the continue even
    // went out; gave-up ignores failures, so the revived run's next failure got nothing.
    const steps = run([...decided, [settle - 1_000, SEEN], [settle - 1_000, BUSY], [settle - 900, OUTPUT], [settle, SENT], [settle + 5_000, F], [settle + 5_000, IDLE], [settle + 6_000, TICK]], INITIAL_FAILURE_STATE, b1, false)
    expect(steps[6]!.state.phase).toBe("running")
    expect(steps[8]!.state.phase).toBe("clear") // its late settle changes nothing
    expect(actions(steps).slice(5)).toEqual(["none", "none", "none", "none", "none", "none", "continue"])
  })

  test("negative control: the continue settles and shows at once: the verdict comes at the old time", () => {
    const at = 4_000 + ABORT_CONTINUE_DELAY_MS
    const steps = run([...decided, [at, SENT], [at, SEEN], [at + 3_000 - 1, TICK], [at + 3_000, TICK]], INITIAL_FAILURE_STATE, b1, false)
    expect(actions(steps).slice(5)).toEqual(["none", "none", "none", "stand-down"])
  })
})

describe("failure prompts", () => {
  test("reasons name the error and the attempt", () => {
    expect(streamingFailureReason("APIError", 2, 3)).toBe("the provider stream failed (APIError, recovery 2/3)")
    expect(streamingFailureReason("", 1, 1)).toBe("the provider stream failed (an error)")
    expect(abortResumeReason("StreamError")).toContain("StreamError")
    expect(abortResumeReason("APIError", 3, 3)).toBe("the provider stream failed (APIError, recovery 3/3) and earlier recovery prompts did not restart the turn")
    // Past the budget (abort + resume after every prompt) no number is quoted: none repeats.
    expect(abortResumeReason("APIError", 4, 3)).toBe("the provider stream failed (APIError) and earlier recovery prompts did not restart the turn")
  })
})
