/**
 * The judgement of a finished turn, as two pure functions; the runtime's passes (runtime/
 * turn-pass.ts) own the timers, the history read, sending and counting.
 *
 * The first pass (on idle) never reads the closing text: it may still be on its way into the
 * history. The second pass, `toolTextCheckDelayMs` later on a fresh read, repeats the guards
 * (the user may have answered meanwhile). A genuine user message within `activeUserWindowMs`
 * holds only the nudges for a model that stopped by choice, never the recovery of a
 * malfunction (a printed tool call, a dead stream, an answer cut off at the output limit); a
 * held nudge carries the window's end (`heldUntil`).
 *
 * Each feature may send at most `finishedTurnMaxNudges` times. `done-claim` and `ready-closed`
 * start over only on a genuine user message, never on a new busy cycle.
 */
import { cutOffAnswer } from "../../detect/cut-off.ts"
import { endsWithCelebration } from "../../detect/celebration.ts"
import { silentDeadStream } from "../../detect/dead-stream.ts"
import { handOffOf } from "../../detect/hand-off.ts"
import { messageTail } from "../../detect/text.ts"
import { toolCallInReasoning, toolCallInText } from "../../detect/tool-call-text.ts"
import { readEnding, type EndingReading } from "../../detect/turn-ending.ts"
import { TODO_WRITE_TOOL } from "../../todos/transcript-reader.ts"
import { hasWorkDescription } from "../../detect/work-description.ts"
import type { Options } from "../../options/index.ts"
import { none, type EffectOf } from "../../core/effect.ts"
import {
  actionIntentPromptText,
  cutOffPrompt,
  deadStreamPrompt,
  doneWithoutDetailsPromptText,
  doneWithoutWorkPromptText,
  plainContinuePrompt,
  thinkingToolPrompt,
  todoReminderPrompt,
  toolTextPrompt,
} from "./prompts.ts"
import { allTodosClosed, openTodos, type TodoSnapshot } from "../../todos/open.ts"
import type { TranscriptMessage } from "../../core/transcript.ts"

export type NudgeFeature =
  | "dead-stream"
  | "cut-off"
  | "tool-text"
  | "thinking-tool"
  | "todo-reminder"
  | "ready-to-continue"
  | "ready-closed"
  | "action-intent"
  | "done-claim"

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
  /** `undefined` is read as no list. */
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
  /** How the newest text ends, when the caller has read it already (it is read here otherwise). */
  ending?: EndingReading
}

/** `stand-down`: stop judging this turn (the user's, or a new turn is under way); `look-again`: at the active-user window's end. */
export type Judgement = EffectOf<"nudge" | "complete" | "charge" | "stand-down" | "look-again" | "none">

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

function activeWindowEnd(input: JudgeInput): number | undefined {
  const at = input.lastGenuineUserAt
  const window = input.options.activeUserWindowMs
  if (typeof at !== "number" || !Number.isFinite(at) || !(window > 0)) return undefined
  return at + window
}

/** Held, not dropped, while the user has just been active (they may be about to answer): judged as of the window's end. */
function afterUserWindow(input: JudgeInput, judge: (input: JudgeInput) => Judgement): Judgement {
  const end = activeWindowEnd(input)
  if (end === undefined || input.now >= end) return judge(input)
  const later = judge({ ...input, now: end })
  if (later.kind !== "nudge") return recentUser()
  return { kind: "look-again", reason: `the user was active within activeUserWindowMs (held: ${later.reason})`, at: end }
}

