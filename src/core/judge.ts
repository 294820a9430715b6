/**
 * The judgement of a finished turn, as two pure functions. The engine owns everything
 * around them (timers, the history read, sending, counting); these only decide.
 *
 * First pass, on the idle event: is the session handing the turn to the user, is the user
 * busy, is this a silent dead stream? It never reads the closing text, which may still be
 * on its way into the history.
 *
 * Second pass, `toolTextCheckDelayMs` later, on a fresh history read: the first-pass
 * guards again (the user may have answered meanwhile), then in order: a reply that asks
 * the user something (a question, a decision, an approval: stand down), the completion
 * signals (🎉 ending, stop statement), a tool call printed as text, a tool call left in
 * the reasoning, ready-to-continue, action intent, the done claim, and last the open-todo
 * reminder for a turn that just stops with todos open. A genuine user message within `activeUserWindowMs` holds
 * only the nudges for a model that stopped by choice (todo reminder, ready, action intent,
 * done claim), never the recovery of a malfunction; a held nudge carries the window's end
 * (`heldUntil`), when the engine judges the turn once more.
 *
 * Budgets. Every nudge names a `feature`; after a successful send the engine adds one to
 * `budgets[feature]`, and after a `charge` it adds one to `budgets[feature]`. Each feature may send at most `finishedTurnMaxNudges` times. The engine decides
 * when a counter starts over: `done-claim` and `ready-closed` only on a genuine user
 * message (never on a new busy cycle); the others on a genuine user message, and may also
 * start over when a later turn made real tool calls.
 *
 * Not judged here: ESC, the completion latch and pauses (the engine skips judging those
 * sessions), and the "went busy again before sending" race (the engine re-checks at send).
 */
import { hasActionIntent } from "../detect/action-intent.ts"
import { asksUser } from "../detect/asks-user.ts"
import { endsWithCelebration } from "../detect/celebration.ts"
import { silentDeadStream } from "../detect/dead-stream.ts"
import { doneClaimPatterns, hasDoneClaim } from "../detect/done-claim.ts"
import { matchedStopPattern, openUserRequest } from "../detect/hand-off.ts"
import { hasReadyToContinue, readyToContinuePatterns } from "../detect/ready-to-continue.ts"
import { stopStatement } from "../detect/stop-statement.ts"
import { messageTail } from "../detect/text.ts"
import { toolCallInReasoning } from "../detect/thinking-tool.ts"
import { toolCallInText } from "../detect/tool-call-text.ts"
import { hasWorkDescription } from "../detect/work-description.ts"
import type { Options } from "../options/index.ts"
import { none, type EffectOf } from "./effect.ts"
import {
  actionIntentPromptText,
  deadStreamPrompt,
  doneWithoutDetailsPromptText,
  doneWithoutWorkPromptText,
  plainContinuePrompt,
  thinkingToolPrompt,
  toolTextPrompt,
} from "../prompts/nudges.ts"
import { allTodosClosed, openTodos, type TodoSnapshot } from "../todos/open.ts"
import { todoReminderPrompt } from "../todos/reminder.ts"
import type { TranscriptMessage } from "./transcript.ts"

export type NudgeFeature =
  | "dead-stream"
  | "tool-text"
  | "thinking-tool"
  | "todo-reminder"
  | "ready-to-continue"
  | "ready-closed"
  | "action-intent"
  | "done-claim"

/** Uses per feature, as counted by the engine (see the header for when each starts over). */
export type NudgeBudgets = Partial<Record<NudgeFeature, number>>

/** A ready-to-continue claim while every todo is closed is left alone this many times. */
export const READY_CLOSED_CHANCES = 2

export type JudgeOptions = Pick<
  Options,
  | "finishedTurnMaxNudges"
  | "warmupMs"
  | "activeUserWindowMs"
  | "resumeOnActionIntent"
  | "silentDeadStreamMinTokens"
  | "doneClaimPatterns"
  | "readyToContinuePatterns"
  | "stopPatterns"
  | "continuePrompt"
  | "actionIntentPrompt"
  | "toolTextRecoveryPrompt"
  | "thinkingToolRecoveryPrompt"
  | "doneWithoutWorkPrompt"
  | "doneWithoutDetailsPrompt"
>

export type JudgeInput = {
  /** The last few messages of the session, oldest first (one history read per pass). */
  messages: readonly TranscriptMessage[]
  /**
   * The session's todo list as last read (v1 event/API or the v2 message log). `undefined`
   * is read as "none" (no list), so a caller that uses undefined for "no list" can pass it.
   */
  todos: TodoSnapshot | undefined
  /** Effective options for this session (profile applied). */
  options: JudgeOptions
  now: number
  /** When the engine first saw the session; action intent waits `warmupMs` from here. */
  sessionStartedAt: number
  /** When the last genuine user message arrived (never our own prompts); undefined if none seen. */
  lastGenuineUserAt: number | undefined
  /** The engine knows of an open question, permission or form for this session. */
  awaitingUser: boolean
  /** Tool calls in flight in the snapshot taken at the idle transition. */
  toolsInFlightAtIdle: number
  budgets: NudgeBudgets
  /** Extra tool names (e.g. the host registry) whose bare tags count as printed calls. */
  knownTools?: readonly string[]
}

