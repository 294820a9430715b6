/**
 * Headless use: `opencode run --model fake/fake-model "<message>"` on a real OpenCode 1.18.33,
 * with the plugin loaded from this checkout and a fake model that hangs once. Each describe
 * is one run (harness/opencode-run.ts gives it the same isolated sandbox a server gets).
 *
 * `opencode run` 1.18.33 waits for the session's first idle and exits 1 when the session
 * reported any `session.error`. The plugin's own cure for a hung stream is abort + continue,
 * and the abort's MessageAbortedError and idle end such a run before the continue lands. So in
 * a headless run the plugin's `config` hook gives each provider its stall budget as
 * `chunkTimeout` and `headerTimeout`, wherever the config sets none: OpenCode then retries the
 * silent request itself (a `retry` status and a second request, no error), before the plugin's
 * watchdog would act. The first run shows that for a stream that hangs after a few words, the
 * second for a request that never gets its response headers; the third keeps both timeouts in
 * the config (the harness default, 10 minutes), which the plugin must leave alone, and shows
 * what happens then: the plugin's abort, which ends the run with exit 1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { hangAfter, hangBeforeHeaders, startFakeProvider, text, type FakeProvider, type Step } from "./harness/fake-provider.ts"
import { runOpencode, runPluginLogs, type RunOpencodeResult } from "./harness/opencode-run.ts"
import { PLUGIN_URL, pluginPromptRequests, SHORT_BUDGETS } from "./support.ts"

/**
 * SHORT_BUDGETS with room for the host. A run's session turns busy about 4 s (6 s and more on
 * a loaded machine) before its first request, with no event in between, and after its chunk
 * timeout OpenCode waits about 2.4 s before asking again. Both silences must fit in the
 * plugin's budget (chunkTimeoutMs + gracePeriodMs = 10 s), or the plugin steps in while the
 * host is still busy with the turn (a run can be given no warm-up turn). The host's chunk
 * timeout is chunkTimeoutMs alone, 3 s.
 */
const HEADLESS_BUDGETS = { ...SHORT_BUDGETS, chunkTimeoutMs: 3000, gracePeriodMs: 7000 }
/**
 * A hang before the headers sends no words, so the plugin sees the start-up silence and the
 * host's 3 s header timeout as one: up to 9 s and more on a loaded machine. More grace keeps the
 * host first; what the host is given (chunkTimeoutMs, 3 s) stays the same.
 */
const HEADER_HANG_BUDGETS = { ...HEADLESS_BUDGETS, gracePeriodMs: 12_000 }
const ANSWER = "Recovered: the answer is 42."
const QUESTION = "what is the answer?"

type Run = { provider: FakeProvider; result: RunOpencodeResult; sessionID?: string }

/**
 * One headless run against a model whose first answer hangs (`hang`). `configuredMs` is the
 * `chunkTimeout` and `headerTimeout` the config sets; null leaves both out.
 */
async function hungRun(hang: Step, configuredMs: number | null, budgets = HEADLESS_BUDGETS): Promise<Run> {
  const provider = await startFakeProvider()
  provider.enqueue(hang)
  provider.setFallback(text(ANSWER))
  const result = await runOpencode({
    providerUrl: provider.url,
    chunkTimeoutMs: configuredMs,
    headerTimeoutMs: configuredMs,
    plugins: [[PLUGIN_URL, budgets]],
    message: QUESTION,
    logLevel: "DEBUG",
    timeoutMs: 60_000,
  })
  return { provider, result, sessionID: /message=created id=(ses_\w+)/.exec(result.stderr)?.[1] }
}

function describeRun(run: Run): string {
  const { result } = run
  const log = runPluginLogs(result, "auto-resume").join("\n")
  const requests = run.provider.requests.map((r) => `#${r.index} ${r.step.kind} ${r.outcome} ${JSON.stringify(r.lastUserText.slice(0, 60))}`).join("\n")
  return `exit=${result.code} signal=${result.signal} timedOut=${result.timedOut}\n--- stdout ---\n${result.stdout}\n--- requests ---\n${requests}\n--- plugin log ---\n${log}`
}

function checker(run: Run) {
  return (ok: boolean, what: string) => {
    if (!ok) throw new Error(`${what}\n${describeRun(run)}`)
  }
}

function startupLines(run: Run): string[] {
  return runPluginLogs(run.result, "auto-resume").filter((l) => l.startsWith("info opencode-auto-resume ") && l.includes("host=v1"))
}

const TIMEOUTS_LINE = /^info provider timeouts set to chunkTimeoutMs .*: fake chunkTimeout\+headerTimeout=3000ms$/

/** The plugin handed the fake provider its budget for both timeouts, and said so once. */
function checkTimeoutsSet(run: Run) {
  const check = checker(run)
  const log = runPluginLogs(run.result, "auto-resume")
  check(startupLines(run).length === 1, "expected exactly one startup line with host=v1")
  check(log.filter((l) => TIMEOUTS_LINE.test(l)).length === 1, "expected one info line setting fake's chunkTimeout and headerTimeout to chunkTimeoutMs")
}