function guard(input: JudgeInput): { turn: TranscriptMessage } | { judgement: Judgement } {
  const standDown = (reason: string) => ({ judgement: { kind: "stand-down", reason } as Judgement })
  const last = input.messages[input.messages.length - 1]
  if (!last) return { judgement: none("no messages to judge") }
  // Our own exchange (the 1.x command's reply, marked by the host adapter) is no turn of the model.
  if (last.ours === "command") return standDown("the newest turn is our command's exchange, not the model's")
  if (last.role !== "assistant") {
    return standDown(last.own ? "our own prompt has not been answered yet" : "the user spoke after the turn")
  }
  if (last.errorName) return standDown(`the turn ended in an error (${last.errorName})`)
  if (input.awaitingUser) return standDown("waiting on the user: a question or permission is open")
  const handOff = handOffOf(last, input.options.stopPatterns)
  if (handOff?.kind === "open-question") return standDown(`waiting on the user: ${handOff.tool} is pending`)
  if (handOff) return standDown(`handed to the user: stop pattern ${handOff.pattern}`)
  return { turn: last }
}

/** The answer hit the output limit (finish `length`): a malfunction, so never held by the user window. */
function cutOff(input: JudgeInput, turn: TranscriptMessage): Judgement | undefined {
  const finding = cutOffAnswer(turn)
  if (!finding || input.toolsInFlightAtIdle > 0) return undefined
  const what = finding.tool ? `cut off at the output limit while writing a call to ${finding.tool}` : "cut off at the output limit"
  return budgeted(input, "cut-off", cutOffPrompt(finding.tool), "continue", what)
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

/**
 * 🎉, a stop or a done claim latched: no nudges until the user writes when nothing is open, a
 * reminder when something is. A stop only the classifier read does not latch: it also reads
 * short statuses ("Still failing.") as stops, and a latch would hold the session's later
 * recoveries until the user writes; left unlatched, a true stop only leaves the session as it is.
 */
function completion(input: JudgeInput, signal: "celebration" | "stop-statement" | "done-claim", what: string, layer: "rule" | "model" = "rule"): Judgement {
  if (input.todos === "unreadable") return none(`${what}, but the todo list could not be read: neither latched nor nudged`)
  const open = openTodos(input.todos)
  if (open.length === 0 && layer === "model") return none(`${what}, read by the classifier: nothing is open, so nothing is sent or latched`)
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

/**
 * Did the turn (since the user's last message) run a tool? A done claim after real calls is
 * backed by them. Writing the todo list is bookkeeping, not work.
 */
function turnDidWork(messages: readonly TranscriptMessage[]): boolean {
  for (let m = messages.length - 1; m >= 0; m--) {
    const message = messages[m]!
    if (message.role === "user" && !message.own) return false
    if (message.role === "assistant" && message.parts.some((p) => p.kind === "tool" && p.status === "completed" && p.tool !== TODO_WRITE_TOOL)) return true
  }
  return false
}

/**
 * A done claim. With todos open it is corrected. With nothing open, a claim the rules read is
 * believed (latched) when the reply describes the work or the turn ran tools, and asked once for
 * a short report when the model claims work it shows no sign of (a bare "Done." after a turn with
 * no call at all); a claim only the classifier read is left alone.
 */
function doneClaim(input: JudgeInput, text: string, what: string, layer: "rule" | "model"): Judgement {
  if (input.todos === "unreadable") return none(`${what}, but the todo list could not be read`)
  const open = openTodos(input.todos)
  if (open.length > 0) {
    return budgeted(input, "done-claim", doneWithoutWorkPromptText(input.options, open), "correction", `${what} with ${open.length} open todo(s)`)
  }
  // A claim only the classifier read neither latches nor asks: it also reads short answers and
  // findings ("Yes.", "The build takes 41 s now.") as done, and a latch on those would hold the
  // session's later recoveries, a request would talk over an answer.
  if (layer === "model") return none(`${what}, read by the classifier: nothing is open, so nothing is sent or latched`)
  if (hasWorkDescription(text)) return { kind: "complete", reason: `${what} that describes the work`, signal: "done-claim" }
  if (turnDidWork(input.messages)) return { kind: "complete", reason: `${what} after a turn that ran tools`, signal: "done-claim" }
  const asked = budgeted(input, "done-claim", doneWithoutDetailsPromptText(input.options), "correction", `${what} without any description of the work`)
  return asked.kind === "nudge" ? asked : { kind: "complete", reason: `${what}; report already asked for`, signal: "done-claim" }
}

/** The last rule: a turn that just stops with todos open; shares the reminder's budget with the completion signals. */
function openTodosLeft(input: JudgeInput): Judgement | undefined {
  if (input.todos === "unreadable") return undefined
  const open = openTodos(input.todos)
  if (open.length === 0) return undefined
  const reason = `the turn stopped with ${open.length} open todo(s) and no other signal`
  return budgeted(input, "todo-reminder", todoReminderPrompt(input.todos, input.options), "correction", reason)
}

export function judgeFirstPass(input: JudgeInput): Judgement {
  const guarded = guard(input)
  if ("judgement" in guarded) return guarded.judgement
  return cutOff(input, guarded.turn) ?? deadStream(input, guarded.turn) ?? none("nothing to act on before the text settles")
}

export function judgeSecondPass(input: JudgeInput): Judgement {
  const guarded = guard(input)
  if ("judgement" in guarded) return guarded.judgement
  const { turn } = guarded
  const dead = cutOff(input, turn) ?? deadStream(input, turn)
  if (dead) return dead

  const text = messageTail(turn, "text")
  // A reply that asks the user (a question, a decision, an approval, something only they have)
  // is theirs to answer: decided before every rule that reads the text, so no nudge ever
  // answers it for them.
  const ending = input.ending ?? readEnding(text, input.options)
  const printed = toolCallInText(turn, input.knownTools)
  // The classifier reads words, and the markup of a call the reply ends on has a few
  // ("<deploy>prod</deploy>"): a hand-off only the classifier read yields to that call, which
  // asks nothing of the user. A structural hand-off (a question, a request) still wins.
  if (ending.handOff && !(ending.handOff.how === "model" && printed)) return { kind: "stand-down", reason: `hand-off: the reply waits on the user (${ending.handOff.detail})` }
  if (endsWithCelebration(text)) return completion(input, "celebration", "ends with 🎉")
  // A last line that announces an action with a colon is that, whatever else it reads as.
  const announces = ending.announcesAction === true
  const family = ending.family
  if (family?.family === "stop") return completion(input, "stop-statement", `stop statement (${family.detail})`, family.layer)

  if (printed) return budgeted(input, "tool-text", toolTextPrompt(input.options), "correction", `tool call written as text (${printed.form}: ${printed.detail})`)
  const stranded = toolCallInReasoning(turn, input.knownTools)
  if (stranded) return budgeted(input, "thinking-tool", thinkingToolPrompt(input.options), "correction", `tool call left in reasoning (${stranded.form}: ${stranded.detail})`)

  // Malfunctions above are recovered regardless of the user window: the user's recent prompt
  // is what the broken turn was answering.
  return afterUserWindow(input, (at) => stoppedByChoice(at, text, announces, ending))
}

function stoppedByChoice(input: JudgeInput, text: string, announces: boolean, ending: EndingReading): Judgement {
  const family = ending.family
  const warm = input.now - input.sessionStartedAt >= input.options.warmupMs
  if (announces && input.options.resumeOnActionIntent && warm) {
    return budgeted(input, "action-intent", actionIntentPromptText(input.options), "continue", "announced an action ending in ':' and stopped")
  }
  if (family?.family === "ready") return readyToContinue(input)
  if (family?.family === "done") return doneClaim(input, text, `done claim (${family.detail})`, family.layer)
  // The reminder is the one nudge no sign in the reply asked for: a doubt that the reply asks
  // the user is enough to hold it.
  if (ending.mayAsk) return none(`${ending.mayAsk}: the open todos wait for the user`)
  return openTodosLeft(input) ?? none("nothing to act on")
}