/**
 * What the judge answers, in the engine's effect vocabulary (effect.ts): a nudge, the
 * completion latch, a charge to a budget with nothing sent, a stand-down (the turn is in the
 * user's hands, or the history says a new turn is under way: stop judging this turn), a look
 * again when the active-user window ends (a nudge held only by it), or nothing.
 */
export type Judgement = EffectOf<"nudge" | "complete" | "charge" | "stand-down" | "look-again" | "none">

/** A send, unless the feature has used up its `finishedTurnMaxNudges` budget. */
function budgeted(input: JudgeInput, feature: NudgeFeature, prompt: string, sendKind: "continue" | "correction", reason: string): Judgement {
  const used = input.budgets[feature] ?? 0
  const limit = Math.max(0, input.options.finishedTurnMaxNudges)
  if (used >= limit) return none(`${reason}; ${feature} budget spent (${used}/${limit})`)
  return { kind: "nudge", text: prompt, sendKind, reason, feature }
}

/** Holds only this judge's own nudges: other finished-turn rules (loops, unknown tools) still run. */
function recentUser(): Judgement {
  return none("the user was active within activeUserWindowMs")
}

/** When the active-user window after the last genuine user message ends; undefined without one. */
function activeWindowEnd(input: JudgeInput): number | undefined {
  const at = input.lastGenuineUserAt
  const window = input.options.activeUserWindowMs
  if (typeof at !== "number" || !Number.isFinite(at) || !(window > 0)) return undefined
  return at + window
}

/**
 * The nudges for a model that stopped by choice wait while the user has just been active:
 * they may be about to answer. Held, not dropped: when `judge` would send once the window is
 * over (judged as of its end, with what is known now), the judgement is a look again at its
 * end.
 */
function afterUserWindow(input: JudgeInput, judge: (input: JudgeInput) => Judgement): Judgement {
  const end = activeWindowEnd(input)
  if (end === undefined || input.now >= end) return judge(input)
  const later = judge({ ...input, now: end })
  if (later.kind !== "nudge") return recentUser()
  return { kind: "look-again", reason: `the user was active within activeUserWindowMs (held: ${later.reason})`, at: end }
}

/**
 * The guards both passes share. Returns the turn to judge (the newest message, an
 * assistant one) or the judgement that stands everything down.
 */
function guard(input: JudgeInput): { turn: TranscriptMessage } | { judgement: Judgement } {
  const standDown = (reason: string) => ({ judgement: { kind: "stand-down", reason } as Judgement })
  const last = input.messages[input.messages.length - 1]
  if (!last) return { judgement: none("no messages to judge") }
  if (last.role !== "assistant") {
    return standDown(last.own ? "our own prompt has not been answered yet" : "the user spoke after the turn")
  }
  if (last.errorName) return standDown(`the turn ended in an error (${last.errorName})`)
  if (input.awaitingUser) return standDown("waiting on the user: a question or permission is open")
  const open = openUserRequest(last)
  if (open) return standDown(`waiting on the user: ${open.kind === "open-question" ? open.tool : "request"} is pending`)
  const stop = matchedStopPattern(last, input.options.stopPatterns)
  if (stop) return standDown(`handed to the user: stop pattern ${stop.kind === "stop-pattern" ? stop.pattern : ""}`)
  return { turn: last }
}

function deadStream(input: JudgeInput, turn: TranscriptMessage): Judgement | undefined {
  const finding = silentDeadStream({
    message: turn,
    minTokens: input.options.silentDeadStreamMinTokens,
    toolsInFlightAtIdle: input.toolsInFlightAtIdle,
  })
  if (!finding) return undefined
  const what = `silent dead stream (finish ${finding.finish}, ${finding.tokens} tokens, no text or tool call)`
  // The reasoning of a finished message is complete; a call stranded there has a better prompt.
  const stranded = toolCallInReasoning(turn, input.knownTools)
  if (stranded) return budgeted(input, "thinking-tool", thinkingToolPrompt(input.options), "correction", `${what}; tool call in reasoning`)
  return budgeted(input, "dead-stream", deadStreamPrompt(input.options), "continue", what)
}

/** 🎉 or a stop statement: latch when nothing is open, remind when something is. */
function completion(input: JudgeInput, text: string): Judgement | undefined {
  let signal: "celebration" | "stop-statement"
  let what: string
  if (endsWithCelebration(text)) {
    signal = "celebration"
    what = "ends with 🎉"
  } else {
    const stop = stopStatement(text)
    if (!stop) return undefined
    signal = "stop-statement"
    what = `stop statement (${stop.clause})`
  }
  if (input.todos === "unreadable") return none(`${what}, but the todo list could not be read: neither latched nor nudged`)
  const open = openTodos(input.todos)
  if (open.length === 0) return { kind: "complete", reason: what, signal }
  const todos = input.todos
  return afterUserWindow(input, (at) => budgeted(at, "todo-reminder", todoReminderPrompt(todos, at.options), "correction", `${what} with ${open.length} open todo(s)`))
}

