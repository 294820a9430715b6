/**
 * Runs the recovery paths (runtime/path.ts) for every session: routes each input to a path's
 * step, keeps the path's state in the session record under its name, asks the session's one
 * timer for the wake the path wants, holds the session while the path says a recovery of its
 * is under way, and runs the effects it names, feeding their outcomes back as inputs.
 * It knows no path: it is handed the list (paths/index.ts).
 */
import type { Options, ResolvedOptions } from "../options/index.ts"
import type { EngineContext } from "../core/context.ts"
import { endRecovery, holdRecovery, type UnderWay } from "../core/intervention.ts"
import type { Goal } from "../core/goals.ts"
import { unknownModelEntries } from "../core/fallback.ts"
import { withTimeout } from "../core/host-calls.ts"
import type { HostRetryDecision, HostRetryProposal } from "../core/host-retry.ts"
import type { RestoredWait } from "../core/carried-waits.ts"
import { errorText } from "../core/logger.ts"
import type { ModelContext } from "../core/model-context.ts"
import type { TurnRule } from "./turn-pass.ts"
import type { Signal, SignalType } from "../core/port.ts"
import type { SessionState } from "../core/session-state.ts"
import type { Act, Hold } from "./may-act.ts"
import type { AnyPath, DeclaredInput, PathEffect, PathInput, PathStatus, PathTurnRule, Peer, StepContext, StepResult, ToolArgs, TurnFacts } from "./path.ts"
import { runPathEffect } from "./effects.ts"

/**
 * The host's tool names (core/tool-names.ts), for the turn rules that read them: `get` fetches
 * them (bounded, cached), `peek` answers only what the cache holds, at once.
 */
export type ToolNamesReader = {
  get(): Promise<readonly string[] | undefined>
  peek(): readonly string[] | undefined
}

/** The session model's context limits and magic-context (core/model-context.ts: bounded, cached); undefined when a look-up failed. */
export type ModelContextRead = (session: SessionState) => Promise<ModelContext | undefined>

/** The tracked sessions (the engine's session table), for the paths' look at other sessions (StepContext.peer). */
export type TrackedSessions = {
  get(id: string): SessionState | undefined
  values(): Iterable<SessionState>
}

const NO_SESSIONS: TrackedSessions = { get: () => undefined, values: () => [] }

/** Other sessions and a path's state for each (by the path's index), as a step's view reads them. */
type PeerSource = {
  peerOf(sessionID: string, index: number): Peer<unknown> | undefined
  trackedOf(index: number): Iterable<Peer<unknown>>
}

/** The answer to a call of one of our tools (PathEffect `reply`). */
export type ToolReply = { ok: boolean; text: string }

/** A call of one of our tools waiting for its path's reply. */
type PendingCall = { session: SessionState; index: number; answer(reply: ToolReply | undefined): void }

/** What the runtime keeps per session and path: the path's state, and what it asked for last. */
type Slot = { state: unknown; wakeAt?: number; hold?: string; held?: UnderWay }

const LIVE: PathInput = { type: "liveness", liveness: "live" }
const ENDED: PathInput = { type: "liveness", liveness: "ended" }
const HOLD_CANCELLED: PathInput = { type: "holdCancelled" }
const ADOPTED: PathInput = { type: "adopted" }
const STAND_DOWN: PathInput = { type: "standDown" }
const WAKE: PathInput = { type: "wake" }
const DROPPED: PathInput = { type: "dropped" }

/**
 * The session as a step sees it. One per runtime, re-aimed before each step: a step is
 * synchronous and keeps nothing of it, and liveness reaches every path on every streamed event.
 */
class SessionView implements StepContext {
  session!: SessionState
  now = 0
  /** The path stepped (by index), whose states peer() reads. */
  index = 0

  constructor(
    private readonly ctx: EngineContext,
    private readonly peers: PeerSource,
    private readonly unknown: ReadonlySet<string>,
  ) {}

  /** Aims the view at the session a step (or a fact) is asked for, at `now`, for the path at `index`. */
  aim(session: SessionState, now: number, index: number): this {
    this.session = session
    this.now = now
    this.index = index
    return this
  }

  peer(sessionID: string): Peer<unknown> | undefined {
    return this.peers.peerOf(sessionID, this.index)
  }

