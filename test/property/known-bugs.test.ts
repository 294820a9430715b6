/**
 * Strict reproductions of the bugs the property runs found, each the shrunk timeline, trimmed
 * by hand. While a bug is open (listed in KNOWN_BUGS) its reproduction is `test.failing`;
 * when a fix lands that test starts failing: remove the entry from KNOWN_BUGS and add its id
 * to FIXED below, which turns the reproduction into a plain regression test (no violation of
 * any kind on that timeline).
 */
import { describe, expect, test } from "bun:test"
import type { HostEvent } from "./events.ts"
import type { CallScript, Scenario, Step } from "./model.ts"
import { KNOWN_BUGS } from "./known-bugs.ts"
import { runScenario, type DriverKind } from "./runner.ts"

/** Found by the property runs and fixed since: their timelines are now regression tests. */
const FIXED = new Set([
  "K1-late-tool-not-rechecked",
  "K2-reabort-before-abort-reported",
  "K3-sweep-forgets-protection",
  "K4-esc-taken-for-own-abort",
  "K5-subagent-nudge-repeats",
  "K6-orphan-parent-unstarted-child",
  "K7-clock-step-back",
  "K8-deleted-session-call-in-flight",
  "K9-stuck-subagent-nudged-mid-tool",
  "K10-overdue-answer-repeated",
  "K11-discovery-trusts-one-listing",
  "K12-failure-retry-clock-starts-at-send",
  "K13-error-keeps-dead-tools",
  "K14-idle-judgement-spins-after-clock-step-back",
  "K15-slot-lost-on-delete",
  "K16-failure-retry-before-prompt-shown",
  "K17-rediscovered-run-resets-ladder",
  "K18-failure-prompt-overdue-repeated",
  "K19-failure-prompt-behind-other-prompt",
  "K22-v2-prompt-after-core-gave-up",
  "K23-v2-prompt-after-esc-during-check",
  "K24-v2-prompt-after-user-wrote-during-check",
  "K25-v2-prompt-after-output-during-check",
  "K26-v2-esc-just-before-own-interrupt",
  "K21-v2-form-session-not-read",
  "K27-v2-late-listings-drop-running-tool",
  "K28-evicted-session-ladder-restarts",
])

const FAST = { chunkTimeoutMs: 200, gracePeriodMs: 0, checkIntervalMs: 500, baseBackoffMs: 0, maxBackoffMs: 0, sendTimeoutMs: 100, stuckToolAgeMs: 100, richContinuePrompt: false }

/** The options the streaming-failure chain timelines were found with (K12, K16). */
const FAILURE_CHAIN = {
  ...FAST,
  maxRetries: 2,
  lifetimeMaxContinues: 2,
  loopMaxContinues: 1,
  loopWindowMs: 1000,
  busyStallStrategy: "continue",
  activeUserWindowMs: 0,
  warmupMs: 0,
  toolTextCheckDelayMs: 0,
  minActivityGapMs: 0,
  injectIntervalMs: 0,
  subagentWaitMs: 1000,
}

const ev = (e: HostEvent): Step => ({ k: "ev", ev: e, how: "once" })
const wait = (ms: number): Step => ({ k: "wait", ms })
const ok = (echoDelayMs = 0, idleAfterAbort = false): CallScript => ({ outcome: "ok", lateMs: 0, echoDelayMs, idleAfterAbort })

/** The known-bug ids a scenario hits (new violations fail the test outright). */
async function knownHits(sc: Scenario, kind: DriverKind = "core"): Promise<string[]> {
  const r = await runScenario(sc, kind, { stopAtFirst: false })
  expect(r.violations.map((v) => `${v.invariant}: ${v.detail}`)).toEqual([])
  return [...r.known.counts.keys()]
}

/** The options the first 2.x property runs failed with (K21 to K24). */
const V2_FIRST = { ...FAILURE_CHAIN, maxRetries: 1, lifetimeMaxContinues: 1, sendTimeoutMs: 30_000 }
const late = (lateMs: number): CallScript => ({ outcome: "late", lateMs, echoDelayMs: 0, idleAfterAbort: false })

