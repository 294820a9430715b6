/**
 * What happens when a turn ends: the idle pipeline.
 *
 * `session.idle` decides nothing by itself. The turn is judged in two passes: as soon as the
 * session has been quiet for `minActivityGapMs` (rules that never read the closing text: dead
 * stream, hand-off to the user, user busy), and after
 * `toolTextCheckDelayMs` (rules that read the closing text, which may still be landing in the
 * history when idle fires). Each pass reads the last few messages once. A new turn voids a
 * pending pass; a second idle replaces it instead of stacking a second judgement.
 *
 * Rules are pure: they get the facts and return an action or nothing. The first rule that
 * answers wins the pass. This module runs the action through the same bounded host calls and
 * safety checks as stall recovery.
 *
 * A second pass whose only finding was held by the active-user window (judgeAgainAt) is run
 * once more when the window ends, on the same timer: a new turn, ESC or a newer user message in
 * between voids that look (so does a pause in force when it is due), and that look never asks
 * for another. A subagent's turn is not looked at again.
 */
import type { SendKind } from "./port.ts"
import type { Options } from "../options/index.ts"
import { holdReason, type EngineContext } from "./context.ts"
import { beginRecovery, reporter, sendPrompt, uncountUnsent } from "./actions.ts"
import { exclusiveHostCall, TimeoutError, withTimeout } from "./host-calls.ts"
import { note } from "./intervention.ts"
import { errorText } from "./logger.ts"
import type { SessionState } from "./session-state.ts"
import { readTodosFromTranscript } from "../todos/transcript-reader.ts"
import type { TodoSnapshot } from "../todos/open.ts"
import type { TranscriptMessage } from "./transcript.ts"

/** How many of the newest messages one pass reads. */
export const JUDGE_HISTORY_LIMIT = 12

export type Pass = "first" | "second"

export type IdleFacts = {
  state: Readonly<SessionState>
  options: Options
  now: number
  pass: Pass
  messages: readonly TranscriptMessage[]
  /** "none": the session has no list; "unreadable": it could not be read (never nudge on it). */
  todos: TodoSnapshot
}

export type IdleAction =
  | { kind: "send"; text: string; sendKind: SendKind; feature: string; reason: string }
  | { kind: "command"; name: string; args: string; feature: string; reason: string }
  | { kind: "compact"; feature: string; reason: string }
  | { kind: "latchComplete"; reason: string }
  /** Count a use of a feature's budget without sending anything. */
  | { kind: "charge"; feature: string; reason: string }
  /** Stop judging this turn (for example: the ball is in the user's court). */
  | { kind: "stop"; reason: string }
  /**
   * Nothing now, but judge this turn once more at `at` (a nudge held only by the active-user
   * window). Not an answer: the later rules of the pass still run, and the look is taken only
   * when none of them acts.
   */
  | { kind: "judgeAgainAt"; at: number; reason: string }

type JudgeAgain = Extract<IdleAction, { kind: "judgeAgainAt" }>

export type IdleRule = {
  name: string
  pass: Pass
  decide(facts: IdleFacts): IdleAction | undefined | Promise<IdleAction | undefined>
}

export function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1)
}

export class IdlePipeline {
  constructor(
    private readonly ctx: EngineContext,
    private readonly rules: readonly IdleRule[],
  ) {}

  /** Called on every idle transition; replaces any judgement still pending. */
  start(state: SessionState): void {
    this.cancel(state)
    this.schedulePass(state, state.idleEpoch, "first", this.ctx.effective(state).minActivityGapMs)
  }

  /** `again`: this is the one look after the active-user window, for the user message at `userAt`. */
  private schedulePass(state: SessionState, epoch: number, pass: Pass, delayMs: number, again?: { userAt: number }): void {
    state.pendingJudgement = this.ctx.time.schedule(delayMs, () => {
      state.pendingJudgement = undefined
      void this.runPass(state, epoch, pass, again)
    })
  }

  cancel(state: SessionState): void {
    state.pendingJudgement?.()
    state.pendingJudgement = undefined
  }

  private stillCurrent(state: SessionState, epoch: number): boolean {
    return !state.busy && state.idleEpoch === epoch
  }

  private async runPass(state: SessionState, epoch: number, pass: Pass, again?: { userAt: number }): Promise<void> {
    if (!this.stillCurrent(state, epoch)) return
    // The user wrote since the nudge was held: their message is what the session answers now.
    if (again && state.lastGenuineUserAt !== again.userAt) return
    // The host keeps reporting on a turn for a moment after idle (message updates, a second
    // idle): judge only once the session has been quiet for minActivityGapMs.
    const gap = this.ctx.effective(state).minActivityGapMs
    const quietFor = this.ctx.time.now() - state.lastActivityAt
    // (A clock set back makes quietFor negative: judge now rather than wait out the jump.)
    if (quietFor >= 0 && quietFor < gap) {
      this.schedulePass(state, epoch, pass, Math.min(gap, gap - quietFor), again)
      return
    }
    const held = holdReason(this.ctx, state)
    if (held) {
      this.ctx.logger.log("debug", `session ${state.id}: idle judgement skipped: ${held}`)
      return
    }
    const options = this.ctx.effective(state)
    const facts = await this.gatherFacts(state, options, pass)
    if (!facts || !this.stillCurrent(state, epoch)) return

    let heldByWindow: JudgeAgain | undefined
    for (const rule of this.rules) {
      if (rule.pass !== pass) continue
      let action: IdleAction | undefined
      try {
        action = await rule.decide(facts)
      } catch (error) {
        this.ctx.logger.fault(`rule:${rule.name}`, `session ${state.id}: rule ${rule.name} failed: ${errorText(error)}`)
        continue
      }
      if (!action) continue
      if (action.kind === "judgeAgainAt") {
        heldByWindow ??= action
        continue
      }
      if (!this.stillCurrent(state, epoch)) return
      await this.execute(state, action, rule.name)
      return
    }
    if (pass === "first") this.scheduleSecondPass(state, epoch, options)
    else if (heldByWindow && !again && this.stillCurrent(state, epoch)) this.judgeAgainLater(state, epoch, heldByWindow)
  }

