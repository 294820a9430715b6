/**
 * A finished turn, as the runtime judges it: `session.idle` decides nothing by itself.
 *
 * The turn is looked at in two passes: as soon as the session has been quiet for
 * `minActivityGapMs` (rules that never read the closing text: a dead stream, an answer cut off at
 * the output limit, a hand-off to the user), and after `toolTextCheckDelayMs` (rules that read the
 * closing text, which may still be landing in the history when idle fires). Each pass reads the
 * last few messages and the todo list once, for every rule. A new turn voids a pending pass; a
 * second idle replaces it instead of stacking a second judgement.
 *
 * The rules are the paths' (RecoveryPath.turnRules and turnSteps, runtime/path.ts), run in
 * ascending priority: the first that answers wins the pass. What
 * the winner asks for reaches the host through the engine's one effect runner (run-effect.ts), like
 * every other path's. The runtime knows none of the rules: the paths hand them in.
 *
 * A second pass whose only finding was held by the active-user window (a look-again) is run
 * once more when the window ends, on the same timer: a new turn, ESC or a newer user message in
 * between voids that look (so does a pause in force when it is due), and that look never asks
 * for another. A subagent's turn is not looked at again.
 */
import type { Options } from "../options/index.ts"
import type { EngineContext } from "../core/context.ts"
import type { EffectOf } from "../core/effect.ts"
import { readTodosBounded, reporter, TimeoutError, withTimeout } from "../core/host-calls.ts"
import { errorText } from "../core/logger.ts"
import { runEffect } from "../core/run-effect.ts"
import { countFeature, type SessionState } from "../core/session-state.ts"
import type { TranscriptMessage } from "../core/transcript.ts"
import { messageTail } from "../detect/text.ts"
import { IDLE_LOOP_MESSAGES } from "../detect/tool-loop.ts"
import { readEnding } from "../detect/turn-ending.ts"
import { readTodosFromTranscript } from "../todos/transcript-reader.ts"
import type { TodoSnapshot } from "../todos/open.ts"
import type { Pass, TurnEffect, TurnFacts } from "./path.ts"

/**
 * How many of the newest messages one pass reads: enough for every rule of the pass (the
 * longest tool cycle made one call per step is the most any rule needs), read once and shared.
 */
const TURN_HISTORY_LIMIT = IDLE_LOOP_MESSAGES

type LookAgain = EffectOf<"look-again">
type Acting = Exclude<TurnEffect, LookAgain | EffectOf<"none">>

/** A rule of a pass, as the runtime runs it (the paths' rules and turn steps). */
export type TurnRule = {
  name: string
  pass: Pass
  /** Its place among the rules of the pass: ascending. */
  priority: number
  /**
   * The rule weighs a hand-off itself (a malfunction such as an answer cut off at the output
   * limit is recovered before the text is read). Every other rule is skipped when the turn hands
   * over to the user.
   */
  weighsHandOff?: true
  decide(facts: TurnFacts): TurnEffect | undefined | Promise<TurnEffect | undefined>
}

/** The name the judgement's wake goes by on the session's one timer. */
const OWNER = "finished-turn"

export class FinishedTurn {
  private readonly rules: readonly TurnRule[]
  /**
   * The todo list the host's API gave for a turn (by idle epoch): the second pass of the same
   * turn takes it instead of asking again. No run came in between (a new one moves the epoch),
   * so no todowrite could have changed it, and a list the host pushes itself (state.todos)
   * still comes first. Keyed by the session record, so a session that leaves the table takes
   * its entry with it.
   */
  private readonly todosOfTurn = new WeakMap<SessionState, { epoch: number; todos: TodoSnapshot }>()

  constructor(
    private readonly ctx: EngineContext,
    rules: readonly TurnRule[],
  ) {
    // A stable sort: rules of one priority keep the order they were handed in.
    this.rules = [...rules].sort((a, b) => a.priority - b.priority)
  }

  /** Called on every idle transition; replaces any judgement still pending. */
  start(state: SessionState): void {
    this.cancel(state)
    this.schedulePass(state, state.idleEpoch, "first", this.ctx.effective(state).minActivityGapMs)
  }

  /** `again`: this is the one look after the active-user window, for the user message at `userAt`. */
  private schedulePass(state: SessionState, epoch: number, pass: Pass, delayMs: number, again?: { userAt: number }): void {
    const at = this.ctx.time.now() + Math.max(0, delayMs)
    this.ctx.wake(state, OWNER, at, (wake) => void this.runPass(state, epoch, pass, wake.hold, again))
  }

  cancel(state: SessionState): void {
    this.ctx.wake(state, OWNER, undefined, () => undefined)
  }

  private stillCurrent(state: SessionState, epoch: number): boolean {
    return !state.busy && state.idleEpoch === epoch
  }