/**
 * The run exited 0 with the answer; the hung request was cut by OpenCode and asked again, and
 * the plugin did nothing. `cutBy`: the host's log line naming the timeout, where it writes one
 * (1.18.33 logs a `stream error` for the header timeout, nothing for the chunk timeout).
 */
function checkHostRetried(run: Run, hang: Step["kind"], cutBy?: RegExp) {
  const check = checker(run)
  check(run.result.code === 0 && !run.result.timedOut, "headless run did not exit 0")
  check(run.result.stdout.includes(ANSWER), "the recovered answer is not on stdout")
  const [hung, retry, ...more] = run.provider.requests
  // The hung request was cut off by the client (the host's timeout), and the same user turn
  // was asked again: no prompt of the plugin's in between.
  check(hung?.step.kind === hang && hung.outcome === "clientAborted", `the first request should be the ${hang} one, aborted by OpenCode`)
  check(retry?.lastUserText.includes(QUESTION) === true && retry.outcome === "completed", "the second request should be the host's retry of the user's turn")
  check(more.length === 0 && pluginPromptRequests(run.provider).length === 0, "no further request, and none from the plugin")
  check(cutBy?.test(run.result.stderr) ?? true, `OpenCode's log does not name the timeout that cut the request (${cutBy})`)
  check(!run.result.stderr.includes("MessageAbortedError"), "the run was aborted")
  const own = runPluginLogs(run.result, "auto-resume").filter((l) => run.sessionID !== undefined && l.includes(run.sessionID))
  check(run.sessionID !== undefined, "no session was created")
  check(!own.some((l) => /stall detected|continue sent|aborted the run/.test(l)), "the plugin's watchdog acted on the session")
  expect(hung?.lastUserText).toContain(QUESTION)
}

describe("headless `opencode run` with no stream timeouts in the config: a stream that hangs mid-answer", () => {
  let run: Run

  beforeAll(async () => {
    run = await hungRun(hangAfter("Let me look into"), null)
  }, 75_000)
  afterAll(async () => {
    await run?.provider.stop()
  })

  test("the plugin hands the fake provider its stall budget as chunkTimeout and headerTimeout", () => checkTimeoutsSet(run))

  test("OpenCode retried the hung stream itself (chunkTimeout); the run ends with exit 0 and the answer", () => checkHostRetried(run, "hangAfter"))
})

describe("headless `opencode run` with no stream timeouts in the config: a request that never gets its headers", () => {
  let run: Run

  beforeAll(async () => {
    run = await hungRun(hangBeforeHeaders(), null, HEADER_HANG_BUDGETS)
  }, 75_000)
  afterAll(async () => {
    await run?.provider.stop()
  })

  test("the plugin hands the fake provider its stall budget as chunkTimeout and headerTimeout", () => checkTimeoutsSet(run))

  test("OpenCode retried the request itself (headerTimeout); the run ends with exit 0 and the answer", () => checkHostRetried(run, "hangBeforeHeaders", /ProviderHeaderTimeoutError: Provider response headers timed out after 3000ms/))
})

describe("headless `opencode run` whose config sets both stream timeouts (negative control)", () => {
  let run: Run

  beforeAll(async () => {
    run = await hungRun(hangAfter("Let me look into"), 600_000)
  }, 75_000)
  afterAll(async () => {
    await run?.provider.stop()
  })

  test("the user's timeouts are kept, so the plugin's watchdog acts and the abort ends the run", () => {
    const check = checker(run)
    const log = runPluginLogs(run.result, "auto-resume")
    check(startupLines(run).length === 1, "expected exactly one startup line with host=v1")
    check(!log.some((l) => /provider timeouts set/.test(l)), "the plugin overrode the user's timeouts")
    check(log.some((l) => /provider timeouts left as configured: fake chunkTimeout\+headerTimeout$/.test(l)), "expected the debug line that fake's timeouts were kept")
    check(run.sessionID !== undefined, "no session was created")
    const own = log.filter((l) => l.includes(run.sessionID!))
    check(own.some((l) => /stall detected phase=idle/.test(l)), "the stall was not detected")
    // The run is live, so the plugin aborts it first (no continue parked in its inbox before).
    check(own.some((l) => /stall recovery: abort first, then continue; the host still runs it/.test(l)), "the plugin did not find the run live")
    check(own.some((l) => /aborted the run \(send continue\)/.test(l)), "the plugin did not abort the hung run")
    // Still the 1.18.33 limit: the abort's error and idle end the run before the continue.
    check(run.result.code === 1 && !run.result.stdout.includes(ANSWER), "expected the headless run to end with exit 1 and no answer")
    expect(run.provider.requests[0]?.lastUserText).toContain(QUESTION)
  })
})