const CASES: Array<{ id: string; title: string; sc: Scenario; kinds?: DriverKind[] }> = [
  {
    id: "K27-v2-late-listings-drop-running-tool",
    title: "every read answered 14 s late: listings taken before a tool started mark the session stopped, dropping the tool",
    sc: {
      options: { ...V2_FIRST, maxRetries: 2, lifetimeMaxContinues: 2 },
      calls: [{ outcome: "late", lateMs: 14_010, echoDelayMs: 29, idleAfterAbort: false }],
      steps: [
        ev({ t: "say", s: 0, text: 0 }),
        ev({ t: "idle", s: 0 }),
        wait(3_672),
        ev({ t: "toolStart", s: 0, call: 0, tool: "bash", v: 0 }),
        wait(1_328),
        ev({ t: "user", s: 1 }),
        ev({ t: "busy", s: 1 }),
        wait(74_009),
        ev({ t: "toolStart", s: 0, call: 0, tool: "bash", v: 0 }),
        wait(1),
        ev({ t: "toolStart", s: 1, call: 0, tool: "bash", v: 0 }),
        wait(3_300),
        { k: "jump", ms: 10_677 },
        wait(33),
        ev({ t: "user", s: 1 }),
        ev({ t: "busy", s: 1 }),
        wait(74_414),
      ],
    },
    kinds: ["v2"],
  },
  {
    id: "K28-evicted-session-ladder-restarts",
    title: "1,532 new sessions, a third of them running: an evicted session re-adopted by discovery gets its first continue again",
    sc: {
      options: {},
      calls: [ok(1), ok(1409), { outcome: "junk", lateMs: 0, echoDelayMs: 0, idleAfterAbort: false }, ok(0, true), ok(0, true), { outcome: "throw", lateMs: 0, echoDelayMs: 0, idleAfterAbort: false }, ok(0, true), ok(0, true)],
      steps: [{ k: "flood", n: 463, tag: 0 }, ev({ t: "retry", s: 0 }), { k: "flood", n: 1069, tag: 1 }, ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), wait(1_800_001)],
    },
    kinds: ["v2"],
  },
  {
    id: "K21-v2-form-session-not-read",
    title: "a question form opened in a running session (form.created names it at data.form.sessionID) does not hold the continue",
    sc: {
      options: V2_FIRST,
      calls: [],
      steps: [ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), ev({ t: "ask", s: 0, key: 0, v: 1 }), wait(1_000)],
    },
    kinds: ["v2"],
  },
  {
    id: "K22-v2-prompt-after-core-gave-up",
    title: "a history check answered 2.8 s late: the prompt went out long after the core gave up on it, after the user's ESC",
    sc: {
      options: { ...V2_FIRST, sendTimeoutMs: 100 },
      calls: [{ outcome: "late", lateMs: 2801, echoDelayMs: 1, idleAfterAbort: false }],
      steps: [ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), wait(3_000), ev({ t: "esc", s: 0, v: 0 }), wait(70_000)],
    },
    kinds: ["v1", "v2"],
  },
  {
    id: "K23-v2-prompt-after-esc-during-check",
    title: "the user presses ESC while the 2.x port reads the history before its continue: the continue still went out",
    sc: {
      options: V2_FIRST,
      calls: [late(500)],
      steps: [ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), wait(300), ev({ t: "esc", s: 0, v: 0 }), wait(2_000)],
    },
    kinds: ["v1", "v2"],
  },
  {
    id: "K26-v2-esc-just-before-own-interrupt",
    title: "the user's ESC ends the run just as our interrupt goes out; the host answers interrupted: false and reports one interruption",
    sc: {
      options: { ...V2_FIRST, chunkTimeoutMs: 1_000, gracePeriodMs: 1_000, sendTimeoutMs: 100, busyStallStrategy: "abort" },
      calls: [late(1)],
      steps: [ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), wait(2_000), ev({ t: "esc", s: 0, v: 0 }), wait(5_300)],
    },
    kinds: ["v1", "v2"],
  },
  {
    id: "K25-v2-prompt-after-output-during-check",
    title: "the model writes again while the port reads the history (cut short by a clock jump): the stale continue goes out, then another",
    sc: {
      options: { ...V2_FIRST, lifetimeMaxContinues: 2 },
      calls: [{ outcome: "overdue", lateMs: 1, echoDelayMs: 0, idleAfterAbort: false }],
      steps: [
        ev({ t: "user", s: 0 }),
        ev({ t: "busy", s: 0 }),
        ev({ t: "say", s: 1, text: 0 }),
        ev({ t: "idle", s: 1 }),
        wait(300),
        ev({ t: "output", s: 0, v: 0 }),
        wait(14_772),
        { k: "jump", ms: 14_829 },
        wait(13_500),
        ev({ t: "toolStart", s: 1, call: 0, tool: "bash", v: 0 }),
        wait(62_000),
      ],
    },
    kinds: ["v1", "v2"],
  },
  {
    id: "K24-v2-prompt-after-user-wrote-during-check",
    title: "the user writes while the port reads the history: the stale continue went out in the new episode, and another after it",
    sc: {
      options: V2_FIRST,
      calls: [late(15_000)],
      steps: [ev({ t: "user", s: 1 }), ev({ t: "busy", s: 1 }), wait(3_000), ev({ t: "user", s: 1 }), ev({ t: "busy", s: 1 }), wait(1_800_000)],
    },
    kinds: ["v1", "v2"],
  },
  {
    id: "K20-esc-after-own-abort-landed",
    title: "the user's ESC lands just after our abort was carried out and answered, and the host reports one interruption",
    sc: {
      options: { ...FAST, maxRetries: 2, lifetimeMaxContinues: 2, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue", injectIntervalMs: 0, activeUserWindowMs: 0, warmupMs: 0, toolTextCheckDelayMs: 0, minActivityGapMs: 0, subagentWaitMs: 1000 },
      // A live run's stall is aborted first (no continue before it): the abort is the first call,
      // made as the 200 ms budget passes, and the ESC comes in the 2 ms before the host reports it.
      calls: [{ outcome: "ok", lateMs: 0, echoDelayMs: 2, idleAfterAbort: false }, ok(0)],
      steps: [ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), wait(200), ev({ t: "esc", s: 0, v: 0 }), wait(1), ev({ t: "say", s: 0, text: 0 }), ev({ t: "idle", s: 0 }), wait(6000)],
    },
    kinds: ["core", "v1", "v2"],
  },
  {
    id: "K19-failure-prompt-behind-other-prompt",
    title: "a ready-to-continue continue accepted but shown 296 ms later, and a streaming error before it shows",
    sc: {
      options: { ...FAILURE_CHAIN, maxRetries: 1 },
      calls: [{ outcome: "late", lateMs: 1, echoDelayMs: 296, idleAfterAbort: false }],
      steps: [
        ev({ t: "say", s: 1, text: 4 }),
        { k: "ev", ev: { t: "idle", s: 1 }, how: "twice" },
        wait(300),
        ev({ t: "error", s: 1, name: "APIError" }),
        ev({ t: "say", s: 0, text: 0 }),
        ev({ t: "idle", s: 0 }),
        wait(3000),
      ],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K18-failure-prompt-overdue-repeated",
    title: "a recovery prompt answered 6 s past sendTimeoutMs is followed by the next one as it lands",
    sc: {
      options: { ...FAILURE_CHAIN, lifetimeMaxContinues: 2 },
      calls: [{ outcome: "overdue", lateMs: 6000, echoDelayMs: 0, idleAfterAbort: false }],
      steps: [ev({ t: "error", s: 0, name: "APIError" }), ev({ t: "ask", s: 1, key: 0, v: 0 }), wait(1_800_000)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K17-rediscovered-run-resets-ladder",
    title: "a session deleted mid-recovery, revived by our late answers and re-adopted by discovery, gets the same continue again",
    sc: {
      options: { ...FAST, maxRetries: 4, lifetimeMaxContinues: 4, loopMaxContinues: 1, loopWindowMs: 1000, sendTimeoutMs: 30_000, busyStallStrategy: "continue" },
      calls: [{ outcome: "late", lateMs: 19_800, echoDelayMs: 0, idleAfterAbort: true }],
      steps: [
        ev({ t: "user", s: 3 }),
        ev({ t: "busy", s: 3 }),
        ev({ t: "toolStart", s: 0, call: 0, tool: "bash" }),
        wait(200),
        ev({ t: "deleted", s: 3 }),
        ev({ t: "user", s: 0 }),
        ev({ t: "busy", s: 0 }),
        wait(70_000),
        ev({ t: "esc", s: 0, v: 0 }),
        wait(114_400),
      ],
    },
  },
  {
    id: "K1-late-tool-not-rechecked",
    title: "a tool that starts in the millisecond of the stall decision does not stop the continue",
    sc: {
      options: { ...FAST, baseBackoffMs: 1000, maxBackoffMs: 8000, maxRetries: 1, lifetimeMaxContinues: 1, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue" },
      calls: [],
      steps: [ev({ t: "toolStart", s: 2, call: 1, tool: "bash" }), wait(1_800_000), ev({ t: "toolStart", s: 2, call: 0, tool: "bash" }), wait(3000)],
    },
  },
  {
    id: "K1-late-tool-not-rechecked",
    title: "a tool that starts after our abort does not stop the continue 2 s later",
    sc: {
      options: { ...FAST, maxRetries: 1, lifetimeMaxContinues: 1, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "abort" },
      calls: [ok(1)],
      steps: [ev({ t: "user", s: 1 }), ev({ t: "busy", s: 1 }), wait(300), ev({ t: "toolStart", s: 1, call: 0, tool: "bash" }), wait(2000)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K2-reabort-before-abort-reported",
    title: "abort, failed continue, abort again before the host reported the first abort",
    sc: {
      // injectIntervalMs 0: the continue after the abort goes out ABORT_CONTINUE_DELAY_MS later
      // (with the default spacing it waits longer, which only moves the window). Found when that
      // pause was 2 s, with the abort reported 2.2 s late; the 5 s pause moved the window.
      options: { ...FAST, maxRetries: 3, lifetimeMaxContinues: 3, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue", injectIntervalMs: 0 },
      calls: [ok(201), { outcome: "junk", lateMs: 0, echoDelayMs: 5202, idleAfterAbort: false }, { outcome: "reject", lateMs: 0, echoDelayMs: 0, idleAfterAbort: false }],
      steps: [ev({ t: "toolStart", s: 0, call: 0, tool: "bash" }), wait(1), ev({ t: "toolEnd", s: 0, call: 0 }), wait(6000)],
    },
  },
  {
    id: "K10-overdue-answer-repeated",
    title: "a rate-limit continue answered after sendTimeoutMs is sent again while the first is still on its way",
    sc: {
      options: { ...FAST, maxRetries: 1, lifetimeMaxContinues: 3, busyStallStrategy: "continue", injectIntervalMs: 0, rateLimitCooldownsMs: [1000] },
      calls: [{ outcome: "overdue", lateMs: 5000, echoDelayMs: 0, idleAfterAbort: false }, ok()],
      steps: [ev({ t: "error", s: 0, name: "APIError", status: 429 }), wait(8000)],
    },
    kinds: ["core", "v1"],
  },
  {
    // (Classified as K2 when found: an overdue abort is unreported too, and K2 was matched first.)
    id: "K10-overdue-answer-repeated",
    title: "an abort answered after sendTimeoutMs is repeated by the next stall while the first is still on its way",
    sc: {
      options: { ...FAST, maxRetries: 3, lifetimeMaxContinues: 3, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "abort" },
      calls: [{ outcome: "overdue", lateMs: 500, echoDelayMs: 0, idleAfterAbort: false }, ok()],
      steps: [ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), wait(350), ev({ t: "activity", s: 0 }), wait(3000)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K11-discovery-trusts-one-listing",
    title: "a session listing taken just before a tool started, answered late, makes the running session idle",
    sc: {
      options: { ...FAST, sendTimeoutMs: 30_000, maxRetries: 1, lifetimeMaxContinues: 1, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue" },
      calls: [{ outcome: "late", lateMs: 4684, echoDelayMs: 0, idleAfterAbort: false }],
      steps: [ev({ t: "ask", s: 0, key: 0 }), wait(5000), ev({ t: "toolStart", s: 0, call: 0, tool: "bash" }), wait(70_000)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K12-failure-retry-clock-starts-at-send",
    title: "a slow but successful recovery prompt is followed at once by the next one",
    sc: {
      options: { ...FAILURE_CHAIN, sendTimeoutMs: 1000 },
      calls: [{ outcome: "late", lateMs: 994, echoDelayMs: 6, idleAfterAbort: false }],
      steps: [ev({ t: "error", s: 0, name: "APIError" }), wait(3000)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K16-failure-retry-before-prompt-shown",
    title: "a recovery prompt accepted at once but shown 1001 ms later is followed by the next one",
    sc: {
      options: FAILURE_CHAIN,
      calls: [{ outcome: "late", lateMs: 1, echoDelayMs: 1001, idleAfterAbort: false }],
      steps: [ev({ t: "error", s: 0, name: "APIError" }), wait(3000)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K13-error-keeps-dead-tools",
    title: "after an error a new call with a reused id inherits the dead call's 30-minute age",
    sc: {
      options: { ...FAST, maxRetries: 1, lifetimeMaxContinues: 1, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue" },
      calls: [],
      steps: [
        { k: "pause", s: 3 },
        ev({ t: "toolStart", s: 3, call: 1, tool: "bash" }),
        wait(1_800_001),
        ev({ t: "error", s: 3, name: "APIError" }),
        ev({ t: "toolStart", s: 3, call: 1, tool: "bash" }),
        { k: "resume", s: 3 },
        wait(3500),
      ],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K14-idle-judgement-spins-after-clock-step-back",
    title: "an idle after a 1 ms step back of the clock re-arms the judgement at zero delay forever",
    sc: {
      options: { ...FAST, maxRetries: 1, lifetimeMaxContinues: 1, activeUserWindowMs: 0, warmupMs: 0, toolTextCheckDelayMs: 0, minActivityGapMs: 0 },
      calls: [],
      steps: [ev({ t: "user", s: 0 }), ev({ t: "busy", s: 0 }), { k: "jump", ms: -1 }, ev({ t: "idle", s: 0 }), wait(1)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K15-slot-lost-on-delete",
    title: "a session deleted while its continue is pending and brought back by a late event gets a second call",
    sc: {
      // injectIntervalMs 0: on v1 the port's send spacing (kept per id across the delete) would refuse it otherwise.
      options: { ...FAST, sendTimeoutMs: 30_000, maxRetries: 1, lifetimeMaxContinues: 1, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue", injectIntervalMs: 0 },
      calls: [{ outcome: "hang", lateMs: 0, echoDelayMs: 0, idleAfterAbort: false }],
      steps: [ev({ t: "busy", s: 2 }), wait(300), ev({ t: "deleted", s: 2 }), ev({ t: "busy", s: 2 }), wait(1000)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K3-sweep-forgets-protection",
    title: "an ESC-latched session swept after 10 idle minutes is continued when it runs again",
    sc: {
      options: { ...FAST, maxRetries: 1, lifetimeMaxContinues: 1, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue" },
      calls: [],
      steps: [ev({ t: "esc", s: 0 }), wait(660_000), ev({ t: "toolStart", s: 0, call: 0, tool: "bash" }), wait(1), ev({ t: "toolEnd", s: 0, call: 0 }), wait(300)],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K4-esc-taken-for-own-abort",
    title: "the user's ESC while our abort hangs is taken for the abort's echo; the session is continued",
    sc: {
      options: { ...FAST, sendTimeoutMs: 30_000, maxRetries: 2, lifetimeMaxContinues: 3, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue" },
      calls: [ok(0), { outcome: "hang", lateMs: 0, echoDelayMs: 0, idleAfterAbort: false }],
      steps: [
        ev({ t: "user", s: 0 }),
        ev({ t: "busy", s: 0 }),
        wait(3000),
        ev({ t: "esc", s: 0 }),
        wait(300),
        ev({ t: "toolStart", s: 0, call: 0, tool: "bash" }),
        wait(2000),
        ev({ t: "toolEnd", s: 0, call: 0 }),
        wait(70_000),
      ],
    },
    kinds: ["core", "v1"],
  },
  {
    id: "K5-subagent-nudge-repeats",
    title: "a stuck subagent is nudged again on the parent's next busy period with nothing from the child between",
    sc: {
      options: {},
      calls: [],
      steps: [
        ev({ t: "created", s: 2, parent: 0 }),
        ev({ t: "user", s: 2 }),
        ev({ t: "busy", s: 2 }),
        ev({ t: "user", s: 0 }),
        ev({ t: "busy", s: 0 }),
        wait(61_000),
        ev({ t: "idle", s: 0 }),
        ev({ t: "user", s: 0 }),
        ev({ t: "busy", s: 0 }),
        wait(1000),
      ],
    },
  },
  {
    id: "K6-orphan-parent-unstarted-child",
    title: "a child that was created but never ran counts as finished; the parent's task call is aborted",
    sc: { options: {}, calls: [], steps: [ev({ t: "created", s: 1, parent: 0 }), ev({ t: "toolStart", s: 0, call: 0, tool: "task" }), wait(70_000)] },
  },
  {
    id: "K7-clock-step-back",
    title: "after the clock steps back the ladder repeats a plain continue instead of escalating",
    sc: {
      options: {},
      calls: [],
      steps: [
        ev({ t: "toolStart", s: 0, call: 0, tool: "bash" }),
        wait(3000),
        ev({ t: "esc", s: 0 }),
        { k: "jump", ms: -187_001 },
        ev({ t: "user", s: 0 }),
        ev({ t: "busy", s: 0 }),
        wait(369_000),
      ],
    },
  },
  {
    id: "K8-deleted-session-call-in-flight",
    title: "a session deleted while its continue is in flight keeps a zombie watchdog that acts beside the new state",
    sc: {
      options: { ...FAST, sendTimeoutMs: 30_000, maxRetries: 2, lifetimeMaxContinues: 2, loopMaxContinues: 1, loopWindowMs: 1000, busyStallStrategy: "continue" },
      calls: [{ outcome: "late", lateMs: 500, echoDelayMs: 1, idleAfterAbort: false }],
      steps: [ev({ t: "toolStart", s: 2, call: 0, tool: "bash" }), wait(1), ev({ t: "toolEnd", s: 2, call: 0 }), wait(300), ev({ t: "deleted", s: 2 }), wait(70_000)],
    },
  },
  {
    id: "K9-stuck-subagent-nudged-mid-tool",
    title: "a subagent whose tool has run 180 s without output is prompted while the tool is open",
    sc: {
      options: {},
      calls: [],
      steps: [
        ev({ t: "created", s: 3, parent: 0 }),
        ev({ t: "user", s: 3 }),
        ev({ t: "busy", s: 3 }),
        ev({ t: "toolStart", s: 3, call: 0, tool: "bash" }),
        wait(1),
        ev({ t: "user", s: 0 }),
        ev({ t: "busy", s: 0 }),
        wait(200_000),
      ],
    },
  },
]

describe("known bugs (expected to fail until fixed)", () => {
  for (const c of CASES.filter((c) => !FIXED.has(c.id))) {
    for (const kind of c.kinds ?? ["core"]) {
      test.failing(`${c.id} [${kind}]: ${c.title}`, async () => {
        expect(await knownHits(c.sc, kind)).not.toContain(c.id)
      })
    }
  }
})

describe("known-bug reproductions are not vacuous", () => {
  // Guards the `test.failing` cases above: each must fail for its own bug, not for any reason.
  for (const c of CASES.filter((c) => !FIXED.has(c.id))) {
    for (const kind of c.kinds ?? ["core"]) {
      test(`${c.id} [${kind}] reproduces`, async () => {
        const hits = await knownHits(c.sc, kind)
        if (!hits.includes(c.id)) console.log(`[known-bugs] ${c.id} [${kind}] no longer reproduces: fixed? Move it to FIXED. hits=${hits.join(",") || "none"}`)
        expect(hits).toContain(c.id)
      })
    }
  }
})

describe("fixed bugs stay fixed (timelines the property runs once failed on)", () => {
  test("FIXED and KNOWN_BUGS do not overlap", () => {
    expect(KNOWN_BUGS.map((k) => k.id).filter((id) => FIXED.has(id))).toEqual([])
  })
  for (const c of CASES.filter((c) => FIXED.has(c.id))) {
    for (const kind of c.kinds ?? ["core"]) {
      test(`${c.id} [${kind}]: ${c.title}`, async () => {
        // No known-bug entry covers it any more: any violation on this timeline is new.
        const r = await runScenario(c.sc, kind, { stopAtFirst: false })
        expect(r.violations.map((v) => `${v.invariant}: ${v.detail}`)).toEqual([])
      }, 60_000) // the flood timelines (K28: 1,532 sessions) take seconds on a loaded machine
    }
  }
})