  /** `held`: the holds as the engine found them on this wake. */
  private async runPass(state: SessionState, epoch: number, pass: Pass, held: string | undefined, again?: { userAt: number }): Promise<void> {
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
    if (held) return this.ctx.logger.log("debug", `session ${state.id}: idle judgement skipped: ${held}`)
    const options = this.ctx.effective(state)
    const facts = await this.gatherFacts(state, options, pass, epoch)
    if (!facts || !this.stillCurrent(state, epoch)) return
    // A turn that ends by asking the user holds every rule of either pass but those that weigh
    // the hand-off themselves (TurnRule.weighsHandOff, after the malfunctions they recover
    // regardless): a loop prompt, or a compaction and its continue, answered in the user's place
    // talks past them just the same.
    const handOff = facts.ending?.handOff
    if (handOff) this.ctx.logger.log("debug", `session ${state.id}: idle judgement (${pass} pass) holds every other rule: hand-off: the reply waits on the user (${handOff.detail})`)

    let heldByWindow: LookAgain | undefined
    for (const rule of this.rules) {
      if (rule.pass !== pass) continue
      if (handOff && !rule.weighsHandOff) continue
      let action: TurnEffect | undefined
      try {
        action = await rule.decide(facts)
      } catch (error) {
        this.ctx.logger.fault(`rule:${rule.name}`, `session ${state.id}: rule ${rule.name} failed: ${errorText(error)}`)
        continue
      }
      if (!action || action.kind === "none") continue
      if (action.kind === "look-again") {
        heldByWindow ??= action
        continue
      }
      if (!this.stillCurrent(state, epoch)) return
      await this.execute(state, action, rule.name)
      return
    }
    if (pass === "first") this.schedulePass(state, epoch, "second", options.toolTextCheckDelayMs)
    else if (heldByWindow && !again && this.stillCurrent(state, epoch)) this.judgeAgainLater(state, epoch, heldByWindow)
  }

  /** One more second pass when the active-user window ends: held nudges are held, not dropped. */
  private judgeAgainLater(state: SessionState, epoch: number, held: LookAgain): void {
    // A subagent's finished turn went to its parent as the call's result: a nudge minutes later
    // would start a run whose answer nobody reads.
    if (state.parentID) return
    const delay = Math.max(0, held.at - this.ctx.time.now())
    this.ctx.logger.log("debug", `session ${state.id}: ${held.reason}; judging the turn again in ${Math.round(delay / 1000)}s`)
    this.schedulePass(state, epoch, "second", delay, { userAt: state.lastGenuineUserAt })
  }

  private async gatherFacts(state: SessionState, options: Options, pass: Pass, epoch: number): Promise<TurnFacts | undefined> {
    // Reads are bounded but do not take the session's one-call slot: that slot serialises
    // effects (sends, aborts), and a read must never make a recovery prompt lose its turn.
    const timeout = options.sendTimeoutMs
    const label = "read history"
    const history = await withTimeout(this.ctx.time, timeout, label, () => this.ctx.port.readMessages(state.id, TURN_HISTORY_LIMIT)).catch((error: unknown) => {
      reporter(this.ctx, state)(label, error instanceof TimeoutError ? "timeout" : "failed", error)
      return undefined
    })
    if (history === undefined) return undefined
    const messages: TranscriptMessage[] = Array.isArray(history) ? history : []
    // Where the list comes from, best first: the host's own todo events (v1), the newest
    // todowrite call in the history just read (v2, and v1 too), the host's todo API (v1).
    let todos: TodoSnapshot = state.todos ?? readTodosFromTranscript(messages)
    if (todos === "none") todos = await this.todosFromHost(state, epoch, timeout)
    const newest = messages[messages.length - 1]
    const ending = newest?.role === "assistant" ? readEnding(messageTail(newest, "text"), options) : undefined
    return { state, options, now: this.ctx.time.now(), pass, messages, todos, ending }
  }

  /** The host's todo API, read once per turn: a failed read is not kept, so the next pass tries again. */
  private async todosFromHost(state: SessionState, epoch: number, timeout: number): Promise<TodoSnapshot> {
    const kept = this.todosOfTurn.get(state)
    if (kept && kept.epoch === epoch) return kept.todos
    const todos = await readTodosBounded(this.ctx, state.id, timeout)
    if (todos !== "unreadable") this.todosOfTurn.set(state, { epoch, todos })
    return todos
  }

  private async execute(state: SessionState, action: Acting, rule: string): Promise<void> {
    const log = this.ctx.logger
    if (action.kind === "stand-down") return log.log("debug", `session ${state.id}: idle judgement stops (${rule}): ${action.reason}`)
    if (action.kind === "charge") {
      countFeature(state, action.feature)
      log.log("debug", `session ${state.id}: ${action.feature}: ${action.reason}`)
      return
    }
    if (action.kind === "complete") {
      state.completed = true
      log.log("info", `session ${state.id}: task complete (${action.reason}); no further nudges until the user writes`)
      return
    }
    // The session left the table while its history was read (deleted, swept): nothing goes out.
    if (state.dropped) return log.log("debug", `session ${state.id}: ${action.feature} not sent: the session is no longer tracked`)
    const held = this.ctx.mayAct(state, "touch", this.ctx.time.now())?.reason
    if (held) return this.ctx.journal?.refused(state, { trigger: action.feature, evidence: action.reason }, action.kind === "nudge" ? "prompt" : action.kind, "held", held)
    // Never deliver the same recovery twice without a turn in between (doubled idle events).
    if (state.intervention.sentThisTurn.has(action.feature)) return log.log("debug", `session ${state.id}: ${action.feature} already sent since the last turn`)
    // Counted, charged and marked sent before it goes out; only a nudge that reached the
    // session counts against lifetimeMaxContinues.
    await runEffect(this.ctx, state, action, {
      label: action.kind === "nudge" ? `send ${action.feature}` : action.kind === "command" ? `command ${action.name}` : "compact",
      budget: {
        what: action.feature,
        record: { kind: "continue", reason: `${action.feature}: ${action.reason}` },
        refundUnsent: action.kind === "nudge",
        charge: action.feature,
        oncePerTurn: action.feature,
      },
      announce: `session ${state.id}: ${action.feature}: ${action.reason} -> ${action.kind === "nudge" ? "send" : action.kind}`,
    })
  }
}
