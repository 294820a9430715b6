/**
 * Worst-case cost of every turn detector, and of a whole judgement, on 1 MB adversarial
 * inputs (test/fixtures/adversarial.ts).
 *
 *   node_modules/.bin/bun bench/detectors.ts [runs]
 *
 * For each detector and each input the median of `runs` timed calls is taken (after three
 * untimed warm-up calls); the table shows, per detector, the worst of those medians and the
 * input that produced it, plus the fastest single call on that same input (a shared or
 * loaded machine inflates medians; the fastest call shows the cost without interference).
 * The target is well under 5 ms for every row.
 */
import os from "node:os"
import { judgeFirstPass, judgeSecondPass, type JudgeInput } from "../src/paths/judge/judge.ts"
import { decideTaskComplete } from "../src/paths/task-complete/decide.ts"
import type { TranscriptMessage } from "../src/core/transcript.ts"
import { hasActionIntent } from "../src/detect/action-intent.ts"
import { asksUser } from "../src/detect/asks-user.ts"
import { endsWithCelebration } from "../src/detect/celebration.ts"
import { endingSentences } from "../src/detect/ending.ts"
import { readEnding } from "../src/detect/turn-ending.ts"
import { silentDeadStream } from "../src/detect/dead-stream.ts"
import { hasDoneClaim } from "../src/detect/done-claim.ts"
import { matchedStopPattern, openUserRequest } from "../src/detect/hand-off.ts"
import { hasReadyToContinue } from "../src/detect/ready-to-continue.ts"
import { stopStatement } from "../src/detect/stop-statement.ts"
import { findToolCallText, toolCallInReasoning, toolCallInText } from "../src/detect/tool-call-text.ts"
import { hasWorkDescription } from "../src/detect/work-description.ts"
import { OPTION_DEFAULTS } from "../src/options/index.ts"
import { todoReminderPrompt } from "../src/paths/judge/prompts.ts"
import { readTodosFromTranscript } from "../src/todos/transcript-reader.ts"
import { ADVERSARIAL_CASES, ONE_MB } from "../test/fixtures/adversarial.ts"

const runs = Math.max(3, Number(process.argv[2]) || 15)

function assistant(text: string): TranscriptMessage {
  return {
    id: "a1",
    role: "assistant",
    finish: "stop",
    outputTokens: 500,
    parts: [
      { kind: "reasoning", text },
      { kind: "text", text },
    ],
  }
}

function silent(text: string): TranscriptMessage {
  return { id: "a1", role: "assistant", finish: "unknown", outputTokens: 500, parts: [{ kind: "reasoning", text }] }
}

function todoWriter(text: string): TranscriptMessage {
  return {
    id: "a0",
    role: "assistant",
    finish: "tool-calls",
    parts: [
      {
        kind: "tool",
        callID: "c1",
        tool: "todowrite",
        status: "completed",
        input: { todos: [{ content: text, status: "pending" }, { content: "second", status: "in_progress" }] },
      },
    ],
  }
}

function judgeInput(text: string, messages: TranscriptMessage[]): JudgeInput {
  return {
    messages,
    todos: readTodosFromTranscript(messages),
    options: { ...OPTION_DEFAULTS, stopPatterns: ["STOP:\\s*(?:BLOCKED|NEEDS_DECISION)\\b"], activeUserWindowMs: 0 },
    now: 10_000_000,
    sessionStartedAt: 0,
    lastGenuineUserAt: undefined,
    awaitingUser: false,
    toolsInFlightAtIdle: 0,
    budgets: {},
  }
}

type Detector = { name: string; prepare: (text: string) => () => unknown }

