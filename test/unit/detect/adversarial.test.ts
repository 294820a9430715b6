/**
 * Every detector, the todo helpers and both judgement passes on every adversarial input
 * (1 MiB each). Only answers are asserted; how long they take is bench/detectors.ts's job.
 * The expected answers are what a careful reader would say about the capped tail of each
 * input (see src/detect/README.md for the caps).
 */
import { describe, expect, test } from "bun:test"
import { judgeFirstPass, judgeSecondPass, type JudgeInput } from "../../../src/paths/judge/judge.ts"
import { decideTaskComplete } from "../../../src/paths/task-complete/decide.ts"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { hasActionIntent } from "../../../src/detect/action-intent.ts"
import { endsWithCelebration } from "../../../src/detect/celebration.ts"
import { silentDeadStream } from "../../../src/detect/dead-stream.ts"
import { hasDoneClaim } from "../../../src/detect/done-claim.ts"
import { matchedStopPattern, openUserRequest } from "../../../src/detect/hand-off.ts"
import { asksUser } from "../../../src/detect/asks-user.ts"
import { hasReadyToContinue } from "../../../src/detect/ready-to-continue.ts"
import { stopStatement } from "../../../src/detect/stop-statement.ts"
import { findToolCallText, toolCallInReasoning, toolCallInText } from "../../../src/detect/tool-call-text.ts"
import { hasWorkDescription } from "../../../src/detect/work-description.ts"
import { OPTION_DEFAULTS } from "../../../src/options/index.ts"
import { MAX_LISTED_TODOS, MAX_TODO_TEXT } from "../../../src/prompts/nudges.ts"
import { todoReminderPrompt } from "../../../src/paths/judge/prompts.ts"
import { readTodosFromTranscript } from "../../../src/todos/transcript-reader.ts"
import { ADVERSARIAL_CASES, ONE_MB, base64Noise } from "../../fixtures/adversarial.ts"

type Answers = {
  toolText: string | undefined
  thinkingTool: string | undefined
  stop: string | undefined
  celebration: boolean
  doneClaim: boolean
  workDescription: boolean
  ready: boolean
  actionIntent: boolean
  question: boolean
  deadStream: boolean
  firstPass: string
  secondPass: string
}

const NOTHING: Answers = {
  toolText: undefined,
  thinkingTool: undefined,
  stop: undefined,
  celebration: false,
  doneClaim: false,
  workDescription: false,
  ready: false,
  actionIntent: false,
  question: false,
  deadStream: false,
  firstPass: "none",
  secondPass: "none",
}

/** Where an input should make something fire; every other input must fire nothing. */
const EXPECTED: Record<string, Partial<Answers>> = {
  // The text ends in a cut-off `<edit` tag followed by spaces.
  "<edit plus long space runs, repeated": { toolText: "truncated-tag", thinkingTool: "truncated-tag", secondPass: "send:tool-text" },
  "thousands of <function=": { toolText: "xml-tag", thinkingTool: "xml-tag", secondPass: "send:tool-text" },
  // The fence opened more than FENCE_CONTEXT_CHARS before the window: documented limit.
  "unclosed fence at the start": { toolText: "xml-tag", thinkingTool: "xml-tag", secondPass: "send:tool-text" },
  // Every fence closes, so the tag is prose; but the fence context window cannot see where
  // the run of fence lines began, and here it reads the tag as code (documented limit; the
  // miss is the quiet direction: nothing is sent).
  '{"name": repeated': { toolText: "truncated-json", thinkingTool: "truncated-json", secondPass: "send:tool-text" },
  // The `<edit` lies outside the window; the window is blank, so the turn showed nothing.
  // A tag opened, then only blank space: a printed call cut short, not a reply with no text.
  "spaces after <edit, then nothing": { toolText: "truncated-tag", thinkingTool: "truncated-tag", secondPass: "send:tool-text" },
  // No visible text at all: a dead stream when reasoning tokens were spent.
  "spaces only": { deadStream: true, firstPass: "send:dead-stream", secondPass: "send:dead-stream" },
  "newlines only": { deadStream: true, firstPass: "send:dead-stream", secondPass: "send:dead-stream" },
  "tabs and carriage returns": { deadStream: true, firstPass: "send:dead-stream", secondPass: "send:dead-stream" },
  "party emoji": { celebration: true, secondPass: "latchComplete" },
  // The last line is a cut "d"; the "done" lines above it are a bare done claim.
  "done lines": { doneClaim: true, secondPass: "send:done-claim" },
  "question marks": { question: true },
  // The window starts inside the digit run, so its tail reads "<number> passed".
  "digits then a word": { workDescription: true },
  // Reasoning leaked as an unclosed <think>, or only zero-width characters: nothing shown.
  "<think> repeated, never closed": { deadStream: true, firstPass: "send:dead-stream", secondPass: "send:dead-stream" },
  // "a.b.c" reads as a dotted file name to the work-description scanner.
  "pythonic call openers that never finish": { workDescription: true },
  "zero-width spaces only": { deadStream: true, firstPass: "send:dead-stream", secondPass: "send:dead-stream" },
}