  tracked(): Iterable<Peer<unknown>> {
    return this.peers.trackedOf(this.index)
  }

  options(): Options {
    return this.ctx.effective(this.session)
  }

  paused(): boolean {
    return this.ctx.pauses.isPaused(this.session.id)
  }

  unknownModels(): ReadonlySet<string> {
    return this.unknown
  }

  mayAct(act: Act): Hold | undefined {
    return this.ctx.mayAct(this.session, act, this.now)
  }

  goal(): Goal | undefined {
    return this.ctx.goals?.goalOf(this.session.id)
  }
}

export class PathRuntime implements PeerSource {
  private readonly view: SessionView
  /** Each path's initial state, built once: states are never changed in place. */
  private readonly initials: unknown[]
  /** Per signal type, the paths (by index) that declared it (RecoveryPath.signals), built once. */
  private readonly listeners = new Map<SignalType, number[]>()
  /** The paths (by index) that hear liveness, and streamed text (RecoveryPath.streams), built once. */
  private readonly hearLiveness: number[]
  private readonly readText: number[]
  /** Calls of our tools not answered yet, by call number. */
  private readonly calls = new Map<number, PendingCall>()
  private lastCall = 0
  /** Model entries the options name that the host's model list lacks (RecoveryPath.namesModels). */
  private readonly unknownModels = new Set<string>()
  /** The streamed-text input, re-aimed for each delta (the hot path): a step keeps nothing of it. */
  private readonly textInput = { type: "text" as const, part: "", delta: undefined as string | undefined, text: undefined as string | undefined }

  constructor(
    private readonly ctx: EngineContext,
    private readonly paths: readonly AnyPath[],
    private readonly toolNames: ToolNamesReader,
    private readonly modelContext: ModelContextRead = async () => undefined,
    private readonly sessions: TrackedSessions = NO_SESSIONS,
  ) {
    this.view = this.newView()
    this.initials = paths.map((path) => path.initial())
    paths.forEach((path, index) => {
      for (const type of path.signals ?? []) {
        const list = this.listeners.get(type)
        if (list) list.push(index)
        else this.listeners.set(type, [index])
      }
    })
    const hearing = (stream: "liveness" | "text") => paths.flatMap((path, index) => (path.streams?.includes(stream) ? [index] : []))
    this.hearLiveness = hearing("liveness")
    this.readText = hearing("text")
  }

  /** A signal the session record took in, to the paths that declared its type. */
  signal(session: SessionState, signal: Signal, now: number): void {
    const listeners = this.listeners.get(signal.type)
    if (!listeners) return
    const input: PathInput = { type: "signal", signal }
    for (const index of listeners) this.feed(session, index, input, now)
  }

  /** The signal just applied showed the session alive or ended its run (the hot path). */
  liveness(session: SessionState, liveness: "live" | "ended", now: number): void {
    const input = liveness === "live" ? LIVE : ENDED
    const hearing = this.hearLiveness
    for (let i = 0; i < hearing.length; i++) this.feed(session, hearing[i]!, input, now)
  }

  /** New text of a streamed part (the hot path), to the paths that read it. */
  text(session: SessionState, part: string, delta: string | undefined, text: string | undefined, now: number): void {
    const readers = this.readText
    if (readers.length === 0) return
    const input = this.textInput
    input.part = part
    input.delta = delta
    input.text = text
    for (let i = 0; i < readers.length; i++) this.feed(session, readers[i]!, input, now)
  }

  /**
   * The paths' finished-turn rules as the passes run them (turn-pass.ts): each is handed its path's state for
   * the session (and what it reads of the host: its tool names, the model's context), and the
   * state, effects and wake it answers are kept and carried out as a step's. Beside them, the
   * paths' places among the rules (RecoveryPath.turnSteps): each hands the turn to its path's
   * step and answers with the step's `turn`.
   */
  turnRules(): TurnRule[] {
    const steps = this.paths.flatMap((path, index) =>
      (path.turnSteps ?? []).map((place): TurnRule => ({
        name: `${path.name}:${place.name}`,
        pass: place.pass,
        priority: place.priority,
        // The pass hands the session read-only; the runtime keeps its paths' states in it.
        decide: (facts) => this.feed(facts.state as SessionState, index, { type: "turn", place: place.name, facts }, facts.now)?.turn,
      })),
    )
    return steps.concat(this.pathRules())
  }

