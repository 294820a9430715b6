/**
 * The vocabulary of the capability matrix: host-neutral steps a user, a model and the host
 * play, the effects the plugin produces (what it sends, aborts, runs, answers), and the matcher
 * that compares the two. Each host driver (v1-host.ts, v2-host.ts) turns the steps into that
 * host's own event shapes and records the plugin's calls as `Act`s.
 */

/** Which session a step concerns: the one the user works in, or its subagent. */
export type Who = "main" | "child"

/** The provider errors the fake hosts know how to report. */
export type FailKind = "stream" | "rateLimit" | "rateLimitRetryAfter" | "contextFull" | "contentFilter" | "modelGone"

export type Todo = { content: string; status: "pending" | "in_progress" | "completed" | "cancelled" }

export type Step =
  /** A genuine user message; starts a run on an idle session. `agent`/`model` as the user picked them. */
  | { do: "user"; text?: string; agent?: string; model?: string; in?: Who }
  /** Model text streamed and stored in the current assistant message. */
  | { do: "text"; text: string; in?: Who }
  | { do: "reasoning"; text: string; in?: Who }
  /** Token totals of the current assistant message (`input` feeds the context figure). */
  | { do: "tokens"; output: number; input?: number; in?: Who }
  | { do: "toolStart"; callID: string; tool: string; input?: unknown; in?: Who }
  | { do: "toolEnd"; callID: string; output?: string; error?: string; in?: Who }
  /** A call to a tool that does not exist (1.18: an `invalid` part; 2.x: a failed call). */
  | { do: "badTool"; callID: string; name: string; in?: Who }
  /** A completed todowrite call with this list. */
  | { do: "todos"; todos: Todo[]; in?: Who }
  /** The model's request ended in tool calls and the host sends the next one in the same run (a new assistant message). */
  | { do: "nextStep"; in?: Who }
  /** The run ends normally (idle); `finish` is the model's finish reason (default "stop"; "length": cut off at the output limit). */
  | { do: "end"; finish?: string; in?: Who }
  /** The user presses ESC. */
  | { do: "esc"; in?: Who }
  /** The run ends in a provider error OpenCode gave up on. */
  | { do: "fail"; error: FailKind; in?: Who }
  /**
   * The provider refuses the run's requests with this error, for `ms` (unset: for as long as
   * the run lasts), and the host runs its own retry policy on each refusal: 2.x retries after
   * 2 s doubling, four times, each proposal handed to the plugin's `retry` hook first; 1.x
   * retries a stream failure or a rate limit five times (2 s doubling, `session.status retry`)
   * and a 400 not at all. When the host stops retrying the run fails with the error; a request
   * made after the outage is answered and the run ends.
   */
  | { do: "providerDown"; error: FailKind; ms?: number; in?: Who }
  /**
   * The host ends the run for a reason of its own, not the user's (2.x
   * `session.execution.interrupted` with that reason). 1.x has no such event: there the run
   * simply ends (idle), which is what the session sees of it.
   */
  | { do: "hostStops"; reason: "inactivity" | "superseded"; in?: Who }
  /**
   * The provider refuses the prompt as too long and the host compacts the session by itself,
   * within the same run (1.18: `ContextOverflowError`, a `compaction` part, the summary message).
   */
  | { do: "overflow"; in?: Who }
  /** The host's own compaction ends and its run goes on (1.18: `session.compacted`, its synthetic continue, the next assistant message). */
  | { do: "compacted"; in?: Who }
  /** A question (1.x question.*, 2.x form.*) or a permission opens / is answered. */
  | { do: "ask"; kind: "question" | "permission"; id: string; in?: Who }
  | { do: "answer"; kind: "question" | "permission"; id: string; in?: Who }
  /** The subagent session is created with the main session as its parent. */
  | { do: "spawn" }
  /** The model calls the plugin's task_complete tool, with `evidence` when given. */
  | { do: "taskComplete"; in?: Who; evidence?: string }
  /** The user runs `/auto-resume <arg>` in the session (`goal <text>` among them). */
  | { do: "pauseCommand"; arg: "off" | "on" | "status" | "history" | `goal${string}` }
  /** `auto-resume-toggle <session> <arg>` from another process (the marker file). */
  | { do: "cliPause"; arg: "off" | "on"; all?: true }
  /** `auto-resume-toggle <session> goal <text>` from another process (the goal file). */
  | { do: "cliGoal"; text: string }
  /** The plugin is loaded a second time for the same location (reload, listed twice). */
  | { do: "secondInstance" }
  /**
   * A second OpenCode process loads the plugin on the same sessions: both instances stay live
   * (neither supersedes the other, they share no memory) and both hear every event.
   */
  | { do: "secondProcess" }
  /**
   * The host reports the end of the run the plugin aborted (1.18: MessageAbortedError and idle;
   * 2.x: `session.execution.interrupted`). Only with the knob `__abortReportedLater`, which has
   * the host answer the abort call and hold that report back until this step; otherwise the
   * host reports it as it answers.
   */
  | { do: "abortReported"; in?: Who }
  /** The host starts a run by itself, with no user message (a queued item, a child's notice). */
  | { do: "hostRun" }
  /** The host runs the session but none of its events reached the plugin (loaded mid-run). */
  | { do: "hostRunsUnseen" }
  /** Time passes with no event at all. */
  | { do: "wait"; ms: number }
  /** Time passes with model output every `every` ms (a live, healthy stream). */
  | { do: "stream"; ms: number; every?: number; in?: Who }
  /** Time passes with only heartbeats of a live run every `every` ms (status repeats), no progress. */
  | { do: "heartbeat"; ms: number; every?: number; in?: Who }

