/**
 * The shared scenario table: each scenario written once, as data, in host-neutral steps, and
 * run against both adapters by run.test.ts. Expected effects are checked at every `check`
 * step, and the two adapters must agree with each other as well as with the table.
 *
 * Times: the fast profile's stall budget is chunkTimeoutMs + gracePeriodMs = 183 s; the first
 * recovery follows after baseBackoffMs = 1 s. A run the host still lists as live is aborted
 * first and continued as soon as the host reports the run over: at once here, where both fake
 * hosts report an abort as they answer it (RECOVERED covers both; ABORT_CONTINUE_DELAY_MS is
 * only the ceiling for a host that reports nothing). Only a session the host no longer runs
 * gets a plain continue.
 */

import { ABORT_CONTINUE_DELAY_MS } from "../../src/options/constants.ts"

export type HostCallBehaviour = "ok" | "reject" | "throw" | "hang"

export type Step =
  /** The user sends a message and a run starts (or the message queues behind the live run). */
  | { do: "userTurn"; text?: string }
  /** The model streams some text. */
  | { do: "streamDelta" }
  | { do: "toolStart"; callID: string; tool: string }
  /** A long tool reports progress (the host's heartbeat for running tools). */
  | { do: "toolProgress"; callID: string }
  | { do: "toolEnd"; callID: string }
  /** Nothing at all happens for this long. */
  | { do: "silence"; ms: number }
  /** The user presses ESC. */
  | { do: "userAbort" }
  /** The run ends normally. */
  | { do: "runEnds" }
  /** The host starts a run with no new user message (a queued item, a host-side resume). */
  | { do: "hostRunStarts" }
  | { do: "permissionAsked"; id: string }
  | { do: "permissionAnswered"; id: string }
  /** The model asks the user a question (1.x `question.asked`, 2.x `form.created`), and its answer. */
  | { do: "questionAsked"; id: string }
  | { do: "questionAnswered"; id: string }
  /** The provider fails the run and the host gives up on it: a broken stream, or a 429. */
  | { do: "providerFails"; failure: "stream" | "rate-limit" }
  | { do: "pause" }
  | { do: "resume" }
  /** How the host answers the plugin's actions (sends and aborts) from now on. */
  | { do: "hostCalls"; behaviour: HostCallBehaviour }
  /** The host ends the run but its idle events never reach the plugin (a stale busy status). */
  | { do: "idleLost" }
  /** Effects so far (counts are cumulative). */
  | { do: "check"; continues: number; aborts: number; cancelledByUser?: boolean }

export type Scenario = {
  name: string
  /** What the scenario protects, in one line. */
  why: string
  options?: Record<string, unknown>
  steps: Step[]
}

const STALL = 183_000
/** Past the budget, the backoff, our abort and the continue that follows its reported end. */
const RECOVERED = STALL + 3_000

const silence = (ms: number): Step => ({ do: "silence", ms })
const check = (continues: number, aborts: number, cancelledByUser?: boolean): Step =>
  cancelledByUser === undefined ? { do: "check", continues, aborts } : { do: "check", continues, aborts, cancelledByUser }

function healthyMinutes(n: number): Step[] {
  const steps: Step[] = []
  for (let i = 0; i < n; i++) steps.push(silence(60_000), { do: "streamDelta" })
  return steps
}

function heartbeatMinutes(n: number, callID: string): Step[] {
  const steps: Step[] = []
  for (let i = 0; i < n; i++) steps.push(silence(60_000), { do: "toolProgress", callID })
  return steps
}

function badHost(behaviour: HostCallBehaviour): Scenario {
  return {
    name: `bad host calls: ${behaviour}`,
    why: `host actions that ${behaviour} cost a bounded number of attempts, never an exception, and recovery works once the host does`,
    steps: [
      { do: "hostCalls", behaviour },
      { do: "userTurn" },
      silence(RECOVERED),
      check(0, 1),
      silence(60 * 60_000),
      check(0, 1),
      { do: "hostCalls", behaviour: "ok" },
      { do: "runEnds" },
      { do: "userTurn", text: "try again please" },
      silence(RECOVERED),
      check(1, 2),
    ],
  }
}