  private pathRules(): TurnRule[] {
    return this.paths.flatMap((path, index) =>
      (path.turnRules ?? []).map((rule: PathTurnRule<unknown>): TurnRule => ({
        name: rule.name,
        pass: rule.pass,
        priority: rule.priority,
        ...(rule.weighsHandOff ? { weighsHandOff: true as const } : {}),
        decide:
          rule.readsTools === true || rule.readsContext
            ? async (facts) => {
                const tools = rule.readsTools === true ? await this.toolNames.get() : this.cachedTools(rule)
                const session = facts.state as SessionState
                const context = rule.readsContext?.(facts, this.stateOf(session, index)) ? await this.modelContext(session) : undefined
                return this.decide(index, rule, facts, tools, context)
              }
            : (facts) => this.decide(index, rule, facts, this.cachedTools(rule), undefined),
      })),
    )
  }

  private cachedTools(rule: PathTurnRule<unknown>): readonly string[] | undefined {
    return rule.readsTools === "cached" ? this.toolNames.peek() : undefined
  }

  private newView(): SessionView {
    return new SessionView(this.ctx, this, this.unknownModels)
  }

  /** The path's state for the session: the one it answered last, or its initial one. */
  private stateOf(session: SessionState, index: number): unknown {
    const slot = session.paths[index] as Slot | undefined
    return slot ? slot.state : this.initials[index]
  }

  private decide(index: number, rule: PathTurnRule<unknown>, facts: TurnFacts, tools: readonly string[] | undefined, context: ModelContext | undefined) {
    // The session the turn is judged for: the pass hands it read-only, the runtime keeps its paths' states.
    const session = facts.state as SessionState
    let slot = session.paths[index] as Slot | undefined
    const answer = rule.decide(facts, { state: this.stateOf(session, index), tools, ...(context ? { context } : {}) })
    if (answer?.state !== undefined) {
      if (slot) slot.state = answer.state
      else session.paths[index] = slot = { state: answer.state } satisfies Slot
    }
    if (slot && answer?.wakeAt !== undefined && !session.dropped) this.wake(session, index, slot, answer.wakeAt)
    if (answer?.effects) this.run(session, index, answer.effects)
    return answer?.effect
  }

  /** The facts the paths state (RecoveryPath.holds): the first, for mayAct. */
  holds(session: SessionState, now: number): string | undefined {
    for (let i = 0; i < this.paths.length; i++) {
      const path = this.paths[i]!
      if (!path.holds) continue
      const slot = session.paths[i] as Slot | undefined
      const held = slot ? path.holds(slot.state, now, (id) => this.peerOf(id, i)) : undefined
      if (held) return held
    }
    return undefined
  }

  peerOf(sessionID: string, index: number): Peer<unknown> | undefined {
    const session = this.sessions.get(sessionID)
    return session && { session, state: this.stateOf(session, index) }
  }

  *trackedOf(index: number): Iterable<Peer<unknown>> {
    for (const session of this.sessions.values()) yield { session, state: this.stateOf(session, index) }
  }

  /**
   * Whether a path finds every session the session's open subagent calls wait on settled
   * (RecoveryPath.waitedOnSettled), for mayAct at an abort's last moment. A view of its own:
   * mayAct may be asked while a step runs, whose view must stay aimed at its session.
   */
  waitedOnSettled(session: SessionState, now: number): boolean {
    let view: SessionView | undefined
    for (let i = 0; i < this.paths.length; i++) {
      const path = this.paths[i]!
      if (!path.waitedOnSettled) continue
      view ??= this.newView()
      try {
        if (path.waitedOnSettled(this.stateOf(session, i), view.aim(session, now, i))) return true
      } catch (error) {
        this.ctx.logger.fault(`path:${path.name}`, `${path.name} failed on waitedOnSettled: ${errorText(error)}`)
      }
    }
    return false
  }

  /** A path waits on the host or the user for the session (RecoveryPath.keeps): the idle sweep leaves it. */
  keeps(session: SessionState): boolean {
    return this.paths.some((path, index) => {
      const slot = session.paths[index] as Slot | undefined
      return slot !== undefined && path.keeps?.(slot.state) === true
    })
  }