/** A step of a row's timeline; a trigger step is what the row is about (see `control`). */
export type TimelineStep = Step | { trigger: Step[]; instead?: Step[] }

export function trigger(...steps: Step[]): TimelineStep {
  return { trigger: steps }
}

/** A trigger whose control replaces it with `instead` (the same time spent without the trigger). */
export function triggerOr(steps: Step[], instead: Step[]): TimelineStep {
  return { trigger: steps, instead }
}

/** The timeline with its triggers (`control: false`) or without them (`control: true`). */
export function timeline(steps: readonly TimelineStep[], control: boolean): Step[] {
  return steps.flatMap((s) => ("trigger" in s ? (control ? (s.instead ?? []) : s.trigger) : [s]))
}

/** What the plugin did, as either host driver records it. */
export type Act =
  | { act: "send"; in: Who; kind: string; text: string; agent?: string; model?: string }
  | { act: "abort"; in: Who }
  | { act: "command"; in: Who; name: string }
  | { act: "compact"; in: Who }
  /** The task_complete tool's answer to the model; `ok: false` is a refusal the model reads as a failure. */
  | { act: "toolAnswer"; ok: boolean; text: string }
  /** The answer to `/auto-resume` (a local reply turn, a toast, or the command's own result). */
  | { act: "reply"; in?: string; text: string }
  /** The plugin changed a retry the host proposed (2.x `retry` hook): no retry, or this delay instead. */
  | { act: "hostRetry"; in: Who; retry: boolean; delayMs?: number }
  /** The host refused a send of ours because its message id was taken (2.x ConflictError): it did not land again. */
  | { act: "duplicate"; in: Who; kind: string }

/** One expected act; unset fields are not compared. */
export type Expect =
  /** `agent`/`model`: null means the send must not name one (the host keeps the session's). */
  | { act: "send"; in?: Who; kind?: "continue" | "correction" | "switchModel"; text?: RegExp; agent?: string | null; model?: string | null }
  | { act: "abort"; in?: Who }
  | { act: "command"; name: string; in?: Who }
  | { act: "compact"; in?: Who }
  /** `ok` unset: only the text the model reads is compared (1.x returns a refusal as plain output). */
  | { act: "toolAnswer"; ok?: boolean; text?: RegExp }
  | { act: "reply"; text?: RegExp }
  | { act: "hostRetry"; in?: Who; retry?: boolean; delayMs?: number }
  | { act: "duplicate"; in?: Who; kind?: "continue" | "correction" }

export function matches(expect: Expect, act: Act): boolean {
  if (expect.act !== act.act) return false
  for (const [key, want] of Object.entries(expect)) {
    if (key === "act" || want === undefined) continue
    const got = (act as Record<string, unknown>)[key]
    if (key === "in" && got === undefined && want === "main") continue
    if (want === null) {
      if (got !== undefined) return false
    } else if (want instanceof RegExp) {
      if (typeof got !== "string" || !want.test(got)) return false
    } else if (got !== want) return false
  }
  return true
}

/** True when the acts are exactly the expected ones, in order. */
export function sameEffect(expected: readonly Expect[], acts: readonly Act[]): boolean {
  return expected.length === acts.length && expected.every((e, i) => matches(e, acts[i]!))
}

/** The host's subagent tool, whatever it is called there (1.x `task`, 2.x `subagent`). */
export const SUBAGENT_TOOL = "<subagent>"

export const USER_AGENT = "build"
export const USER_MODEL = "openai/gpt-x"