function readyToContinue(input: JudgeInput): Judgement {
  const prompt = plainContinuePrompt(input.options)
  if (allTodosClosed(input.todos)) {
    const used = input.budgets["ready-closed"] ?? 0
    if (used < READY_CLOSED_CHANCES) {
      return { kind: "charge", feature: "ready-closed", reason: `ready to continue, but every todo is closed: chance ${used + 1}/${READY_CLOSED_CHANCES}` }
    }
    return budgeted(input, "ready-to-continue", prompt, "continue", "ready to continue with every todo closed; chances used")
  }
  return budgeted(input, "ready-to-continue", prompt, "continue", "announced it is ready to continue and stopped")
}

function doneClaim(input: JudgeInput, text: string): Judgement {
  if (input.todos === "unreadable") return none("done claim, but the todo list could not be read")
  const open = openTodos(input.todos)
  if (open.length > 0) {
    return budgeted(input, "done-claim", doneWithoutWorkPromptText(input.options, open), "correction", `done claim with ${open.length} open todo(s)`)
  }
  if (hasWorkDescription(text)) return none("done claim that describes the work")
  return budgeted(input, "done-claim", doneWithoutDetailsPromptText(input.options), "correction", "done claim without any description of the work")
}

/**
 * The last rule: the turn just stopped ("I have analyzed the code and found the issue.",
 * "step 1 done") with todos still open and nothing else to go on. The open-todo reminder
 * names them. It sits behind every guard, the hand-off check and the active-user window
 * above, and shares the reminder's budget with the completion signals.
 */
function openTodosLeft(input: JudgeInput): Judgement | undefined {
  if (input.todos === "unreadable") return undefined
  const open = openTodos(input.todos)
  if (open.length === 0) return undefined
  const reason = `the turn stopped with ${open.length} open todo(s) and no other signal`
  return budgeted(input, "todo-reminder", todoReminderPrompt(input.todos, input.options), "correction", reason)
}

/** First pass, on the idle event. Never reads the closing text. */
export function judgeFirstPass(input: JudgeInput): Judgement {
  const guarded = guard(input)
  if ("judgement" in guarded) return guarded.judgement
  return deadStream(input, guarded.turn) ?? none("nothing to act on before the text settles")
}

/** Second pass, after the settle delay, on a fresh history read. */
export function judgeSecondPass(input: JudgeInput): Judgement {
  const guarded = guard(input)
  if ("judgement" in guarded) return guarded.judgement
  const { turn } = guarded
  const dead = deadStream(input, turn)
  if (dead) return dead

  const text = messageTail(turn, "text")
  // A reply that asks the user (a question, a decision, an approval) is theirs to answer:
  // checked before every rule that reads the text, so no nudge ever answers it for them.
  const asked = asksUser(text)
  if (asked) {
    const reason = asked.kind === "question" ? "the reply ends with a question to the user" : `the reply hands the turn to the user (${asked.detail})`
    return { kind: "stand-down", reason }
  }
  const done = completion(input, text)
  if (done) return done

  const printed = toolCallInText(turn, input.knownTools)
  if (printed) return budgeted(input, "tool-text", toolTextPrompt(input.options), "correction", `tool call written as text (${printed.form}: ${printed.detail})`)
  const stranded = toolCallInReasoning(turn, input.knownTools)
  if (stranded) return budgeted(input, "thinking-tool", thinkingToolPrompt(input.options), "correction", `tool call left in reasoning (${stranded.form}: ${stranded.detail})`)

  // What is left is a model that stopped by choice: those nudges wait while the user has just
  // been active. The malfunctions above (a dead stream, a tool call printed as text or left in
  // the reasoning) are recovered regardless: the user's own recent prompt is what the broken
  // turn was answering.
  return afterUserWindow(input, (at) => stoppedByChoice(at, text))
}

/** Ready-to-continue, action intent, the done claim, and last the open-todo reminder. */
function stoppedByChoice(input: JudgeInput, text: string): Judgement {
  if (hasReadyToContinue(text, readyToContinuePatterns(input.options.readyToContinuePatterns))) return readyToContinue(input)

  const warm = input.now - input.sessionStartedAt >= input.options.warmupMs
  if (input.options.resumeOnActionIntent && warm && hasActionIntent(text)) {
    return budgeted(input, "action-intent", actionIntentPromptText(input.options), "continue", "announced an action ending in ':' and stopped")
  }

  if (hasDoneClaim(text, doneClaimPatterns(input.options.doneClaimPatterns))) return doneClaim(input, text)
  return openTodosLeft(input) ?? none("nothing to act on")
}