  /**
   * The session was taken over from an instance this one replaced; `saved` is what its snapshot
   * carried of the paths' states (saved() below), each read back through its path's restore.
   */
  adopted(session: SessionState, saved?: unknown): void {
    if (saved !== null && typeof saved === "object") {
      for (const [index, path] of this.paths.entries()) {
        if (!path.restore || !Object.hasOwn(saved, path.name)) continue
        try {
          const state = path.restore((saved as Record<string, unknown>)[path.name])
          if (state !== undefined) session.paths[index] = { state } satisfies Slot
        } catch (error) {
          this.ctx.logger.fault(`path:${path.name}`, `${path.name} failed to restore its state: ${errorText(error)}`)
        }
      }
    }
    this.everyPath(session, ADOPTED)
  }

  /** The states of the paths that carry theirs across a reload (RecoveryPath.restore), by name; undefined: none kept one. */
  saved(session: SessionState): Record<string, unknown> | undefined {
    let saved: Record<string, unknown> | undefined
    for (const [index, path] of this.paths.entries()) {
      const slot = path.restore ? (session.paths[index] as Slot | undefined) : undefined
      if (slot) (saved ??= {})[path.name] = slot.state
    }
    return saved
  }

  /**
   * One of our tools was called in the session: the answer of the path that answers it
   * (RecoveryPath.tools), or undefined when no path does or it failed before it answered.
   */
  call(session: SessionState, tool: string, now: number, args?: ToolArgs): Promise<ToolReply | undefined> {
    const index = this.paths.findIndex((path) => path.tools?.includes(tool))
    if (index < 0) return Promise.resolve(undefined)
    const call = ++this.lastCall
    return new Promise((answer) => {
      this.calls.set(call, { session, index, answer })
      this.feed(session, index, { type: "called", tool, call, ...(args ? { args } : {}) }, now)
    })
  }

  private reply(call: number, reply: ToolReply | undefined): void {
    const pending = this.calls.get(call)
    if (!pending) return
    this.calls.delete(call)
    pending.answer(reply)
  }

  /** What the paths add to the session's status (RecoveryPath.status). */
  status(session: SessionState): PathStatus | undefined {
    let status: PathStatus | undefined
    for (const [index, path] of this.paths.entries()) {
      const slot = path.status ? (session.paths[index] as Slot | undefined) : undefined
      if (!slot) continue
      try {
        const more = path.status!(slot.state)
        if (more) status = { ...status, ...more }
      } catch (error) {
        this.ctx.logger.fault(`path:${path.name}`, `${path.name} failed on its status: ${errorText(error)}`)
      }
    }
    return status
  }

  /** The host proposes to retry a failed provider call itself: the first answer of a path that hears it, or undefined to let it stand. */
  retryProposed(session: SessionState, proposal: HostRetryProposal, now: number): HostRetryDecision | undefined {
    const input: PathInput = { type: "retryProposed", proposal }
    for (const index of this.hearing("retryProposed")) {
      const answer = this.feed(session, index, input, now)?.retry
      if (answer) return answer
    }
    return undefined
  }

  /** A rate-limit wait a previous process left for the session: true when a path took it. */
  waitRestored(session: SessionState, wait: RestoredWait, now: number): boolean {
    const input: PathInput = { type: "waitRestored", wait }
    let taken = false
    for (const index of this.hearing("waitRestored")) if (this.feed(session, index, input, now)) taken = true
    return taken
  }

  /** The session left the table: the paths that keep something outside it end it. */
  dropped(session: SessionState): void {
    const now = this.ctx.time.now()
    for (const index of this.hearing("dropped")) this.feed(session, index, DROPPED, now)
  }

  private hearing(input: DeclaredInput): number[] {
    return this.paths.flatMap((path, index) => (path.hears?.includes(input) ? [index] : []))
  }

