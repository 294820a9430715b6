/**
 * The capability matrix: one row per recovery path, safety rail and control the README
 * describes, each run on both hosts through the default export (matrix.test.ts).
 *
 * A row is a host-neutral timeline, the acts it must produce, and its control: the same
 * timeline with the `trigger` steps taken out (or replaced by their `instead`), which must
 * produce `controlEffect` (nothing, unless said otherwise). For a recovery the trigger is
 * what causes it and the control gets nothing; for a safety rail the trigger is the rail, so
 * the row gets nothing and the control shows the recovery the rail held back.
 *
 * `pending`: the expected effect is the correct one, and the current code does not produce
 * it on that host yet (another change is on its way); the runner runs that (row, host) as
 * `test.failing`, so it turns red the day the fix lands and the mark must be removed.
 * `inert`: the row cannot act on that host by design; the name must be listed in that host's
 * `accepted-but-inert=` (src/options/inert.ts) and in the README, and the row must produce
 * nothing there.
 */
import type { HostName } from "./host-common.ts"
import { SUBAGENT_TOOL, trigger, triggerOr, type Expect, type Step, type TimelineStep, type Todo } from "./steps.ts"

export type Row = {
  id: string
  why: string
  /**
   * Plugin options, plus two knobs of the fake hosts (never passed to the plugin):
   * `__magicContext` lists magic-context among the loaded plugins, `__modelHangsAfterPrompt`
   * makes the model hang on the plugin's prompts as well instead of answering them,
   * `__modelFailsAfterPrompt` makes the provider fail them (a dead endpoint),
   * `__modelWorksAfterPrompt` makes the model answer them with a real tool call and a new
   * report each time (instead of a bare "On it."), `__abortReportedLater` has the host answer
   * the plugin's abort and report the run's end only at an `abortReported` step, `__subscribeForm`
   * plays a 2.x build whose `event.subscribe` takes the types array ("types") or ignores the
   * filter ("unfiltered"; 1.x has no subscription and ignores it).
   */
  options?: Record<string, unknown>
  steps: TimelineStep[]
  effect: Expect[]
  /** The acts of one host when they differ by design (2.x keeps the model per session). */
  effectOn?: Partial<Record<HostName, Expect[]>>
  controlEffect?: Expect[]
  controlEffectOn?: Partial<Record<HostName, Expect[]>>
  pending?: Partial<Record<HostName, string>>
  inert?: Partial<Record<HostName, string>>
  /** End-to-end tests on the real 1.18.33 host that prove the same row. */
  e2e?: { file: string; test: string }[]
}

// ---- building blocks ------------------------------------------------------------------------

const STALL = 190_000 // chunkTimeoutMs + gracePeriodMs (183 s) and a little
/** Longer than activeUserWindowMs (5 min): the model worked a while before it stopped. */
const LONG_WORK: Step = { do: "stream", ms: 330_000, every: 15_000 }
const SETTLE: Step = { do: "wait", ms: 10_000 }
const OPEN: Todo[] = [
  { content: "Write the migration", status: "completed" },
  { content: "Add the rollback test", status: "pending" },
]
const CLOSED: Todo[] = OPEN.map((t) => ({ ...t, status: "completed" }))

/** A model caught in a loop: one sentence again and again, past a KB (the detector's look). */
const REPEATING = "I need to verify the session table before I change it. ".repeat(24)
/** The control: as long and as regular, but every row differs. */
const SIMILAR_ROWS = Array.from({ length: 40 }, (_, i) => `| ${i} | option-${i} | default | enabled |`).join("\n") + "\n"

const user = (extra: Partial<Extract<Step, { do: "user" }>> = {}): Step => ({ do: "user", ...extra })
const say = (text: string, extra: Partial<Extract<Step, { do: "text" }>> = {}): Step => ({ do: "text", text, ...extra })
const end: Step = { do: "end" }
const todos = (list: Todo[]): Step => ({ do: "todos", todos: list })
const call = (callID: string, tool: string, input: unknown = {}): Step[] => [
  { do: "toolStart", callID, tool, input },
  { do: "toolEnd", callID, output: "ok" },
]
/** A call that fails with the host's error text. */
const failed = (callID: string, tool: string, input: unknown, error: string): Step[] => [
  { do: "toolStart", callID, tool, input },
  { do: "toolEnd", callID, error },
]
const missing = (n: number): Step[] => failed(`r${n}`, "read", { filePath: `src/missing-${n}.ts` }, `File not found: src/missing-${n}.ts`)
/** 1.18's words for a call whose permission the user rejected (RejectedError). */
const DENIED = "The user rejected permission to use this specific tool call."
const FAILING_READ = /`read` has failed 3 times in a row; last error: "File not found: src\/missing-3\.ts"\. List the folder/

/** A hang: silence for a stall budget; its control keeps the stream alive for the same time. */
const hang = (ms = STALL): TimelineStep => triggerOr([{ do: "wait", ms }], [{ do: "stream", ms }])

/**
 * The stall recovery with `busyStallStrategy: "abort"`: the rails are shown against it, so
 * their controls expect the same acts before and after the live-hang change (issue 13), which
 * turns the default strategy's first rung into abort-then-continue for a live run as well.
 */
const ABORT_FIRST = { busyStallStrategy: "abort" }
const ABORTED_AND_CONTINUED: Expect[] = [
  { act: "abort" },
  { act: "send", kind: "continue", text: /^continue — auto-resume: /m },
]
/**
 * What 1.x tells the user at once, as a toast (2.x has no toast API: its history and status say
 * it): the plugin gave up on the session, a fallback model took over, or a recovery is held
 * while the session waits on the user's answer. Never an ordinary recovery.
 */