const DETECTORS: Detector[] = [
  { name: "tool-call-as-text (string)", prepare: (t) => () => findToolCallText(t) },
  { name: "tool-call-as-text (message)", prepare: (t) => { const m = assistant(t); return () => toolCallInText(m) } },
  { name: "thinking-tool", prepare: (t) => { const m = silent(t); return () => toolCallInReasoning(m) } },
  { name: "silent dead stream", prepare: (t) => { const m = silent(t); return () => silentDeadStream({ message: m, minTokens: 200, toolsInFlightAtIdle: 0 }) } },
  { name: "celebration", prepare: (t) => () => endsWithCelebration(t) },
  { name: "stop statement", prepare: (t) => () => stopStatement(t) },
  { name: "done claim", prepare: (t) => () => hasDoneClaim(t) },
  { name: "work description", prepare: (t) => () => hasWorkDescription(t) },
  { name: "ready to continue", prepare: (t) => () => hasReadyToContinue(t) },
  { name: "action intent", prepare: (t) => () => hasActionIntent(t) },
  { name: "asks the user (hand-off text)", prepare: (t) => () => asksUser(t) },
  { name: "ending sentences", prepare: (t) => () => endingSentences(t) },
  { name: "ending reading (rules + classifier)", prepare: (t) => () => readEnding(t) },
  { name: "hand-off: open question", prepare: (t) => { const m = assistant(t); return () => openUserRequest(m) } },
  {
    name: "hand-off: stopPatterns",
    prepare: (t) => {
      const m = assistant(t)
      const patterns = ["STOP:\\s*(?:BLOCKED|NEEDS_DECISION)\\b"]
      return () => matchedStopPattern(m, patterns)
    },
  },
  { name: "todo reader (v2)", prepare: (t) => { const ms = [todoWriter(t), assistant("ok")]; return () => readTodosFromTranscript(ms) } },
  { name: "todo reminder text", prepare: (t) => { const todos = [{ content: t, status: "pending" }]; return () => todoReminderPrompt(todos, {}) } },
  {
    name: "task_complete decision",
    prepare: (t) => () => decideTaskComplete({ todos: [{ content: t, status: "pending" }], isSubagent: false, repeatCalls: 0, refusals: 0, maxRefusals: 3 }),
  },
  { name: "judge: first pass", prepare: (t) => { const input = judgeInput(t, [todoWriter("x"), silent(t)]); return () => judgeFirstPass(input) } },
  { name: "judge: second pass", prepare: (t) => { const input = judgeInput(t, [todoWriter("x"), assistant(t)]); return () => judgeSecondPass(input) } },
]

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const inputs = ADVERSARIAL_CASES.map((c) => ({ name: c.name, text: c.build(ONE_MB) }))

type Row = { detector: string; worstMs: number; bestOnWorstMs: number; worstCase: string; totalMs: number }
const rows: Row[] = []
for (const detector of DETECTORS) {
  let worstMs = 0
  let bestOnWorstMs = 0
  let worstCase = ""
  let totalMs = 0
  for (const input of inputs) {
    const call = detector.prepare(input.text)
    for (let i = 0; i < 3; i++) call() // warm-up: let the JIT settle on this input
    const times: number[] = []
    for (let i = 0; i < runs; i++) {
      const start = performance.now()
      call()
      times.push(performance.now() - start)
    }
    const m = median(times)
    totalMs += m
    if (m > worstMs) {
      worstMs = m
      bestOnWorstMs = Math.min(...times)
      worstCase = input.name
    }
  }
  rows.push({ detector: detector.name, worstMs, bestOnWorstMs, worstCase, totalMs })
}

const cpu = os.cpus()[0]?.model ?? "unknown cpu"
console.log(`machine: ${cpu} x${os.cpus().length}, ${os.platform()} ${os.arch()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`)
console.log(`runtime: bun ${typeof Bun !== "undefined" ? Bun.version : "n/a"}; ${inputs.length} inputs of 1 MiB; median of ${runs} runs each`)
console.log(`load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
console.log("")
const nameWidth = Math.max(...rows.map((r) => r.detector.length), 8)
console.log(`${"detector".padEnd(nameWidth)}  worst median ms  fastest ms  sum of medians  worst input`)
for (const row of rows) {
  console.log(
    `${row.detector.padEnd(nameWidth)}  ${row.worstMs.toFixed(3).padStart(15)}  ${row.bestOnWorstMs.toFixed(3).padStart(10)}  ${row.totalMs.toFixed(2).padStart(14)}  ${row.worstCase}`,
  )
}
const over = rows.filter((r) => r.worstMs >= 5)
console.log("")
console.log(over.length === 0 ? "every row is under 5 ms" : `over 5 ms: ${over.map((r) => r.detector).join(", ")}`)