  /**
   * The model entries the paths' options name, checked once against the host's model list
   * (bounded): one warning per option naming the entries it lacks, never switched to.
   */
  checkModels(resolved: ResolvedOptions): void {
    const list = this.ctx.port.listModels
    if (!list) return
    for (const path of this.paths) {
      const named = path.namesModels?.(resolved)
      if (!named || named.entries.length === 0) continue
      withTimeout(this.ctx.time, resolved.options.sendTimeoutMs, "model list", () => list.call(this.ctx.port)).then(
        (known) => {
          // No list at all says nothing about the entries: they are kept as given.
          if (!Array.isArray(known) || known.length === 0) return
          const missing = unknownModelEntries(named.entries, known)
          for (const name of missing) this.unknownModels.add(name)
          if (missing.length > 0) this.ctx.logger.log("warn", `${named.option}: the host knows no model ${missing.map((m) => `"${m}"`).join(", ")}; dropped`)
        },
        (error: unknown) => this.ctx.logger.log("debug", `${named.option}: the host's model list could not be read (${errorText(error)}); entries kept as given`),
      )
    }
  }

  /** The session latched completion. */
  standDown(session: SessionState): void {
    this.everyPath(session, STAND_DOWN)
  }

  private everyPath(session: SessionState, input: PathInput): void {
    const now = this.ctx.time.now()
    for (let i = 0; i < this.paths.length; i++) this.feed(session, i, input, now)
  }

  /** Runs one step and what it asked for; returns the step's answer (undefined: nothing changed, or it failed). */
  private feed(session: SessionState, index: number, input: PathInput, now: number): StepResult<unknown> | undefined {
    const path = this.paths[index]!
    let slot = session.paths[index] as Slot | undefined
    let result
    try {
      result = path.step(slot ? slot.state : this.initials[index], input, this.view.aim(session, now, index))
    } catch (error) {
      this.ctx.logger.fault(`path:${path.name}`, `${path.name} failed on ${input.type}: ${errorText(error)}`)
      // A call of ours it would have answered is answered now, or the host would wait on it for good.
      for (const [call, pending] of this.calls) if (pending.session === session && pending.index === index) this.reply(call, undefined)
      return
    }
    if (!result) return
    if (!slot) session.paths[index] = slot = { state: result.state }
    else slot.state = result.state
    this.hold(session, index, slot, session.dropped ? undefined : result.hold)
    this.wake(session, index, slot, session.dropped ? undefined : result.wakeAt)
    this.run(session, index, result.effects)
    return result
  }

  private run(session: SessionState, index: number, effects: readonly PathEffect[]): void {
    const path = this.paths[index]!
    for (const effect of effects) {
      try {
        // An effect for another session (a subagent's nudge) is carried out on it, if the table still tracks it.
        const target = effect.kind === "act" || effect.kind === "journal-refused" ? effect.target : undefined
        const on = target === undefined ? session : this.sessions.get(target)
        if (!on) continue
        runPathEffect(this.ctx, on, effect, {
          settle: (id, outcome) => this.feed(session, index, { type: "effectSettled", id, outcome }, this.ctx.time.now()),
          reply: (call, reply) => this.reply(call, reply),
          tell: (sessionID) => {
            const told = this.sessions.get(sessionID)
            if (told) this.feed(told, index, { type: "told", from: session.id }, this.ctx.time.now())
          },
        })
      } catch (error) {
        this.ctx.logger.fault(`path:${path.name}`, `${path.name}: ${effect.kind} failed: ${errorText(error)}`)
      }
    }
  }

  /** A new hold text is a new recovery under way (intervention.ts); none ends the path's own. */
  private hold(session: SessionState, index: number, slot: Slot, hold: string | undefined): void {
    if (hold === slot.hold) return
    if (slot.held) endRecovery(session.intervention, slot.held)
    slot.hold = hold
    slot.held = undefined
    if (hold === undefined) return
    const mine = holdRecovery(session.intervention, () => {
      if (slot.held !== mine) return
      slot.hold = slot.held = undefined
      this.feed(session, index, HOLD_CANCELLED, this.ctx.time.now())
    })
    slot.held = mine
  }

  private wake(session: SessionState, index: number, slot: Slot, at: number | undefined): void {
    if (at === slot.wakeAt) return
    slot.wakeAt = at
    this.ctx.wake(session, `path:${this.paths[index]!.name}`, at, (wake) => {
      slot.wakeAt = undefined
      this.feed(session, index, WAKE, wake.now)
    })
  }
}