export const SCENARIOS: Scenario[] = [
  {
    name: "stall",
    why: "a live run silent past the budget is aborted, not before, then gets exactly one continue (none parked in its inbox first)",
    steps: [
      { do: "userTurn" },
      { do: "streamDelta" },
      silence(STALL - 3_000),
      check(0, 0),
      silence(5_000),
      check(1, 1),
      // Nothing more where the old fixed pause after the abort would have ended.
      silence(ABORT_CONTINUE_DELAY_MS),
      check(1, 1),
    ],
  },
  {
    name: "stale busy",
    why: "a session the host no longer runs (its idle was lost) gets a plain continue and no abort",
    // Discovery would find the lost idle by itself within two listings: kept out of the way here.
    options: { discoveryDelayMs: 24 * 60 * 60_000 },
    steps: [{ do: "userTurn" }, { do: "streamDelta" }, { do: "idleLost" }, silence(STALL + 2_000), check(1, 0)],
  },
  {
    name: "dead stream",
    why: "a run that never revives is aborted and continued stallEpisodeMaxContinues times and then left alone: our own sends never re-arm the budget",
    steps: [{ do: "userTurn" }, silence(60 * 60_000), check(3, 3)],
  },
  {
    name: "long tool",
    why: "a silent tool call is never interrupted; once it ends, a later silence is a stall again",
    steps: [
      { do: "userTurn" },
      { do: "toolStart", callID: "call_1", tool: "bash" },
      silence(20 * 60_000),
      check(0, 0),
      { do: "toolEnd", callID: "call_1" },
      silence(RECOVERED),
      check(1, 1),
    ],
  },
  {
    name: "long tool with heartbeats",
    why: "tool progress keeps a session alive even past the 30-minute ceiling after which a silent tool counts as wedged",
    steps: [{ do: "userTurn" }, { do: "toolStart", callID: "call_1", tool: "bash" }, ...heartbeatMinutes(40, "call_1"), check(0, 0)],
  },
  {
    name: "wedged tool",
    why: "negative control for the heartbeats: a tool silent past the 30-minute ceiling no longer shields the session",
    steps: [{ do: "userTurn" }, { do: "toolStart", callID: "call_1", tool: "bash" }, silence(29 * 60_000), check(0, 0), silence(2 * 60_000), check(1, 1)],
  },
  {
    name: "ESC",
    why: "a user stop latches the session, even when the host resumes by itself; only the user's next message lifts it",
    steps: [
      { do: "userTurn" },
      { do: "streamDelta" },
      { do: "userAbort" },
      { do: "hostRunStarts" },
      silence(20 * 60_000),
      check(0, 0, true),
      { do: "runEnds" },
      { do: "userTurn", text: "ok, carry on" },
      silence(RECOVERED),
      check(1, 1, false),
    ],
  },
  {
    name: "own abort is not ESC",
    why: "the plugin's own abort (reported like a user stop on 2.x) never latches; the continue follows it",
    options: { busyStallStrategy: "abort" },
    steps: [{ do: "userTurn" }, { do: "streamDelta" }, silence(STALL + ABORT_CONTINUE_DELAY_MS + 3_000), check(1, 1, false)],
  },
  {
    name: "healthy",
    why: "a session that keeps producing output, then finishes, is never touched",
    steps: [{ do: "userTurn" }, ...healthyMinutes(15), { do: "runEnds" }, silence(30 * 60_000), check(0, 0)],
  },
  {
    name: "awaiting user",
    why: "an open permission request holds recovery however long it waits; once answered, a silence is a stall",
    steps: [
      { do: "userTurn" },
      { do: "permissionAsked", id: "per_1" },
      silence(20 * 60_000),
      check(0, 0),
      { do: "permissionAnswered", id: "per_1" },
      silence(RECOVERED),
      check(1, 1),
    ],
  },
  {
    name: "question open",
    why: "an open question to the user (a form on 2.x) holds recovery however long it waits; once answered, a silence is a stall",
    steps: [
      { do: "userTurn" },
      { do: "questionAsked", id: "q_1" },
      silence(20 * 60_000),
      check(0, 0),
      { do: "questionAnswered", id: "q_1" },
      silence(RECOVERED),
      check(1, 1),
    ],
  },
  {
    name: "streaming failure",
    why: "a broken stream the host gave up on gets a recovery prompt within seconds",
    steps: [{ do: "userTurn" }, { do: "streamDelta" }, { do: "providerFails", failure: "stream" }, silence(10_000), check(1, 0)],
  },
  {
    name: "rate limit",
    why: "a 429 waits out its cooldown (counted once), then sends one continue",
    options: { rateLimitCooldownsMs: [120_000, 240_000] },
    steps: [{ do: "userTurn" }, { do: "streamDelta" }, { do: "providerFails", failure: "rate-limit" }, silence(110_000), check(0, 0), silence(20_000), check(1, 0)],
  },
  {
    name: "paused",
    why: "a paused session gets nothing; resumed, its stall is recovered within a check interval",
    steps: [{ do: "pause" }, { do: "userTurn" }, silence(10 * 60_000), check(0, 0), { do: "resume" }, silence(7_000 + ABORT_CONTINUE_DELAY_MS), check(1, 1)],
  },
  badHost("reject"),
  badHost("throw"),
  badHost("hang"),
]