const toldGaveUp = (why: RegExp): Expect => ({ act: "toast", text: new RegExp(`^auto-resume gave up on session ses_matrix_main \\(.*${why.source}.*\\)\\. Nothing more is sent until you write\\.$`) })
const TOLD_FALLBACK: Expect = { act: "toast", text: /^auto-resume switched session ses_matrix_main to anthropic\/claude-y \(.+\)\. It goes back to your own model once that model's wait is over, or as soon as you write\.$/ }
const TOLD_WAITS: Expect = { act: "toast", text: /^Session ses_matrix_main waits for your answer \(a question or permission is open\): auto-resume holds its continue until you answer\.$/ }

/**
 * fallback-return-to-model's acts: the switch to anthropic/claude-y, then the stall's abort and
 * continue, which runs on `stallModel` (1.x names it on the continue and toasts the switch; 2.x
 * switches the session's model before each prompt and back to the user's at the run's idle).
 */
function switchThenStall(host: "neutral" | "v1" | "v2", stallModel: "openai/gpt-x" | "anthropic/claude-y"): Expect[] {
  const switchTo = (model: string) => {
    const [provider, id] = model.split("/")
    return { act: "send", kind: "switchModel", text: new RegExp(`"providerID":"${provider}","id":"${id}"`) } as const
  }
  const takesOver = /so anthropic\/claude-y takes over/
  if (host === "v2") {
    return [
      switchTo("anthropic/claude-y"),
      { act: "send", kind: "continue", text: takesOver },
      switchTo("openai/gpt-x"),
      { act: "abort" },
      switchTo(stallModel),
      { act: "send", kind: "continue", text: /stream stalled/ },
      switchTo("openai/gpt-x"),
    ]
  }
  return [
    { act: "send", kind: "continue", text: takesOver, model: "anthropic/claude-y" },
    ...(host === "v1" ? [TOLD_FALLBACK] : []),
    { act: "abort" },
    { act: "send", kind: "continue", text: /stream stalled/, model: stallModel },
  ]
}
/** A dead endpoint's failure chain: recovery 1/3, 2/3, abort + resume 3/3 (the error is APIError on 1.x, the type provider.transport on 2.x). */
const FAILURE_CHAIN: Expect[] = [
  { act: "send", kind: "continue", text: /\((?:APIError|provider\.transport), recovery 1\/3\)\.\nAttempt 1\/3 at [^;\n]+; continue #1 since/ },
  { act: "send", kind: "continue", text: /\((?:APIError|provider\.transport), recovery 2\/3\)\.\nAttempt 2\/3 at [^;\n]+; continue #2 since/ },
  { act: "abort" },
  { act: "send", kind: "continue", text: /\((?:APIError|provider\.transport), recovery 3\/3\) and earlier recovery prompts did not restart the turn\.\nAttempt 3\/3 at [^;\n]+; continue #3 since/ },
]
const REMINDER = /Your todo list still has 1 open item:[\s\S]*Add the rollback test/
const OPEN_TODO_NAMED = /todo list still has open items[\s\S]*Add the rollback test/

const E2E = {
  stall: "test/e2e/stall.e2e.test.ts",
  judge: "test/e2e/judge.e2e.test.ts",
  failures: "test/e2e/failures.e2e.test.ts",
  pause: "test/e2e/pause.e2e.test.ts",
  visibility: "test/e2e/visibility.e2e.test.ts",
  fallback: "test/e2e/fallback.e2e.test.ts",
  cutOff: "test/e2e/cut-off.e2e.test.ts",
  context: "test/e2e/context.e2e.test.ts",
  goal: "test/e2e/goal.e2e.test.ts",
  undo: "test/e2e/undo.e2e.test.ts",
  toasts: "test/e2e/toasts.e2e.test.ts",
  failingTools: "test/e2e/failing-tools.e2e.test.ts",
  unattended: "test/e2e/unattended.e2e.test.ts",
}

// -- unattended hours
/** The watchdog looks once a minute, not every 5 s: an hour of fake time is played in a few hundred looks, not thousands. */
const HOURLY = { ...ABORT_FIRST, checkIntervalMs: 60_000 }
const UNATTENDED = { ...HOURLY, unattendedMaxMs: 3_600_000 }
/** An hour and more of healthy work, with no word from the user. */
const UNATTENDED_WORK: Step = { do: "stream", ms: 3_700_000, every: 60_000 }
/** A hang the once-a-minute watchdog sees: past the stall budget and its next look. */
const UNATTENDED_HANG: Step = { do: "wait", ms: STALL + 60_000 }
const STATUS: Step = { do: "pauseCommand", arg: "status" }
const UNATTENDED_HELD = /Held: unattended for 1h 0m 0s since the user's last message \(unattendedMaxMs\): no continues until the user writes/

// -- goal mode
const GOAL: Step = { do: "pauseCommand", arg: "goal make the parser tests pass" }
const GOAL_SET: Expect = { act: "reply", text: /goal set for this session: "make the parser tests pass"/ }
/** The n-th continue of the goal (a visible continue restating the goal). */
const goalContinue = (n: number, of = 25, more = ""): Expect => ({
  act: "send",
  kind: "continue",
  text: new RegExp(`^auto-resume goal \\(continue ${n} of at most ${of}\\): keep working until this goal is met: "make the parser tests pass"${more}`),
})
/** A turn of real work that ends on neither a claim nor a question. */
const WORKED = "The tokenizer splits on brackets now; four parser cases still fail on trailing commas."

// ---- the rows -------------------------------------------------------------------------------

export const ROWS: Row[] = [
  // -- a stream that goes silent
  {
    id: "stall",
    why: "a live run silent for chunkTimeoutMs + gracePeriodMs is aborted first, then continued once (a prompt into a live run would only wait in its inbox)",
    steps: [user(), say("Looking at the code "), hang()],
    effect: ABORTED_AND_CONTINUED,
    e2e: [
      { file: E2E.stall, test: "(a) a stream that hangs mid-answer is recovered and the turn completes" },
      { file: E2E.stall, test: "(d) a healthy session gets nothing from the plugin" },
    ],
  },
  {
    id: "stall-abort-strategy",
    why: "busyStallStrategy abort: the silent run is aborted and continued",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), hang()],
    effect: ABORTED_AND_CONTINUED,
  },
  {
    id: "tool-phase",
    why: "an open tool call is never a stall: the same silence with a build running gets nothing",
    options: ABORT_FIRST,
    steps: [user(), say("Building "), trigger({ do: "toolStart", callID: "call_build", tool: "bash", input: { command: "make" } }), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
    e2e: [{ file: E2E.stall, test: "(b) a bash tool running longer than the stall budget is not interrupted" }],
  },
  {
    id: "tool-success-failed",
    why: "a tool call that ended (2.x session.tool.success, session.tool.failed) is no longer open: the silence after two such calls is a stall on the ordinary budget, where two calls left open keep the long tool budget",
    options: ABORT_FIRST,
    steps: [
      user(),
      say("Building "),
      { do: "toolStart", callID: "call_ok", tool: "bash", input: { command: "make" } },
      { do: "toolStart", callID: "call_bad", tool: "bash", input: { command: "make test" } },
      trigger({ do: "toolEnd", callID: "call_ok", output: "built" }, { do: "toolEnd", callID: "call_bad", error: "exit status 2" }),
      { do: "wait", ms: STALL },
    ],
    effect: ABORTED_AND_CONTINUED,
    controlEffect: [],
  },
  {
    id: "progress-ceiling",
    why: "a live run whose events keep coming with no progress (busy status repeats) for progressCeilingMs (three stall budgets) is a stall: aborted first, then continued once",
    steps: [user(), say("Looking at the code "), triggerOr([{ do: "heartbeat", ms: 570_000, every: 15_000 }], [{ do: "stream", ms: 570_000, every: 15_000 }]), SETTLE],
    effect: ABORTED_AND_CONTINUED,
  },
  // -- a finished turn that is not really finished
  {
    id: "tool-text",
    why: "a tool call printed as text gets the tool-text correction, even right after the user's message",
    steps: [user(), triggerOr([say('<function=bash>{"command": "ls"}</function>')], [say("Let me look at the files.")]), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: /wrote a tool call out as text/ }],
    e2e: [
      { file: E2E.judge, test: "a tool call printed as text gets the tool-text prompt, and the next turn makes the real call" },
      { file: E2E.judge, test: "control: the same call shown inside a fenced code block is not a printed call" },
    ],
  },
  {
    id: "thinking-tool",
    why: "a tool call left in the reasoning gets the thinking-tool correction",
    steps: [user(), triggerOr([{ do: "reasoning", text: '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' }], [{ do: "reasoning", text: "I should list the files next." }]), say("I will look at the files."), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: /reasoning contains a tool call/ }],
  },
  {
    id: "dead-stream",
    why: "a turn with no text and no tool call that spent silentDeadStreamMinTokens gets the dead-stream continue",
    steps: [user(), { do: "reasoning", text: "The user wants a summary." }, triggerOr([{ do: "tokens", output: 300 }], [{ do: "tokens", output: 50 }]), end, SETTLE],
    effect: [{ act: "send", kind: "continue", text: /ended without any visible text or tool call/ }],
    e2e: [
      { file: E2E.judge, test: "a reasoning-only answer with 300 output tokens gets the dead-stream prompt" },
      { file: E2E.judge, test: "control: a short reasoning-only answer (50 tokens, under silentDeadStreamMinTokens) gets nothing" },
    ],
  },
  {
    id: "cut-off",
    why: "an answer cut off at the output limit (finish length) gets one continue saying so, even right after the user's message; the same answer ending with finish stop gets nothing",
    steps: [user(), say("Here is the first half of the guide. Step 1: back up the database. Step 2: run"), triggerOr([{ do: "end", finish: "length" }], [end]), SETTLE],
    effect: [{ act: "send", kind: "continue", text: /cut off because it reached the output limit/ }],
    e2e: [
      { file: E2E.cutOff, test: "a text answer ended by finish length gets one continue saying it was cut off" },
      { file: E2E.cutOff, test: "control: the same answer ended by finish stop gets nothing" },
    ],
  },
  {
    id: "done-claim-open-todos",
    why: "a completion claim while a todo is open gets the reminder naming the open item",
    steps: [user(), todos(OPEN), LONG_WORK, triggerOr([say("All done.")], [say("The migration reads the old table in batches of 500.")]), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: OPEN_TODO_NAMED }],
    // Without the claim the turn still stops with a todo open: the plain open-todo reminder.
    controlEffect: [{ act: "send", kind: "correction", text: REMINDER }],
  },
  {
    id: "done-claim-no-details",
    why: "a bare 'done' with nothing open gets a request for a concrete report",
    steps: [user(), LONG_WORK, triggerOr([say("All done.")], [say("I changed src/db.ts to add the index and ran the tests, which passed.")]), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: /concrete report/ }],
  },
  {
    id: "celebration",
    why: "🎉 while a todo is open gets the reminder naming each open item",
    // The trigger is the open todo: every turn that stops with one gets a reminder, and 🎉 with
    // every todo closed is a real stop (the control).
    steps: [user(), triggerOr([todos(OPEN)], [todos(CLOSED)]), LONG_WORK, say("All tests pass! 🎉"), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: REMINDER }],
    e2e: [{ file: E2E.judge, test: "todowrite with open items, then 'All done! 🎉': the reminder names every open item" }],
  },
  {
    id: "celebration-all-closed",
    why: "🎉 with every todo closed is a real stop: nothing is sent, and the latch holds a later run's hang until the user writes",
    options: ABORT_FIRST,
    steps: [user(), todos(CLOSED), LONG_WORK, triggerOr([say("Finished! 🎉")], [say("The migration reads the old table in batches of 500.")]), end, SETTLE, { do: "hostRun" }, say("Resuming "), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
    e2e: [{ file: E2E.judge, test: "control: the same 🎉 with every todo completed latches completion and sends nothing" }],
  },
  {
    id: "stop-statement",
    why: "a stop statement while a todo is open gets the reminder",
    steps: [user(), triggerOr([todos(OPEN)], [todos(CLOSED)]), LONG_WORK, say("The migration is written. Stopping here."), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: REMINDER }],
  },
  {
    id: "ready-to-continue",
    why: "'ready to continue' and stopping gets a plain continue",
    steps: [user(), todos(OPEN), LONG_WORK, triggerOr([say("The migration is written. Ready to continue with the next step.")], [say("The migration reads the old table in batches of 500.")]), end, SETTLE],
    effect: [{ act: "send", kind: "continue", text: /^continue$/ }],
    // Without it the turn just stops with a todo open: the open-todo reminder instead.
    controlEffect: [{ act: "send", kind: "correction", text: REMINDER }],
    e2e: [{ file: E2E.judge, test: "'ready to continue' and a stop gets a plain continue, and the model carries on" }],
  },
  {
    id: "open-todos-stop",
    why: "a turn that simply stops with a todo open gets the reminder naming it",
    steps: [user(), triggerOr([todos(OPEN)], [todos(CLOSED)]), LONG_WORK, say("The bug is in the tokenizer: it drops the last quote."), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: REMINDER }],
    e2e: [{ file: E2E.judge, test: "todowrite with open items, then a plain stop: the open-todo reminder names them (issue 18)" }],
  },
  {
    id: "action-intent",
    why: "a closing line ending in ':' announces an action the turn never took: a continue",
    steps: [user(), LONG_WORK, triggerOr([say("Now I will run the test suite:")], [say("I ran the test suite.")]), end, SETTLE],
    effect: [{ act: "send", kind: "continue", text: /^continue$/ }],
  },
  {
    id: "task-complete-open-todos",
    why: "task_complete is refused, as a readable tool failure, while a todo is open",
    steps: [user(), trigger(todos(OPEN)), { do: "taskComplete" }],
    effect: [{ act: "toolAnswer", text: /^task_complete refused: 1 todo item is still open/ }],
    controlEffect: [{ act: "toolAnswer", ok: true, text: /^Completion recorded/ }],
  },
  {
    id: "task-complete-repeated",
    why: "a model that keeps calling task_complete gets an acknowledgement, then a warning, then an error",
    steps: [user(), { do: "taskComplete" }, trigger({ do: "taskComplete" }, { do: "taskComplete" })],
    effect: [
      { act: "toolAnswer", ok: true, text: /^Completion recorded/ },
      { act: "toolAnswer", ok: true, text: /already recorded/ },
      { act: "toolAnswer", text: /^task_complete rejected/ },
    ],
    controlEffect: [{ act: "toolAnswer", ok: true, text: /^Completion recorded/ }],
  },
  {
    id: "task-complete-subagent",
    why: "a subagent's task_complete is not refused for open todos",
    steps: [user(), { do: "spawn" }, user({ in: "child" }), todos(OPEN), { do: "todos", todos: OPEN, in: "child" }, triggerOr([{ do: "taskComplete", in: "child" }], [{ do: "taskComplete" }])],
    effect: [{ act: "toolAnswer", ok: true, text: /^Completion recorded/ }],
    controlEffect: [{ act: "toolAnswer", text: /^task_complete refused/ }],
  },
  // -- hand-offs to the user
  {
    id: "question-hand-off",
    why: "an open question holds recovery: the session is waiting on the user, not stalled (1.x tells the user so in a toast)",
    options: ABORT_FIRST,
    steps: [user(), say("I need a decision. "), trigger({ do: "ask", kind: "question", id: "que_1" }), { do: "wait", ms: STALL }],
    effect: [],
    effectOn: { v1: [TOLD_WAITS] },
    controlEffect: ABORTED_AND_CONTINUED,
  },
  {
    id: "permission-hand-off",
    why: "an open permission request holds recovery (1.x tells the user so in a toast)",
    options: ABORT_FIRST,
    steps: [user(), say("Cleaning the build. "), trigger({ do: "ask", kind: "permission", id: "per_1" }), { do: "wait", ms: STALL }],
    effect: [],
    effectOn: { v1: [TOLD_WAITS] },
    controlEffect: ABORTED_AND_CONTINUED,
  },
  {
    id: "toast-waits-on-user",
    why: "a recovery held while the session waits on the user's answer and nobody answers: 1.x tells the user once in a toast, however long the wait; an answered question tells nothing",
    options: ABORT_FIRST,
    steps: [
      user(),
      say("I need a decision. "),
      { do: "ask", kind: "question", id: "que_1" },
      triggerOr([{ do: "wait", ms: 3 * STALL }], [{ do: "answer", kind: "question", id: "que_1" }, say("Going with the first option."), end, { do: "wait", ms: 3 * STALL }]),
    ],
    effect: [TOLD_WAITS],
    inert: { v2: "toasts" },
  },
  {
    id: "toast-waits-in-tool",
    why: "1.18 asks its question inside the question tool's call: past the stall budget with it open, the user is told once that the session waits on them; the open tool alone (a long build) tells nothing",
    steps: [
      user(),
      say("I need a decision. "),
      { do: "toolStart", callID: "call_q", tool: "question", input: { questions: [{ question: "Which one?" }] } },
      trigger({ do: "ask", kind: "question", id: "que_1" }),
      { do: "wait", ms: 3 * STALL },
    ],
    effect: [TOLD_WAITS],
    inert: { v2: "toasts" },
    e2e: [{ file: E2E.toasts, test: "a question nobody answers: one toast that the session waits on the user, however long it stays open" }],
  },
  {
    id: "question-text-hand-off",
    why: "a turn that ends asking the user a question gets nothing, even outside the active-user window",
    steps: [user(), todos(OPEN), LONG_WORK, say("All done."), trigger(say("\nShould I also add the rollback test now?")), end, SETTLE],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: OPEN_TODO_NAMED }],
    e2e: [{ file: E2E.judge, test: "a question to the user gets nothing, even with activeUserWindowMs 0" }],
  },
  {
    id: "stop-patterns-hand-off",
    why: "a closing line matching stopPatterns hands the turn to the user: the done reminder is not sent",
    options: { stopPatterns: ["^AWAITING REVIEW$"] },
    steps: [user(), todos(OPEN), LONG_WORK, say("All done."), trigger(say("\nAWAITING REVIEW")), end, SETTLE],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: OPEN_TODO_NAMED }],
  },
  // -- the user's own moves
  {
    id: "active-user-window",
    why: "right after the user's message the nudges for a model that stopped by choice wait",
    steps: [user(), todos(OPEN), triggerOr([{ do: "wait", ms: 20_000 }], [LONG_WORK]), say("All done."), end, SETTLE],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: OPEN_TODO_NAMED }],
  },
  {
    id: "active-user-window-ends",
    why: "a nudge held only by the active-user window is judged again when the window ends (one judgement, no polling)",
    steps: [user(), todos(OPEN), say("All done."), end, triggerOr([{ do: "wait", ms: 310_000 }], [{ do: "wait", ms: 200_000 }])],
    effect: [{ act: "send", kind: "correction", text: OPEN_TODO_NAMED }],
  },
  {
    id: "esc",
    why: "ESC is final: when the host runs the session again with no new user message, a hang there gets nothing",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), triggerOr([{ do: "esc" }], [end]), SETTLE, { do: "hostRun" }, say("Resuming "), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
    e2e: [
      { file: E2E.stall, test: "(c) when the user aborts, no continue follows" },
      { file: E2E.failures, test: "ESC while OpenCode retries the first rung's continue: nothing at the end of the next cooldown" },
    ],
  },
  {
    id: "interrupted-reasons",
    why: "(2.x) session.execution.interrupted with reason user is the user's ESC: a later hang of a run the host starts gets nothing; reason inactivity (the host's own timeout) is not, and the later hang is recovered",
    options: ABORT_FIRST,
    // 1.x sends no interrupted reasons: its cell plays the host's stop as a run that just ends
    // (the same recovery of the later hang), and ESC as 1.18's MessageAbortedError.
    steps: [user(), say("Looking at the code "), triggerOr([{ do: "esc" }], [{ do: "hostStops", reason: "inactivity" }]), SETTLE, { do: "hostRun" }, say("Resuming "), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
  },
  {
    id: "interrupted-superseded",
    why: "(2.x) reason superseded (a newer run took the session's place) is not the user's ESC either: the later hang is recovered",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), triggerOr([{ do: "esc" }], [{ do: "hostStops", reason: "superseded" }]), SETTLE, { do: "hostRun" }, say("Resuming "), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
  },
  {
    id: "esc-turn",
    why: "a turn the user aborted is not judged: not even the done reminder",
    steps: [user(), todos(OPEN), LONG_WORK, say("All done."), triggerOr([{ do: "esc" }], [end]), SETTLE],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: OPEN_TODO_NAMED }],
  },
  {
    id: "undo-turn",
    why: "a turn the user reverted is not judged: the printed tool call it ended on gets no correction, though the revert came before the judge's second look",
    steps: [user(), say('<function=bash>{"command": "ls"}</function>'), end, trigger({ do: "revert" }), SETTLE],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: /wrote a tool call out as text/ }],
    e2e: [
      { file: E2E.undo, test: "a printed tool call the user reverts before the judge's second look gets no correction" },
      { file: E2E.undo, test: "control: the same printed tool call without the revert gets one correction" },
    ],
  },
  {
    id: "undo-hand",
    why: "a revert is the user's own hand, as ESC is: when the host runs the session again with no new user message, a hang there gets nothing",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), end, trigger({ do: "revert" }), SETTLE, { do: "hostRun" }, say("Resuming "), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
  },
  {
    id: "undo-then-write",
    why: "after a revert the user's next message is theirs again (the host removes the reverted messages as it goes in): a hang of that run is recovered",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), end, { do: "revert" }, SETTLE, triggerOr([user({ text: "try it another way" })], [{ do: "hostRun" }]), say("Resuming "), { do: "wait", ms: STALL }],
    effect: ABORTED_AND_CONTINUED,
  },
  {
    id: "cut-off-esc",
    why: "an answer the user stopped with ESC is theirs: no cut-off continue, where the same answer cut off at the output limit gets one",
    steps: [user(), say("Here is the first half of the guide. Step 1: back up the database. Step 2: run"), triggerOr([{ do: "esc" }], [{ do: "end", finish: "length" }]), SETTLE],
    effect: [],
    controlEffect: [{ act: "send", kind: "continue", text: /cut off because it reached the output limit/ }],
  },
  {
    id: "own-abort",
    why: "the plugin's own abort is not the user's ESC: when the continued run hangs again, it is recovered again",
    options: { ...ABORT_FIRST, __modelHangsAfterPrompt: true },
    steps: [user(), say("Looking at the code "), triggerOr([{ do: "wait", ms: STALL }, { do: "wait", ms: STALL }], [{ do: "stream", ms: 2 * STALL }])],
    effect: [...ABORTED_AND_CONTINUED, ...ABORTED_AND_CONTINUED],
  },
  {
    id: "abort-continue-on-run-end",
    why: "after its abort the continue goes out as soon as the host shows the aborted run over, not after a fixed pause: reported two seconds after the abort, a second later the continue is out; unreported, only the abort so far (the continue waits for the report, at most five seconds)",
    options: { ...ABORT_FIRST, __abortReportedLater: true },
    // The abort goes out at about 184 s (the 183 s budget, then the 1 s backoff); its ceiling is 189 s.
    steps: [user(), say("Looking at the code "), { do: "wait", ms: 186_000 }, trigger({ do: "abortReported" }), { do: "wait", ms: 1_000 }],
    effect: ABORTED_AND_CONTINUED,
    controlEffect: [{ act: "abort" }],
    e2e: [{ file: E2E.stall, test: "(a) a stream that hangs mid-answer is recovered and the turn completes" }],
  },
  {
    id: "retry-budget",
    why: "stallEpisodeMaxContinues continues per stall episode: a second hang with no model output in between gets nothing; output in between starts a new episode",
    options: { ...ABORT_FIRST, stallEpisodeMaxContinues: 1, __modelHangsAfterPrompt: true },
    steps: [user(), say("Looking at the code "), { do: "wait", ms: STALL }, triggerOr([], [say("Back at it. ")]), { do: "wait", ms: STALL }],
    effect: ABORTED_AND_CONTINUED,
    // The budget spent: 1.x tells the user the plugin gave up.
    effectOn: { v1: [...ABORTED_AND_CONTINUED, toldGaveUp(/retries exhausted \(1\/1\)/)] },
    controlEffect: [...ABORTED_AND_CONTINUED, ...ABORTED_AND_CONTINUED],
  },
  {
    id: "lifetime-budget",
    why: "lifetimeMaxContinues per genuine user message: model output does not re-arm it, and neither do the plugin's own prompts; the user's next message does",
    options: { ...ABORT_FIRST, lifetimeMaxContinues: 1, __modelHangsAfterPrompt: true },
    steps: [user(), say("Looking at the code "), { do: "wait", ms: STALL }, triggerOr([say("Back at it. ")], [user({ text: "keep going" })]), { do: "wait", ms: STALL }],
    effect: ABORTED_AND_CONTINUED,
    effectOn: { v1: [...ABORTED_AND_CONTINUED, toldGaveUp(/lifetime cap reached \(1\/1\)/)] },
    e2e: [
      { file: E2E.toasts, test: "a session that keeps hanging: one abort and continue, then the plugin gives up and one toast says so" },
      { file: E2E.toasts, test: "control: an ordinary stall recovery that works tells nothing" },
    ],
    controlEffect: [...ABORTED_AND_CONTINUED, ...ABORTED_AND_CONTINUED],
  },
  // -- loops and tool misuse
  {
    id: "loop-idle",
    why: "the same tool three times in a row in the finished turn gets the loop prompt",
    steps: [user(), ...call("c1", "read", { path: "a.ts" }), ...call("c2", "read", { path: "a.ts" }), triggerOr(call("c3", "read", { path: "a.ts" }), call("c3", "edit", { path: "a.ts" })), say("Still looking."), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: /This looks like a loop/ }],
  },
  {
    id: "loop-idle-cycle",
    why: "a cycle of six calls made one call per step, three times over (the last round with its arguments spaced differently), gets the loop prompt at idle: the judge's one history read reaches back far enough",
    steps: [
      user(),
      ...[0, 1, 2].flatMap((round) =>
        ["read", "grep", "edit", "bash", "glob", "write"].flatMap((tool, i) => {
          const last = round === 2 && i === 5
          const input = { arg: round === 2 ? `  step ${i}  ` : `step ${i}` }
          const calls = [...call(`c${round}${i}`, tool, input), { do: "nextStep" } as Step]
          return last ? [triggerOr(calls, [...call(`c${round}${i}`, tool, { arg: "something else" }), { do: "nextStep" } as Step])] : calls
        }),
      ),
      say("Still looking at the parser."),
      end,
      SETTLE,
    ],
    effect: [{ act: "send", kind: "correction", text: /This looks like a loop/ }],
  },
  {
    id: "loop-live",
    why: "six identical calls in a row while the run is live: aborted before the next call, then the loop prompt",
    steps: [user(), ...[1, 2, 3, 4, 5].flatMap((n) => call(`c${n}`, "bash", { command: "ls" })), trigger({ do: "toolStart", callID: "c6", tool: "bash", input: { command: "ls" } }), SETTLE],
    effect: [{ act: "abort" }, { act: "send", kind: "correction", text: /This looks like a loop/ }],
    e2e: [{ file: E2E.failures, test: "the same call again and again: the live tracker aborts the turn and the tool-loop prompt reaches the provider" }],
  },
  {
    id: "repetition",
    why: "a stream that repeats the same sentence over and over is aborted, then told it looped; a long table of similar rows is not a loop",
    steps: [user(), say("Let me look at the session table. "), triggerOr([say(REPEATING)], [say(SIMILAR_ROWS)]), SETTLE],
    effect: [{ act: "abort" }, { act: "send", kind: "correction", text: /repeated the same passage/ }],
  },
  {
    id: "repetition-tool-open",
    why: "a repeating stream while a tool is running is left alone: no abort with a tool open",
    steps: [user(), say("Let me look at the session table. "), trigger({ do: "toolStart", callID: "c1", tool: "bash", input: { command: "sleep 60" } }), { do: "reasoning", text: REPEATING }, SETTLE],
    effect: [],
    controlEffect: [{ act: "abort" }, { act: "send", kind: "correction", text: /repeated the same passage/ }],
  },
  {
    id: "unknown-tool",
    why: "a missing tool called twice gets one prompt naming the closest real tool",
    steps: [user(), { do: "badTool", callID: "c1", name: "bassh" }, trigger({ do: "badTool", callID: "c2", name: "bassh" }), say("Hmm."), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: /no tool called `bassh`[\s\S]*Did you mean `bash`/ }],
    e2e: [
      { file: E2E.failures, test: "a tool that does not exist, called twice: the suggestion names bash, and the model then uses it" },
      { file: E2E.failures, test: "control: one call to a tool that does not exist gets no suggestion" },
    ],
  },
  {
    id: "failing-tool",
    why: "the same tool failing three times in a row with different arguments gets one quiet correction at the turn's end, naming the tool, its error and what to do instead; two failures get nothing",
    steps: [user(), ...missing(1), { do: "nextStep" }, ...missing(2), { do: "nextStep" }, trigger(...missing(3)), say("I could not find the parser file."), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: FAILING_READ }],
    e2e: [
      { file: E2E.failingTools, test: "three reads of paths that do not exist: one correction names read, its error and what to do instead" },
      { file: E2E.failingTools, test: "control: two failed reads get nothing" },
      { file: E2E.failingTools, test: "a command that exits non-zero the same way three times, with different arguments: one correction names bash" },
    ],
  },
  {
    id: "failing-tool-mixed",
    why: "a read that fails again after an edit failed in between still keeps failing; three failures of three different tools (a read, an edit, a command) are no tool that keeps failing: nothing is sent",
    steps: [
      user(),
      ...missing(1),
      triggerOr(
        [...missing(2), ...missing(3)],
        [...failed("e2", "edit", { filePath: "src/a.ts", oldString: "x" }, "oldString not found in content"), ...failed("b3", "bash", { command: "make" }, "make: *** No rule to make target")],
      ),
      say("Nothing worked."),
      end,
      SETTLE,
    ],
    effect: [{ act: "send", kind: "correction", text: FAILING_READ }],
    e2e: [{ file: E2E.failingTools, test: "control: a failed read, a failed edit and a failed command, one each, get nothing" }],
  },
  {
    id: "failing-tool-held",
    why: "the correction waits for the turn's end, and a turn the user stopped with ESC is theirs: nothing",
    steps: [user(), ...missing(1), ...missing(2), ...missing(3), say("Looking for the parser."), triggerOr([{ do: "esc" }], [end]), SETTLE],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: FAILING_READ }],
  },
  {
    id: "failing-tool-asks",
    why: "a turn that ends by asking the user where the file is waits for their answer: no correction talks over it",
    steps: [
      user(),
      ...missing(1),
      ...missing(2),
      ...missing(3),
      triggerOr([say("I cannot find the parser. Which folder is it in: src/parser or lib/parser?")], [say("I could not find the parser file.")]),
      end,
      SETTLE,
    ],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: FAILING_READ }],
  },
  {
    id: "failing-tool-denied",
    why: "calls the user refused (a denied permission) are their hand, not failures: three denied reads get no correction",
    steps: [
      user(),
      triggerOr(
        [1, 2, 3].flatMap((n) => failed(`r${n}`, "read", { filePath: `src/missing-${n}.ts` }, DENIED)),
        [1, 2, 3].flatMap((n) => missing(n)),
      ),
      say("I was not allowed to read those files."),
      end,
      SETTLE,
    ],
    effect: [],
    controlEffect: [{ act: "send", kind: "correction", text: FAILING_READ }],
    e2e: [{ file: E2E.failingTools, test: "control: three reads the user's permission rule denies are the user's hand, not failures: nothing" }],
  },
  // -- unattended hours
  {
    id: "unattended-hours",
    why: "with unattendedMaxMs, a session that has run that long since the user's last message gets no more continues: its hang is left alone, and /auto-resume status says why; the same hang inside the limit is recovered",
    options: UNATTENDED,
    steps: [user(), say("Working on the migration "), trigger(UNATTENDED_WORK), say("Looking at the code "), UNATTENDED_HANG, STATUS],
    effect: [{ act: "reply", text: UNATTENDED_HELD }],
    controlEffect: [...ABORTED_AND_CONTINUED, { act: "reply", text: /^(?![\s\S]*Held:)[\s\S]*auto-resume for session/ }],
    e2e: [
      {
        file: E2E.unattended,
        test: "past unattendedMaxMs since the user's message, a hang gets no continue; the log, the history and /auto-resume status say why; the user writing again ends it",
      },
    ],
  },
  {
    id: "unattended-off",
    why: "unattendedMaxMs is off by default: the same long run with no word from the user keeps recovering",
    options: HOURLY,
    steps: [user(), say("Working on the migration "), UNATTENDED_WORK, say("Looking at the code "), triggerOr([UNATTENDED_HANG], [{ ...UNATTENDED_HANG, do: "stream" }])],
    effect: ABORTED_AND_CONTINUED,
    e2e: [{ file: E2E.unattended, test: "control: the same long run with the option off (the default) is recovered: the hang is aborted and continued" }],
  },
  {
    id: "unattended-user-writes",
    why: "the user writing again after the limit was reached starts the count afresh: the next hang is recovered; a run the host starts by itself is still held",
    options: UNATTENDED,
    steps: [user(), say("Working on the migration "), UNATTENDED_WORK, end, SETTLE, triggerOr([user()], [{ do: "hostRun" }]), say("Looking at the code "), UNATTENDED_HANG],
    effect: ABORTED_AND_CONTINUED,
    controlEffect: [],
  },
  // -- subagents
  {
    id: "orphan-parent",
    why: "a parent whose subagent call still waits after its child finished is aborted and resumed",
    steps: [
      user(),
      { do: "toolStart", callID: "call_sub", tool: SUBAGENT_TOOL, input: { description: "look", prompt: "look around" } },
      { do: "spawn" },
      user({ in: "child", text: "look around" }),
      say("Found it.", { in: "child" }),
      triggerOr([{ do: "end", in: "child" }, { do: "wait", ms: 30_000 }], [{ do: "stream", ms: 30_000, in: "child" }]),
    ],
    effect: ABORTED_AND_CONTINUED,
  },
  {
    id: "stuck-subagent",
    why: "a subagent quiet for a minute while its parent waits gets a nudge; the parent is left alone",
    steps: [
      user(),
      { do: "toolStart", callID: "call_sub", tool: SUBAGENT_TOOL, input: { description: "look", prompt: "look around" } },
      { do: "spawn" },
      user({ in: "child", text: "look around" }),
      say("Looking ", { in: "child" }),
      triggerOr([{ do: "wait", ms: 75_000 }], [{ do: "stream", ms: 75_000, in: "child" }]),
    ],
    effect: [{ act: "send", in: "child", kind: "correction", text: /the session that started you is waiting for your result/ }],
    e2e: [{ file: E2E.failures, test: "a parent waiting on a running subagent (task tool) is not interrupted, and picks up the child's result" }],
  },
  {
    id: "stuck-subagent-question",
    why: "a quiet subagent that waits on a question to the user is waiting, not stuck: no nudge",
    steps: [
      user(),
      { do: "toolStart", callID: "call_sub", tool: SUBAGENT_TOOL, input: { description: "look", prompt: "look around" } },
      { do: "spawn" },
      user({ in: "child", text: "look around" }),
      say("Which folder? ", { in: "child" }),
      trigger({ do: "ask", kind: "question", id: "que_child", in: "child" }),
      { do: "wait", ms: 75_000 },
    ],
    effect: [],
    controlEffect: [{ act: "send", in: "child", kind: "correction", text: /the session that started you is waiting for your result/ }],
  },
  // -- provider failures
  {
    id: "streaming-failure",
    why: "a streaming failure OpenCode gave up on gets a recovery prompt",
    steps: [user(), say("Working "), triggerOr([{ do: "fail", error: "stream" }], [end]), SETTLE],
    effect: [{ act: "send", kind: "continue", text: /the provider stream failed/ }],
  },
  {
    id: "streaming-failure-chain",
    why: "a dead endpoint that fails every recovery at once is one incident: recovery 1/3, 2/3, abort + resume 3/3, then the failure loop gives up instead of cycling",
    options: { __modelFailsAfterPrompt: true },
    steps: [user(), say("Working "), triggerOr([{ do: "fail", error: "stream" }], [end]), { do: "wait", ms: 600_000 }],
    // Found by this matrix: each failure answering our own prompt re-armed the chain at 1/3, the
    // next prompt came inside injectIntervalMs and was refused yet counted (continue #1, #3, #5).
    // Now every prompt waits for the spacing and only prompts sent are counted. (The error is
    // APIError on 1.x, the type provider.transport on 2.x.)
    effect: FAILURE_CHAIN,
    // Then it gives up, which 1.x tells the user in a toast (once, though the endpoint keeps failing).
    effectOn: { v1: [...FAILURE_CHAIN, toldGaveUp(/failure loop: 3 recoveries in a row brought no model output/)] },
  },
  {
    id: "rate-limit",
    why: "a rate limit waits its cooldown, then one continue (no budget spent)",
    options: { rateLimitCooldownsMs: [60_000] },
    steps: [user(), say("Working "), triggerOr([{ do: "fail", error: "rateLimit" }], [end]), { do: "wait", ms: 70_000 }],
    effect: [{ act: "send", kind: "continue", text: /rate limit was hit once/ }],
    // Found by this matrix: 2.x reports one failure as session.step.failed and then
    // session.execution.failed; the adapter now reports it to the core once, with the run.
    e2e: [{ file: E2E.failures, test: "429 forever: OpenCode's retries run out, the plugin waits each rung, sends one continue per rung without spending budget, then stays silent" }],
  },
  {
    id: "fallback-model",
    why: "fallbackModels: a rate-limit wait longer than a stall budget goes on on the next listed model, same agent, instead of waiting",
    options: { fallbackModels: ["anthropic/claude-y"] },
    steps: [user(), say("Working "), triggerOr([{ do: "fail", error: "rateLimit" }], [end]), { do: "wait", ms: 10_000 }],
    effect: [{ act: "send", kind: "continue", text: /openai\/gpt-x cannot go on for now \(rate limited: .*\), so anthropic\/claude-y takes over/, agent: "build", model: "anthropic/claude-y" }],
    // 2.x keeps the model per session: it is switched first (session.switchModel), then
    // prompted; when the fallback's run has ended the session goes back to the user's model,
    // so whatever the user writes next runs there. 1.x tells the user of the switch in a toast.
    effectOn: {
      v1: [{ act: "send", kind: "continue", text: /openai\/gpt-x cannot go on for now \(rate limited: .*\), so anthropic\/claude-y takes over/, agent: "build", model: "anthropic/claude-y" }, TOLD_FALLBACK],
      v2: [
        { act: "send", kind: "switchModel", text: /"providerID":"anthropic","id":"claude-y"/ },
        { act: "send", kind: "continue", text: /so anthropic\/claude-y takes over/ },
        { act: "send", kind: "switchModel", text: /"providerID":"openai","id":"gpt-x"/ },
      ],
    },
    e2e: [
      {
        file: E2E.fallback,
        test: "429 with a Retry-After of an hour: the host's retry is ended, the session goes on on the backup within one stall budget, one turn at a time, and the user's next message goes back to the primary",
      },
      {
        file: E2E.fallback,
        test: "429 with a short Retry-After: once OpenCode gives up, the plugin's own 15-minute wait is spent on the backup instead, after the failed run ended",
      },
      { file: E2E.fallback, test: "control: the same 429 on a provider whose fallbackModels is empty never reaches the backup model" },
    ],
  },
  {
    id: "fallback-model-permanent",
    why: "fallbackModels: a model its provider no longer serves (404, no route) is left at once for the next listed model (2.x: the host's retry is cancelled first); a content filter in its place is not: the same content is not sent on to another provider, and nothing goes out",
    options: { fallbackModels: ["anthropic/claude-y"] },
    steps: [user(), say("Working "), triggerOr([{ do: "providerDown", error: "modelGone" }], [{ do: "providerDown", error: "contentFilter" }]), SETTLE],
    effect: [{ act: "send", kind: "continue", text: /openai\/gpt-x cannot go on for now \(.*cannot serve any request here\), so anthropic\/claude-y takes over/, agent: "build", model: "anthropic/claude-y" }],
    // 2.x: the host proposes a retry of both (this world's host retries every provider failure);
    // the plugin cancels it, as no retry fixes either, then switches the model for the session.
    // 1.x tells the user of the switch in a toast.
    effectOn: {
      v1: [{ act: "send", kind: "continue", text: /openai\/gpt-x cannot go on for now \(.*cannot serve any request here\), so anthropic\/claude-y takes over/, agent: "build", model: "anthropic/claude-y" }, TOLD_FALLBACK],
      v2: [
        { act: "hostRetry", retry: false },
        { act: "send", kind: "switchModel", text: /"providerID":"anthropic","id":"claude-y"/ },
        { act: "send", kind: "continue", text: /so anthropic\/claude-y takes over/ },
        { act: "send", kind: "switchModel", text: /"providerID":"openai","id":"gpt-x"/ },
      ],
    },
    controlEffectOn: { v2: [{ act: "hostRetry", retry: false }] },
  },
  {
    id: "fallback-return-to-model",
    why: "fallbackReturnToModel: once the user's model's wait is over, the session goes back to it at the next finished turn, sending nothing; the next continue runs on it (control: before the wait is over it runs on the fallback)",
    options: { fallbackModels: ["anthropic/claude-y"], rateLimitCooldownsMs: [600_000] },
    steps: [
      user(),
      say("Working "),
      { do: "fail", error: "rateLimit" },
      { do: "wait", ms: 10_000 },
      triggerOr([{ do: "wait", ms: 600_000 }], [{ do: "wait", ms: 60_000 }]),
      { do: "hostRun" },
      say("Resuming "),
      { do: "wait", ms: STALL },
    ],
    // The going back itself sends nothing (1.x: no act at all; 2.x: the model was put back on
    // the user's at the fallback run's idle already): the stall's continue shows the model.
    effect: switchThenStall("neutral", "openai/gpt-x"),
    controlEffect: switchThenStall("neutral", "anthropic/claude-y"),
    e2e: [
      {
        file: E2E.fallback,
        test: "back to the primary without writing: once the primary's Retry-After is over, the turn after the backup's (a goal continue) runs on the primary, and nothing extra is sent",
      },
      { file: E2E.fallback, test: "control: with a Retry-After of an hour the same goal continue after the backup's turn stays on the backup" },
    ],
    // 1.x tells the user of the switch in a toast (the going back sends nothing, toast included).
    effectOn: { v1: switchThenStall("v1", "openai/gpt-x"), v2: switchThenStall("v2", "openai/gpt-x") },
    controlEffectOn: { v1: switchThenStall("v1", "anthropic/claude-y"), v2: switchThenStall("v2", "anthropic/claude-y") },
  },
  {
    id: "rate-limit-cooldown",
    why: "nothing is sent before the rate-limit cooldown is over; once it is, the continue goes out",
    options: { rateLimitCooldownsMs: [600_000] },
    steps: [user(), say("Working "), { do: "fail", error: "rateLimit" }, triggerOr([{ do: "wait", ms: 590_000 }], [{ do: "wait", ms: 610_000 }])],
    effect: [],
    controlEffect: [{ act: "send", kind: "continue", text: /rate limit was hit once/ }],
  },
  {
    id: "rate-limit-ended-by-pause",
    why: "a pause ends a running rate-limit wait (and its entry in the wait file): lifted again, no continue comes from it",
    options: { rateLimitCooldownsMs: [60_000] },
    steps: [
      user(),
      say("Working "),
      { do: "fail", error: "rateLimit" },
      { do: "wait", ms: 10_000 },
      trigger({ do: "pauseCommand", arg: "off" }),
      { do: "wait", ms: 10_000 },
      trigger({ do: "pauseCommand", arg: "on" }),
      { do: "wait", ms: 70_000 },
    ],
    effect: [{ act: "reply", text: /paused/i }, { act: "reply", text: /active again/i }],
    controlEffect: [{ act: "send", kind: "continue", text: /rate limit was hit once/ }],
  },
  {
    id: "retry-hook-one-wait",
    why: "(2.x) a 429 whose Retry-After (20 min, read from http.response) is longer than the host honours by itself (15 min): the host's retry is re-timed to it through the session retry hook, so it is the one wait and the resume, with no continue from us; the same 429 without Retry-After keeps the host's own 2 s doubling, which answers once the limit lifts",
    options: { rateLimitCooldownsMs: [120_000] },
    steps: [user(), say("Working "), triggerOr([{ do: "providerDown", error: "rateLimitRetryAfter", ms: 1_200_000 }], [{ do: "providerDown", error: "rateLimit", ms: 5_000 }]), { do: "wait", ms: 1_300_000 }],
    effect: [{ act: "hostRetry", retry: true, delayMs: 1_200_000 }],
    controlEffect: [],
    // 1.x has no retry hook: its own five retries (2 s doubling, 62 s) spend themselves against
    // the limited endpoint, it gives up, and the ladder waits its rung after that and sends a
    // continue: two waits, as the docs say for 1.x.
    effectOn: { v1: [{ act: "send", kind: "continue", text: /rate limit was hit once/ }] },
    e2e: [{ file: E2E.failures, test: "429 forever: OpenCode's retries run out, the plugin waits each rung, sends one continue per rung without spending budget, then stays silent" }],
  },
  {
    id: "retry-hook-permanent",
    why: "(2.x) a failure no retry can fix (a full context) gets { retry: false } through the retry hook and goes to its failure path at once (compaction and one continue, within 10 s, where the host's own retries would take 30 s); a transient stream failure keeps the host's retry, which answers",
    steps: [user(), say("Working "), triggerOr([{ do: "providerDown", error: "contextFull" }], [{ do: "providerDown", error: "stream", ms: 5_000 }]), SETTLE],
    effect: [{ act: "hostRetry", retry: false }, { act: "compact" }, { act: "send", kind: "continue", text: /compacted into a summary/ }],
    // 1.x does not retry a 400 at all (measured on 1.18.33: an immediate session.error) and has
    // no retry hook: the same failure path, with no retry of the host's to cancel.
    effectOn: { v1: [{ act: "compact" }, { act: "send", kind: "continue", text: /compacted into a summary/ }] },
  },
  {
    id: "full-context",
    why: "a full context window the host did not compact is compacted once, then continued once with a word on what happened; a stream failure in its place gets the stream recovery",
    steps: [user(), say("Working "), triggerOr([{ do: "fail", error: "contextFull" }], [{ do: "fail", error: "stream" }]), SETTLE],
    effect: [{ act: "compact" }, { act: "send", kind: "continue", text: /compacted into a summary/ }],
    controlEffect: [{ act: "send", kind: "continue", text: /the provider stream failed/ }],
  },
  {
    id: "full-context-host-compacts",
    why: "after the host's own compaction of a full context the latch ends: the next turn's printed tool call is corrected; while the compaction has not ended, nothing goes out",
    steps: [user(), say("Working "), { do: "overflow" }, trigger({ do: "compacted" }), say('<function=bash>{"command": "ls"}</function>'), end, SETTLE],
    effect: [{ act: "send", kind: "correction", text: /wrote a tool call out as text/ }],
    // 2.x reports a step's error to the plugin only when the run fails with it: an overflow the
    // host compacts within the run never latches, so there is nothing to hold there.
    controlEffectOn: { v2: [{ act: "send", kind: "correction", text: /wrote a tool call out as text/ }] },
    e2e: [
      { file: E2E.context, test: "overflow -> the host's compaction -> the next turn's printed tool call is corrected" },
      { file: E2E.context, test: "control: while the host's compaction has not ended, the latch holds" },
    ],
  },
  {
    id: "saturation",
    why: "a parent above contextSaturationThreshold at the end of a turn gets magic-context's ctx-wrapup",
    options: { __magicContext: true },
    steps: [user(), say("Read the whole repository."), triggerOr([{ do: "tokens", output: 500, input: 160_000 }], [{ do: "tokens", output: 500, input: 20_000 }]), end, SETTLE],
    effect: [{ act: "command", name: "ctx-wrapup" }],
  },
  {
    id: "saturation-native",
    why: "a parent above contextSaturationThreshold at the end of a turn, without magic-context, is compacted natively, then continued once",
    steps: [user(), say("Read the whole repository."), triggerOr([{ do: "tokens", output: 500, input: 160_000 }], [{ do: "tokens", output: 500, input: 20_000 }]), end, SETTLE],
    effect: [{ act: "compact" }, { act: "send", kind: "continue", text: /nearly full, so the conversation was compacted/ }],
  },
  {
    id: "saturation-hand-off",
    why: "a saturated parent whose turn ends by asking the user is not compacted and continued: the compaction's continue would answer for them; the same turn ending in a statement is",
    steps: [user(), triggerOr([say("Read the whole repository. Should I also read the vendored code?")], [say("Read the whole repository.")]), { do: "tokens", output: 500, input: 160_000 }, end, SETTLE],
    effect: [],
    controlEffect: [{ act: "compact" }, { act: "send", kind: "continue", text: /nearly full, so the conversation was compacted/ }],
  },
  {
    id: "saturation-subagent",
    why: "a saturated subagent gets native compaction when subagentNativeCompactionEnabled is on",
    options: { subagentNativeCompactionEnabled: true },
    steps: [
      user(),
      { do: "toolStart", callID: "call_sub", tool: SUBAGENT_TOOL, input: { description: "read", prompt: "read everything" } },
      { do: "spawn" },
      user({ in: "child", text: "read everything" }),
      say("Read it all.", { in: "child" }),
      triggerOr([{ do: "tokens", output: 500, input: 160_000, in: "child" }], [{ do: "tokens", output: 500, input: 20_000, in: "child" }]),
      { do: "end", in: "child" },
      SETTLE,
    ],
    effect: [{ act: "compact", in: "child" }],
  },
  // -- discovery
  {
    id: "discovery",
    why: "a session the host runs whose events were missed is found by the periodic look and recovered when it stalls",
    options: ABORT_FIRST,
    steps: [trigger({ do: "hostRunsUnseen" }), { do: "wait", ms: STALL + 10_000 }],
    effect: ABORTED_AND_CONTINUED,
  },
  // -- goal mode: /auto-resume goal <text>
  {
    id: "goal-continues",
    why: "while a goal is set, each finished turn that did not meet it gets one continue restating the goal, what the turn said and what meets it (task_complete with evidence); a model that works goes on until the goal's continues are spent",
    options: { __modelWorksAfterPrompt: true, goalMaxContinues: 2 },
    steps: [trigger(GOAL), user(), LONG_WORK, say(WORKED), end, { do: "wait", ms: 30_000 }],
    effect: [
      GOAL_SET,
      goalContinue(1, 2, `[\\s\\S]*Your last turn said: "${WORKED}"[\\s\\S]*task_complete tool with \\\`evidence\\\``),
      goalContinue(2, 2, '[\\s\\S]*Your last turn said: "Ran check 1: 7 files scanned, 1 fixed."'),
    ],
    e2e: [
      { file: E2E.goal, test: "a goal set with /auto-resume goal keeps a scripted model going for three turns until it calls task_complete with evidence" },
      { file: E2E.goal, test: "control: without a goal the same turn gets nothing" },
    ],
  },
  {
    id: "goal-cli",
    why: "auto-resume-toggle <sessionID> goal <text> (the goal file) sets a goal from outside the chat: the running plugin picks it up",
    options: { __modelWorksAfterPrompt: true, goalMaxContinues: 1 },
    steps: [trigger({ do: "cliGoal", text: "make the parser tests pass" }), { do: "wait", ms: 10_000 }, user(), LONG_WORK, say(WORKED), end, { do: "wait", ms: 30_000 }],
    effect: [goalContinue(1, 1)],
  },
  {
    id: "goal-met",
    why: "task_complete with every todo closed and evidence given meets the goal: accepted, and nothing more is sent; without evidence it is refused and the goal goes on",
    steps: [GOAL, user(), todos(CLOSED), LONG_WORK, triggerOr([{ do: "taskComplete", evidence: "bun test test/parser: 14 pass, 0 fail" }], [{ do: "taskComplete" }]), say("The parser tests pass."), end, { do: "wait", ms: 30_000 }],
    effect: [GOAL_SET, { act: "toolAnswer", ok: true, text: /^Goal met: "make the parser tests pass"/ }],
    controlEffect: [GOAL_SET, { act: "toolAnswer", ok: true, text: /^task_complete refused: the goal .* is met only with evidence/ }, goalContinue(1)],
    e2e: [{ file: E2E.goal, test: "a goal set with /auto-resume goal keeps a scripted model going for three turns until it calls task_complete with evidence" }],
  },
  {
    id: "goal-no-progress",
    why: "a goal whose model makes no progress (no tool call, no todo change, nothing new said) two turns in a row is stood down instead of spending its 25 continues",
    steps: [trigger(GOAL), user(), LONG_WORK, say("I am reading the tokenizer code now."), end, { do: "wait", ms: 60_000 }],
    // The first turn said something new; the fake model's "On it." answers to each continue do not.
    effect: [GOAL_SET, goalContinue(1), goalContinue(2)],
    e2e: [{ file: E2E.goal, test: "control: a model that makes no progress is stood down after two idle turns" }],
  },
  {
    id: "goal-hand-off",
    why: "a turn that asks the user gets no goal continue: a goal never answers for the user",
    options: { __modelWorksAfterPrompt: true, goalMaxContinues: 1 },
    steps: [GOAL, user(), LONG_WORK, say(WORKED), trigger(say("\nShould I also migrate the old snapshot tests?")), end, { do: "wait", ms: 30_000 }],
    effect: [GOAL_SET],
    controlEffect: [GOAL_SET, goalContinue(1, 1)],
    e2e: [{ file: E2E.goal, test: "control: a hand-off in the middle gets nothing until the user writes" }],
  },
  {
    id: "goal-user-writes",
    why: "the user writing keeps the goal but comes first: their turn is not followed by a goal continue within the active-user window",
    options: { __modelWorksAfterPrompt: true, goalMaxContinues: 1 },
    steps: [GOAL, user(), LONG_WORK, say(WORKED), end, trigger(user({ text: "also update the changelog" }), say("Updated the changelog."), end), { do: "wait", ms: 60_000 }],
    effect: [GOAL_SET],
    controlEffect: [GOAL_SET, goalContinue(1, 1)],
  },
  {
    id: "goal-budget",
    why: "goalMaxContinues bounds a goal: a model that works and never meets it gets exactly that many continues, then the goal is stood down",
    options: { __modelWorksAfterPrompt: true, goalMaxContinues: 3 },
    steps: [trigger(GOAL), user(), LONG_WORK, say(WORKED), end, { do: "wait", ms: 90_000 }],
    effect: [GOAL_SET, goalContinue(1, 3), goalContinue(2, 3), goalContinue(3, 3)],
  },
  // -- pausing
  {
    id: "pause-command",
    why: "/auto-resume off pauses the session: its reply, and nothing for a hung stream",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), trigger({ do: "pauseCommand", arg: "off" }), { do: "wait", ms: STALL }],
    effect: [{ act: "reply", text: /paused/i }],
    controlEffect: ABORTED_AND_CONTINUED,
    e2e: [{ file: E2E.pause, test: "/auto-resume off, a hung stream gets no continue; /auto-resume on, it is recovered; /auto-resume status shows the counters" }],
  },
  {
    id: "pause-command-on",
    why: "/auto-resume on lifts the pause: the hung stream is recovered again",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), { do: "pauseCommand", arg: "off" }, trigger({ do: "pauseCommand", arg: "on" }), { do: "wait", ms: STALL }],
    effect: [{ act: "reply", text: /paused/i }, { act: "reply", text: /active again/i }, ...ABORTED_AND_CONTINUED],
    controlEffect: [{ act: "reply", text: /paused/i }],
  },
  {
    id: "cli-pause",
    why: "auto-resume-toggle <session> off (the marker file) pauses a live session",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), trigger({ do: "cliPause", arg: "off" }), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
    e2e: [
      { file: E2E.pause, test: "the CLI, run as a separate process, pauses a live session and the plugin honours it" },
      { file: E2E.pause, test: "the plugin wrote its lease into the pause file when it started" },
    ],
  },
  {
    id: "cli-pause-all",
    why: "auto-resume-toggle --all off pauses every session",
    options: ABORT_FIRST,
    steps: [user(), say("Looking at the code "), trigger({ do: "cliPause", arg: "off", all: true }), { do: "wait", ms: STALL }],
    effect: [],
    controlEffect: ABORTED_AND_CONTINUED,
  },
  // -- instances and setup
  {
    id: "subscribe-filter",
    why: "(2.x) on a build whose event.subscribe takes the types array itself (and refuses an options object) the adapter subscribes again in that form and a stall is still recovered; every other row runs on the newest build, which sends only the types the adapter asks for",
    // 1.x has no subscription (its event hook hears everything): the knob means nothing there, the cell is the stall row.
    options: { ...ABORT_FIRST, __subscribeForm: "types" },
    steps: [user(), say("Looking at the code "), hang()],
    effect: ABORTED_AND_CONTINUED,
  },
  {
    id: "subscribe-unfiltered",
    why: "(2.x) on a build that ignores the subscription's filter every event arrives, those the adapter does not read included, and a stall is recovered the same way",
    options: { ...ABORT_FIRST, __subscribeForm: "unfiltered" },
    steps: [user(), say("Looking at the code "), hang()],
    effect: ABORTED_AND_CONTINUED,
  },
  {
    id: "exactly-once",
    why: "loaded twice for one location, the plugin still recovers a stall exactly once",
    options: ABORT_FIRST,
    steps: [{ do: "secondInstance" }, user(), say("Looking at the code "), hang()],
    effect: ABORTED_AND_CONTINUED,
  },
  {
    id: "idempotent-sends",
    why: "(2.x) two live instances (two processes on one host) make the same recovery with the same id of their own: the host takes the first and refuses the second (a ConflictError, read as already sent), so it lands once; a later, different recovery gets a new id and lands too",
    steps: [
      trigger({ do: "secondProcess" }),
      user(),
      say("Working "),
      { do: "fail", error: "stream" },
      SETTLE,
      user({ text: "now the tests" }),
      say("Running them "),
      { do: "fail", error: "stream" },
      SETTLE,
    ],
    effect: [
      { act: "send", kind: "continue", text: /the provider stream failed/ },
      { act: "duplicate", kind: "continue" },
      { act: "send", kind: "continue", text: /the provider stream failed/ },
      { act: "duplicate", kind: "continue" },
    ],
    // 1.x's prompt takes no id of the caller's: two live instances in two processes both land
    // the recovery (one process keeps one live instance: the exactly-once row).
    effectOn: {
      v1: [
        { act: "send", kind: "continue", text: /the provider stream failed/ },
        { act: "send", kind: "continue", text: /the provider stream failed/ },
        { act: "send", kind: "continue", text: /the provider stream failed/ },
        { act: "send", kind: "continue", text: /the provider stream failed/ },
      ],
    },
    controlEffect: [
      { act: "send", kind: "continue", text: /the provider stream failed/ },
      { act: "send", kind: "continue", text: /the provider stream failed/ },
    ],
  },
  {
    id: "model-agent-kept",
    why: "the continue keeps the agent and model of the user's last message",
    options: ABORT_FIRST,
    steps: [user({ agent: "plan", model: "anthropic/claude-x" }), say("Planning "), hang()],
    effect: [{ act: "abort" }, { act: "send", kind: "continue", agent: "plan", model: "anthropic/claude-x" }],
    // 2.x keeps the agent and model per session: the prompt names neither, and nothing switches them.
    effectOn: { v2: [{ act: "abort" }, { act: "send", kind: "continue", agent: null, model: null }] },
    e2e: [{ file: E2E.visibility, test: "the continue is a plain text part with the marker: the model gets it and the plugin knows it as its own" }],
  },
]