  /** One more second pass when the active-user window ends: held nudges are held, not dropped. */
  private judgeAgainLater(state: SessionState, epoch: number, held: JudgeAgain): void {
    // A subagent's finished turn went to its parent as the call's result: a nudge minutes later
    // would start a run whose answer nobody reads.
    if (state.parentID) return
    const delay = Math.max(0, held.at - this.ctx.time.now())
    this.ctx.logger.log("debug", `session ${state.id}: ${held.reason}; judging the turn again in ${Math.round(delay / 1000)}s`)
    this.schedulePass(state, epoch, "second", delay, { userAt: state.lastGenuineUserAt })
  }

  private scheduleSecondPass(state: SessionState, epoch: number, options: Options): void {
    this.schedulePass(state, epoch, "second", options.toolTextCheckDelayMs)
  }

  private async gatherFacts(state: SessionState, options: Options, pass: Pass): Promise<IdleFacts | undefined> {
    // Reads are bounded but do not take the session's one-call slot: that slot serialises
    // effects (sends, aborts), and a read must never make a recovery prompt lose its turn.
    const timeout = options.sendTimeoutMs
    const read = <T>(label: string, call: () => Promise<T>): Promise<T | undefined> =>
      withTimeout(this.ctx.time, timeout, label, call).catch((error: unknown) => {
        reporter(this.ctx, state)(label, error instanceof TimeoutError ? "timeout" : "failed", error)
        return undefined
      })
    const history = await read("read history", () => this.ctx.port.readMessages(state.id, JUDGE_HISTORY_LIMIT))
    if (history === undefined) return undefined
    let messages: TranscriptMessage[] = history
    if (!Array.isArray(messages)) messages = []
    // Where the list comes from, best first: the host's own todo events (v1), the newest
    // todowrite call in the history just read (v2, and v1 too), the host's todo API (v1).
    let todos: TodoSnapshot = state.todos ?? readTodosFromTranscript(messages)
    if (todos === "none") {
      let failed = false
      const fetched = await withTimeout(this.ctx.time, timeout, "read todos", () => this.ctx.port.readTodos(state.id)).catch(() => {
        failed = true
        return undefined
      })
      todos = failed ? "unreadable" : Array.isArray(fetched) ? fetched : "none"
    }
    return { state, options, now: this.ctx.time.now(), pass, messages, todos }
  }

  private async execute(state: SessionState, action: Exclude<IdleAction, JudgeAgain>, rule: string): Promise<void> {
    const log = this.ctx.logger
    if (action.kind === "stop") {
      log.log("debug", `session ${state.id}: idle judgement stops (${rule}): ${action.reason}`)
      return
    }
    if (action.kind === "charge") {
      bump(state.featureCounts, action.feature)
      log.log("debug", `session ${state.id}: ${action.feature}: ${action.reason}`)
      return
    }
    if (action.kind === "latchComplete") {
      state.completed = true
      log.log("info", `session ${state.id}: task complete (${action.reason}); no further nudges until the user writes`)
      return
    }
    // The session left the table while its history was read (deleted, swept): nothing goes out.
    if (state.dropped) {
      log.log("debug", `session ${state.id}: ${action.feature} not sent: the session is no longer tracked`)
      return
    }
    const options = this.ctx.effective(state)
    const held = holdReason(this.ctx, state)
    if (held) return
    if (state.intervention.sentThisTurn.has(action.feature)) {
      // Never deliver the same recovery twice without a turn in between (doubled idle events).
      log.log("debug", `session ${state.id}: ${action.feature} already sent since the last turn`)
      return
    }
    if (!beginRecovery(this.ctx, state, action.feature, { kind: "continue", reason: `${action.feature}: ${action.reason}` })) return
    log.log("info", `session ${state.id}: ${action.feature}: ${action.reason} -> ${action.kind}`)
    bump(state.featureCounts, action.feature)
    note(state.intervention, { type: "nudgeSent", feature: action.feature }, this.ctx.time.now())

    const timeout = options.sendTimeoutMs
    const report = reporter(this.ctx, state)
    switch (action.kind) {
      case "send": {
        // The one way a prompt goes out: it counts for the send spacing and for the prompts on their way.
        const sent = await sendPrompt(this.ctx, state, { text: action.text, kind: action.sendKind, label: `send ${action.feature}` })
        // Only a nudge that reached the session counts against lifetimeMaxContinues.
        if (uncountUnsent(state, sent)) log.log("debug", `session ${state.id}: ${action.feature} not sent (${sent}); not counted`)
        break
      }
      case "command":
        await exclusiveHostCall(state, this.ctx.time, timeout, `command ${action.name}`, () =>
          this.ctx.port.command(state.id, action.name, action.args), report)
        break
      case "compact":
        await exclusiveHostCall(state, this.ctx.time, timeout, "compact", () => this.ctx.port.compact(state.id, state.setup), report)
        break
    }
  }
}