function verdictKey(v: ReturnType<typeof judgeFirstPass>): string {
  if (v.kind === "nudge") return `send:${v.feature}`
  return v.kind === "complete" ? "latchComplete" : "none"
}

function answersFor(text: string): Answers {
  const spoke: TranscriptMessage = {
    id: "a1",
    role: "assistant",
    finish: "stop",
    outputTokens: 500,
    parts: [
      { kind: "reasoning", text },
      { kind: "text", text },
    ],
  }
  const input: JudgeInput = {
    messages: [spoke],
    todos: "none",
    options: { ...OPTION_DEFAULTS, activeUserWindowMs: 0 },
    now: 10_000_000,
    sessionStartedAt: 0,
    lastGenuineUserAt: undefined,
    awaitingUser: false,
    toolsInFlightAtIdle: 0,
    budgets: {},
  }
  const direct = findToolCallText(text)?.form
  // The string entry point and the message entry point must agree.
  expect(toolCallInText(spoke)?.form).toBe(direct)
  return {
    toolText: direct,
    thinkingTool: toolCallInReasoning({ ...spoke, parts: [{ kind: "reasoning", text }] })?.form,
    stop: stopStatement(text)?.clause,
    celebration: endsWithCelebration(text),
    doneClaim: hasDoneClaim(text),
    workDescription: hasWorkDescription(text),
    ready: hasReadyToContinue(text),
    actionIntent: hasActionIntent(text),
    question: asksUser(text)?.kind === "question",
    deadStream: silentDeadStream({ message: spoke, minTokens: 200, toolsInFlightAtIdle: 0 }) !== undefined,
    firstPass: verdictKey(judgeFirstPass(input)),
    secondPass: verdictKey(judgeSecondPass(input)),
  }
}

describe("adversarial inputs through every detector", () => {
  test("every expectation names a real input", () => {
    const names = new Set(ADVERSARIAL_CASES.map((c) => c.name))
    for (const name of Object.keys(EXPECTED)) expect(names.has(name)).toBe(true)
  })

  for (const c of ADVERSARIAL_CASES) {
    test(c.name, () => {
      const text = c.build(ONE_MB)
      expect(text.length).toBe(ONE_MB)
      expect(answersFor(text)).toEqual({ ...NOTHING, ...EXPECTED[c.name] })

      // Hand-off and todo helpers on the same input.
      const withText: TranscriptMessage = { id: "a", role: "assistant", parts: [{ kind: "text", text }] }
      expect(openUserRequest(withText)).toBeUndefined()
      expect(matchedStopPattern(withText, ["STOP:\\s*(?:BLOCKED|NEEDS_DECISION)\\b"])).toBeUndefined()
      const written: TranscriptMessage = {
        id: "w",
        role: "assistant",
        parts: [{ kind: "tool", callID: "c", tool: "todowrite", status: "completed", input: { todos: [{ content: text, status: "pending" }] } }],
      }
      const todos = readTodosFromTranscript([written])
      expect(Array.isArray(todos) && todos.length).toBe(1)
      const reminder = todoReminderPrompt(todos, {})
      expect(reminder.length).toBeLessThan(MAX_TODO_TEXT + 400)
      const refusal = decideTaskComplete({ todos, isSubagent: false, repeatCalls: 0, refusals: 0, maxRefusals: 3 })
      expect(refusal.reply.reason).toStartWith("refused")
      expect(refusal.reply.text.length).toBeLessThan(MAX_TODO_TEXT * MAX_LISTED_TODOS + 400)
    })
  }

  test("several megabytes of base64 in one message", () => {
    const text = base64Noise(4 * ONE_MB)
    expect(answersFor(text)).toEqual(NOTHING)
    // Split over many parts, the answer is the same.
    const parts = []
    for (let i = 0; i < text.length; i += 65_536) parts.push({ kind: "text" as const, text: text.slice(i, i + 65_536) })
    expect(toolCallInText({ id: "a", role: "assistant", parts })).toBeUndefined()
  })
})
