/**
 * The option table: every plugin option, described once. The schema, the `Options` type, the
 * defaults, the README table and the JSON schema are all derived from it (schema.ts), so adding
 * an option means adding one entry here and nothing else.
 */
import { z } from "zod"
import { count, flag, ms, optional, stringList, text, withDefault, type OptionInfo } from "./spec-builders.ts"

export const TUNABLE_SPECS = {
  chunkTimeoutMs: withDefault(ms("positive"), 180_000, {
    description: "How long a busy session may go without any event before it counts as stalled.",
    defaultText: "180000 (fast) / 600000 (slow)",
  }),
  gracePeriodMs: withDefault(ms("zeroOk"), 3_000, {
    description:
      "Extra wait once a stall is noticed, so late cancel or status events can land before anything is done.",
    defaultText: "3000 (fast) / 60000 (slow)",
  }),
  progressCeilingMs: optional(ms("zeroOk"), {
    description:
      "How long a busy session with no tool open may go on sending events without any progress (new text or reasoning, a tool state change, a step, token growth) before it counts as stalled, however alive its heartbeats keep it. 0 turns the ceiling off.",
    defaultText: "unset: three stall budgets, 3 x (chunkTimeoutMs + gracePeriodMs)",
  }),
  checkIntervalMs: withDefault(ms("positive"), 5_000, {
    description: "How often the watchdog looks over the sessions it tracks.",
    scope: "process",
  }),
  stallEpisodeMaxContinues: withDefault(count(), 3, {
    description:
      "Continues allowed within one stall episode before giving up; the count starts over when the model produces output.",
    defaultText: "3 (fast) / 5 (slow)",
  }),
  maxRetries: optional(count(), {
    description:
      "Old name that bounded four things at once: sets stallEpisodeMaxContinues, streamingFailureMaxPrompts, finishedTurnMaxNudges and taskCompleteMaxRefusals, each of them that is not set itself.",
    hostNote: "v1 configs may still call it maxRecoveryRetries; that name is read as an alias.",
    aliasOf: ["stallEpisodeMaxContinues", "streamingFailureMaxPrompts", "finishedTurnMaxNudges", "taskCompleteMaxRefusals"],
    defaultText: "unset (see the four options it sets)",
  }),
  maxRecoveryRetries: optional(count(), {
    description: "Old name of maxRetries, read only when maxRetries itself is absent.",
    hostNote:
      "On v1 this was a separate budget for streaming-failure retries (default 2); here it only feeds maxRetries.",
    aliasOf: "maxRetries",
    defaultText: "unset (see maxRetries)",
  }),
  baseBackoffMs: withDefault(ms("zeroOk"), 1_000, {
    description: "Delay before the first retry; every further retry doubles it.",
  }),
  maxBackoffMs: withDefault(ms("zeroOk"), 8_000, {
    description: "Ceiling for the doubling retry delay.",
  }),
  subagentWaitMs: withDefault(ms("positive"), 15_000, {
    description:
      "How long a parent left busy after its subagents finished is given before it is treated as stuck.",
  }),
  subagentDeadMs: withDefault(ms("positive"), 1_800_000, {
    description:
      "A subagent quiet for longer than this with no error to explain it is treated as dead; a quieter-than-usual child inside it is waited on.",
    hostNote: "Added with the v2 build; v1 configs never set it.",
  }),
  loopMaxContinues: withDefault(count(), 3, {
    description:
      "Continues inside loopWindowMs that mark the session as looping and switch recovery to abort-then-continue.",
  }),
  loopWindowMs: withDefault(ms("positive"), 600_000, {
    description: "Sliding window over which loopMaxContinues is counted.",
  }),
  lifetimeMaxContinues: withDefault(count(), 9, {
    description:
      "Stall continues allowed until the user speaks again; model output does not reset it, so a model stuck saying 'done' is eventually left alone.",
    defaultText: "9 (fast) / 20 (slow)",
  }),
  streamingFailureErrorNames: withDefault(
    stringList(),
    ["ProviderError", "APIError", "StreamError", "ConnectionError", "TimeoutError", "provider.transport", "provider.internal", "provider.invalid-output", "provider.unknown"],
    {
      description:
        "Error names (1.x) or error types (2.x), compared exactly and case-sensitively, that mark a provider error as a broken stream.",
      hostNote:
        "v2 errors carry a type instead of a name (provider.transport, provider.internal, ...); list 2.x types here. Rate limits, quota, content filter and auth errors are never streaming failures.",
      list: "strings",
    },
  ),
  streamingFailureMessagePatterns: withDefault(
    stringList(),
    ["streaming response failed", "stream.*fail", "connection.*reset", "connection.*closed"],
    {
      description:
        "Case-insensitive regular expressions tried against error messages to spot a broken stream; an entry that does not compile is matched as plain text.",
      list: "strings",
    },
  ),
  streamingFailureMaxPrompts: withDefault(count(), 3, {
    description:
      "Recovery prompts one streaming-failure incident may get before abort + resume, then giving up; the count starts over when the model produces output.",
    defaultText: "3 (fast) / 5 (slow)",
  }),
  streamingFailureWatchdogMs: withDefault(ms("zeroOk"), 3_000, {
    description:
      "How long a streaming-failure recovery prompt, once taken and shown in the session, has to make the session busy again before the next step (never less than 1000).",
    defaultText: "3000, or toolTextCheckDelayMs when only that is set",
  }),
  toolTextCheckDelayMs: withDefault(ms("zeroOk"), 3_000, {
    description:
      "Pause after a turn ends before its closing text is judged by the text-based detectors (0 judges at once). Also sets streamingFailureWatchdogMs when that is not set itself.",
    hostNote: "On v2 a dead stream is caught on the idle event itself; only the text checks wait for this delay.",
    alsoSets: ["streamingFailureWatchdogMs"],
  }),
  finishedTurnMaxNudges: withDefault(count(), 3, {
    description:
      "Nudges of each kind (printed tool call, dead stream, cut-off answer, done claim, todo reminder, ready, action intent) a session's finished turns may get; the count starts over when the user writes (most kinds also when a later turn makes real tool calls).",
    defaultText: "3 (fast) / 5 (slow)",
  }),
  taskCompleteMaxRefusals: withDefault(count(), 3, {
    description:
      "task_complete calls refused while todos are open before one is accepted anyway; the count starts over when the user writes.",
    defaultText: "3 (fast) / 5 (slow)",
  }),
  minActivityGapMs: withDefault(ms("zeroOk"), 1_000, {
    description: "Recovery is skipped when the session showed activity this recently.",
  }),
  warmupMs: withDefault(ms("zeroOk"), 15_000, {
    description: "Sessions younger than this are not checked for announced-but-untaken actions.",
  }),
  discoveryDelayMs: withDefault(ms("zeroOk"), 5_000, {
    description: "Wait after the plugin loads before its first scan for sessions that already exist.",
    scope: "process",
  }),
  debug: withDefault(flag(), false, {
    description: "Add debug-level lines to the plugin's log (the host log on v1, the log file on v2); nothing is ever printed to the console.",
    scope: "process",
    env: "AUTO_RESUME_DEBUG",
  }),
  resumeOnActionIntent: withDefault(flag(), true, {
    description: "Nudge the model when a turn ends on a line ending in a colon, i.e. it announced a step but stopped.",
  }),
  continuePrompt: optional(text(), {
    description:
      "Text sent to resume a stalled, failed or silently ended turn, used word for word; unset uses the built-in prompt.",
    defaultText: "built-in prompt",
  }),
  actionIntentPrompt: optional(text(), {
    description: "Text sent when a turn announced an action and stopped; unset falls back to continuePrompt, then the built-in text.",
    defaultText: "continuePrompt, else built-in",
  }),
  toolTextRecoveryPrompt: optional(text(), {
    description: "Text sent when the model wrote a tool call out as plain text instead of making it.",
    defaultText: "built-in prompt",
  }),
  thinkingToolRecoveryPrompt: optional(text(), {
    description: "Text sent when a tool call was left inside the model's reasoning instead of being made.",
    defaultText: "built-in prompt",
  }),
  doneWithoutWorkPrompt: optional(text(), {
    description: "Text sent when the model says it is finished while its todo list still has open items.",
    hostNote: "Needs a todo tool; v2 has none built in, so it comes from a plugin that records todowrite calls.",
    defaultText: "built-in prompt",
  }),
  doneWithoutDetailsPrompt: optional(text(), {
    description: "Text sent when the model says it is finished without describing what it did, asking for a concrete report.",
    defaultText: "built-in prompt",
  }),
  doneClaimPatterns: optional(stringList(), {
    description:
      "Regular expressions (case-insensitive, multi-line) replacing the built-in 'I am finished' detection; invalid entries are skipped and an empty list keeps the built-in set.",
    list: "regex",
    defaultText: "built-in patterns",
  }),
  readyToContinuePatterns: optional(stringList(), {
    description:
      "Regular expressions (case-insensitive) replacing the built-in detection of 'ready to go on' replies, which get an automatic continue; invalid entries are skipped and an empty list keeps the built-in set.",
    list: "regex",
    defaultText: "built-in patterns",
  }),
  silentDeadStreamMinTokens: withDefault(count(), 200, {
    description:
      "Output tokens a finished turn with neither text nor tool calls must have spent before it counts as a stream that died silently.",
  }),
  busyStallStrategy: withDefault(
    z.enum(["continue", "abort", "off"], { error: 'expected "continue", "abort" or "off"' }),
    "continue",
    {
      description:
        "Reaction to a session that stays busy but silent: 'continue' asks OpenCode whether the run is still live, aborts a live run first and then sends one continue, and only prompts a session OpenCode no longer runs (or one it gave no answer about); 'abort' aborts first without asking; 'off' leaves it alone.",
    },
  ),
  contextSaturationThreshold: withDefault(
    z
      .number({ error: "expected a number between 0 and 1" })
      .gt(0, "must be greater than 0")
      .max(1, "must be at most 1"),
    0.85,
    {
      description:
        "Share of the usable context window (above 0, up to 1) at which a session is routed to context reclamation.",
    },
  ),
  activeUserWindowMs: withDefault(ms("zeroOk"), 300_000, {
    description: "After the user's last message, nudges for a model that stopped by choice (todo reminder, done claim, ready, action intent) hold off this long, since the user may be about to answer; malfunction recoveries do not wait.",
    hostNote: "The v1 plugin used a shorter default; five minutes applies on both hosts here.",
  }),
  stopPatterns: withDefault(stringList(), [], {
    description:
      "Regular expressions (multi-line); when the newest assistant text matches one, the session is treated as waiting for the user and idle nudges stay quiet. Invalid entries are skipped.",
    list: "regex",
  }),
  subagentNativeCompactionEnabled: withDefault(flag(), false, {
    description: "Allow asking the host to summarise a subagent session whose context is nearly full.",
  }),
  injectIntervalMs: withDefault(ms("zeroOk"), 5_000, {
    description: "Least time between two recovery messages sent to the same session.",
    hostNote: "Both hosts; the spacing is shared by every instance in the process.",
  }),
  visibleContinue: withDefault(flag(), true, {
    description:
      "Send stall continues as an ordinary user message shown in the history rather than through the hidden resume channel. The option beats AUTO_RESUME_VISIBLE_CONTINUE, which beats the default.",
    hostNote: "v1: false sends the continue as hidden (synthetic) text; v2: false uses session.synthetic({ resume: true }).",
    env: "AUTO_RESUME_VISIBLE_CONTINUE",
  }),
  richContinuePrompt: withDefault(flag(), true, {
    description:
      "Make the built-in stall continue state the stall reason, attempt count and open todos instead of a bare 'continue'; a custom continuePrompt always wins.",
    hostNote: "v1 sent the bare word 'continue'.",
  }),
  rateLimitCooldownsMs: withDefault(
    z
      .array(ms("zeroOk"), { error: "expected a list of millisecond values" })
      .min(1, "must list at least one cooldown"),
    [900_000, 1_800_000, 3_600_000, 7_200_000, 7_200_000, 7_200_000, 7_200_000, 7_200_000],
    {
      description:
        "Wait imposed after each successive rate-limit hit before the session may be retried; past the last entry it stays quiet until the user speaks. Rate-limit hits do not use up stallEpisodeMaxContinues or streamingFailureMaxPrompts.",
    },
  ),
  fallbackModels: withDefault(stringList(), [], {
    description:
      "Models (\"provider/model\", in order) a session goes on with when its own is rate limited, out of quota or down for longer than a stall budget; each is tried once per episode, and your next message goes back to your model. Empty: off.",
    list: "models",
    hostNote: "v1: the continue carries the model; v2: session.switchModel (a host without it keeps the usual wait).",
  }),
  sendTimeoutMs: withDefault(ms("positive"), 30_000, {
    description: "Longest a single recovery send may take before it is treated as failed.",
  }),
  stuckToolAgeMs: withDefault(ms("positive"), 60_000, {
    description:
      "A tool call still without a result after this long is reported as stuck (log and status); it is still never interrupted before the 30-minute wedge ceiling.",
    hostNote: "Added with the v2 build.",
  }),
  neverInterruptTools: withDefault(stringList(), ["compress"], {
    description:
      "Tool names (any case) that busy-stall recovery leaves running while they are younger than the 30-minute wedge ceiling.",
    list: "strings",
    hostNote: "Added with the v2 build.",
  }),
  shareWatchState: withDefault(flag(), false, {
    description: "Keep session watch state in a process-wide store so it survives the plugin being set up again.",
    scope: "process",
    hostNote: "Both hosts: on v1 per directory, on v2 per location (directory and workspace).",
  }),
  registryScope: optional(text(), {
    description: "Which process-wide store slot to use; meant for tests, production leaves it unset.",
    scope: "process",
    hostNote: "Both hosts.",
    defaultText: "unset (process-wide slot)",
  }),
  quietCorrections: withDefault(flag(), true, {
    description:
      "Send correction nudges (unknown tool, stuck tool, pattern fixes) through the hidden channel; stall continues stay visible regardless.",
    hostNote: "v1: hidden means synthetic text the terminal UI does not show; v2: session.synthetic, falling back to session.prompt.",
  }),
}

export const PROFILE_SECTION_INFO = {
  defaultFast: {
    description: "Overrides for sessions on online (fast profile) providers.",
  },
  defaultSlow: {
    description: "Overrides for sessions on local (slow profile) providers.",
  },
  modelProfiles: {
    description:
      "Overrides per provider name (matched in any case), applied over defaultFast/defaultSlow.",
  },
} satisfies Record<string, OptionInfo>
