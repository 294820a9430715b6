/**
 * What a recovery path is to the runtime: a pure step. The runtime hands it an input and a
 * read-only view of the session; the path answers with its next state, the effects it wants
 * carried out (as data), when it next wants to wake, and whether it holds the session as a
 * recovery under way. Nothing is run inside a step, in the manner of xstate v5's `transition`
 * (next snapshot plus actions): the runtime keeps the state in the session record under the
 * path's name, runs the effects, and feeds their outcomes back as inputs, so no callback of the
 * path rides on an effect.
 *
 * The runtime never imports a path: paths/index.ts is the one list that names them.
 */
import type { Options, ResolvedOptions } from "../options/index.ts"
import type { EffectOf } from "../core/effect.ts"
import type { HostRun } from "../core/host-run.ts"
import type { FallbackEpisode } from "../core/fallback.ts"
import type { Goal, GoalChange } from "../core/goals.ts"
import type { HostRetryDecision, HostRetryProposal } from "../core/host-retry.ts"
import type { RestoredWait } from "../core/carried-waits.ts"
import type { JournalOutcome, JournalTag } from "../core/journal.ts"
import type { ModelContext } from "../core/model-context.ts"
import type { ModelRef, Signal, SignalType } from "../core/port.ts"
import type { Delivery, HostEffect, Outcome } from "../core/run-effect.ts"
import type { RecoveryKind, SessionState } from "../core/session-state.ts"
import type { SessionStatus } from "../core/status.ts"
import type { TranscriptMessage } from "../core/transcript.ts"
import type { EndingReading } from "../detect/turn-ending.ts"
import type { TodoSnapshot } from "../todos/open.ts"
import type { Act, Hold } from "./may-act.ts"

/**
 * The two looks at a finished turn (runtime/turn-pass.ts): the first as soon as the session is
 * quiet, never reading the closing text; the second once that text has landed.
 */
export type Pass = "first" | "second"

/** A finished turn as one pass read it, once, for every rule of the pass. */
export type TurnFacts = {
  state: Readonly<SessionState>
  options: Options
  now: number
  pass: Pass
  /** The newest messages (as many as the longest rule needs: runtime/turn-pass.ts), oldest first. */
  messages: readonly TranscriptMessage[]
  /** "none": the session has no list; "unreadable": it could not be read (never nudge on it). */
  todos: TodoSnapshot
  /** How the newest assistant text ends: read once per pass, for every rule. */
  ending?: EndingReading
}

/**
 * What a rule may answer. A `look-again` is not an answer: the later rules of the pass still
 * run, and the look is taken only when none of them acts. `none` is no answer either.
 */
export type TurnEffect = EffectOf<"nudge" | "command" | "compact" | "complete" | "charge" | "stand-down" | "look-again" | "none">

export type PathInput =
  /**
   * A host signal of a type the path declared (RecoveryPath.signals), after the session record
   * took it in. Model output comes only for sessions whose `outputWatched` is set (a path's
   * `watch-output` effect sets it): most of the traffic, left off where nobody reads it.
   */
  | { type: "signal"; signal: Signal }
  /**
   * The signal just applied showed the session alive ("live": any event, the streaming deltas
   * included) or ended its run ("ended"). Comes on the hot path: a step must answer it cheaply.
   */
  | { type: "liveness"; liveness: "live" | "ended" }
  /**
   * New text of a streamed text or reasoning part: `delta`, or `text`, the part's whole text so
   * far (1.x part updates). Comes on the hot path for every such delta of every session, so a
   * step must be amortized O(1). The input is the runtime's, re-aimed for each delta: valid only
   * during the step.
   */
  | { type: "text"; part: string; delta: string | undefined; text: string | undefined }
  /** The wake the path asked for is due (whether it may act then is StepContext.mayAct's to say). */
  | { type: "wake" }
  /** One of the path's own effects is over, or reached a point it reports (`id` as the path gave it). */
  | { type: "effectSettled"; id: number; outcome: EffectOutcome }
  /** The user, ESC or another recovery ended the recovery this path held under way (StepResult.hold). */
  | { type: "holdCancelled" }
  /** The session was taken over from an instance this one replaced (a plugin reload): its timers were not. */
  | { type: "adopted" }
  /** The session latched completion (task_complete): nothing more is due unless it runs again. */
  | { type: "standDown" }
  /**
   * A finished turn, as a pass read it (runtime/turn-pass.ts), at one of the path's places among the
   * finished-turn rules (RecoveryPath.turnSteps, `place` its name): for a path whose decision
   * needs the turn and its own state together. The step answers the rest of the pass in
   * `StepResult.turn`; its effects run like any step's.
   */
  | { type: "turn"; place: string; facts: TurnFacts }
  /**
   * A tool of ours the path answers (RecoveryPath.tools) was called in the session: answer it
   * with one `reply` effect naming `call`. `args`: what the model passed (task_complete's `evidence`).
   */
  | { type: "called"; tool: string; call: number; args?: ToolArgs }
  /**
   * The path's step for another session (`from`) asked that this one look again (a `tell`
   * effect): a subagent's turn tells its parent. What changed is read off `from` (StepContext.peer).
   */
  | { type: "told"; from: string }
  /**
   * The host proposes to retry a failed provider call itself (2.x retry hook, core/host-retry.ts):
   * the step answers in StepResult.retry (absent: the proposal stands). The host waits on the
   * answer: it is given at once, and no effect of the step is waited for.
   */
  | { type: "retryProposed"; proposal: HostRetryProposal }
  /** A rate-limit wait a process that did not exit cleanly left in the wait file (core/carried-waits.ts), for the session: a step that answers takes it. */
  | { type: "waitRestored"; wait: RestoredWait }
  /** The session left the table: the path's state goes with it, what it keeps outside the session (a wait-file entry) is the step's to end. */
  | { type: "dropped" }

/** The inputs a path hears only when it says so (RecoveryPath.hears): rare, each meant for the path that keeps what they are about. */
export type DeclaredInput = "retryProposed" | "waitRestored" | "dropped"

/** The arguments a call of one of our tools was given, as text (bounded by the host adapter). */
export type ToolArgs = Readonly<Record<string, string | undefined>>

/** How an effect ended, as the path hears it. */
export type EffectOutcome =
  /** The host's answer to "do you still run this session?". */
  | { kind: "host-run"; run: HostRun }
  /**
   * A continue (or abort then continue) is over: the prompt's outcome (undefined: nothing went
   * out); `vetoed`: the abort's last look stopped it, and why; `heldBy`: the hold that kept the
   * prompt back at the last moment.
   */
  | { kind: "delivered"; outcome: Outcome; vetoed?: string; heldBy?: string }
  /**
   * An `act` abort then continue passed every check and its last look: the abort goes out now
   * (what a path counts as an attempt). The effect is not over: `delivered` follows.
   */
  | { kind: "committed" }
  /** The session's todo list as the host gave it (a bounded read): "none" without one, "unreadable" when the read failed. */
  | { kind: "todos"; todos: TodoSnapshot }
  /** The session's newest messages (a bounded read); undefined when the read failed or timed out. */
  | { kind: "messages"; messages: TranscriptMessage[] | undefined }

/** What a path may ask for; every kind is carried out by the runtime (runtime/effects.ts). */
export type PathEffect =
  | { kind: "log"; level: "warn" | "info" | "debug"; text: string }
  /** Log-once memory of a held recovery (SessionState.lastHeldReason, cleared by output and user turns). */
  | { kind: "note-held"; key: string | undefined }
  /**
   * A guard refused the action, or the path gave up or ended what it kept: one line in the
   * user's history, of the session `target` names (by id) when the action was for another one.
   */
  | { kind: "journal-refused"; tag: JournalTag; action: string; why: Exclude<JournalOutcome, "revived" | "no effect">; reason: string; target?: string }
  /** Ask the host whether it still runs the session (bounded); answered as `host-run`. */
  | { kind: "ask-host-run"; id: number }
  /**
   * A continue of the session's stall episode: counted against the episode, the loop window and
   * the lifetime cap when it is committed (for an abort first: once every check and the abort's
   * veto passed), quoting the attempt as it was counted; once sent, it restarts the silence
   * clock. Answered as `delivered`.
   */
  | { kind: "episode-continue"; id: number; effect: EffectOf<"continue" | "abort-continue">; recovery: RecoveryKind; label: string; silentMs: number; tag: JournalTag }
  /**
   * An action of the path sent as it is (core/run-effect.ts): counted against the budget it
   * names, announced, journaled. With an `id` it is answered as `delivered` (an abort then
   * continue also as `committed` when its abort goes out); without one the path does not wait
   * to hear how it ended. `target`: the session acted on (by id) when it is not the step's own
   * (a subagent's nudge); nothing is done when that session is not tracked. Its outcome still
   * comes back to the step's session.
   */
  | { kind: "act"; id?: number; effect: HostEffect; via: ActDelivery; target?: string }
  /** A change to the session's goal (core/goals.ts), kept by the goal store. */
  | { kind: "goal"; change: GoalChange }
  /** Read the session's todo list from the host (bounded); answered as `todos`. */
  | { kind: "read-todos"; id: number }
  /** The answer to a call of one of our tools (the `called` input); `ok: false` fails the call with `text`. */
  | { kind: "reply"; call: number; ok: boolean; text: string }
  /** The session latches completion: it, every path, the finished-turn passes and a recovery under way stand down. */
  | { kind: "latch-complete" }
  /** Read the session's newest `limit` messages from the host, bounded by `timeoutMs`; answered as `messages`. */
  | { kind: "read-messages"; id: number; limit: number; timeoutMs: number }
  /**
   * The session's rate-limit wait in the wait file (core/carried-waits.ts), so that a restart
   * carries it over: `wait` (engine times) saves it, none removes it (`why` in the debug log).
   */
  | { kind: "carry-wait"; wait?: { rung: number; until: number; since: number; carriedOver: boolean }; why: string }
  /**
   * Another model takes over the session's prompts (`episode`, core/fallback.ts), or none does
   * any more; `model`: the model the session's own turns are on from now on.
   */
  | { kind: "fallback-episode"; episode: FallbackEpisode | undefined; model?: ModelRef }
  /** Put the session back on the user's model where the model belongs to the session (2.x), bounded; a failure is a warning. */
  | { kind: "restore-model"; model: ModelRef }
  /** From now on the session's model output (`modelOutput` signals) reaches the paths that declared it: it is not routed by default, being most of the traffic. */
  | { kind: "watch-output" }
  /**
   * Ask the path's step for another session (by id) to look again: it hears `told`, at once.
   * Nothing happens when that session is not tracked. A step must not answer `told` with a
   * tell back, or the two would go round for good.
   */
  | { kind: "tell"; session: string }

/**
 * What an `act` effect says of itself: the data part of a Delivery, never a callback. An
 * `exception` is data too: what it needs at the abort's last moment is a fact mayAct asks the
 * paths for then (RecoveryPath.waitedOnSettled).
 */
export type ActDelivery = Pick<Delivery, "label" | "budget" | "announce" | "exception" | "journal">

export type StepResult<S> = {
  state: S
  effects: readonly PathEffect[]
  /** When the path next wants a `wake`; absent: no wake. */
  wakeAt?: number
  /**
   * The path holds the session as a recovery under way (other recoveries wait). A different
   * text is a new hold (a new phase of the recovery); absent ends the path's hold.
   */
  hold?: string
  /** The answer to a `turn` input for the rest of the pass; absent: the later rules run. */
  turn?: TurnEffect
  /** The answer to a `retryProposed` input: the decision the host makes instead; absent: its proposal stands. */
  retry?: HostRetryDecision
}

/** Another session as a path sees it: its record, and the path's state for it (its initial one when it has none). */
export type Peer<S> = { readonly session: Readonly<SessionState>; readonly state: S }

/** Another tracked session by id, as the path sees it; undefined when the table does not track it. */
export type PeerLookup<S> = (sessionID: string) => Peer<S> | undefined

/** The session as a step sees it: read-only, valid only during the step call. */
export interface StepContext {
  readonly session: Readonly<SessionState>
  readonly now: number
  /** The options as they apply to this session right now. */
  options(): Options
  /** The user paused the session: a fact that ends what a path waits on (whether it may act is mayAct's). */
  paused(): boolean
  /** Model entries the options name (RecoveryPath.namesModels) that the host's model list lacks: never switched to. */
  unknownModels(): ReadonlySet<string>
  /**
   * Whether the path may do `act` now (runtime/may-act.ts, for this session at `now`): why not,
   * whose fact that is, and until when; undefined when it may. The one answer: a path states
   * its own facts (StepResult.hold), never an answer of its own.
   */
  mayAct(act: Act): Hold | undefined
  /** The session's goal (core/goals.ts), active or how it last ended; undefined when it has none. */
  goal(): Goal | undefined
  /**
   * Another tracked session and the path's state for it (read-only): for a path whose sessions
   * are related (a parent and its subagents). Undefined when it is not tracked. The state is
   * the path's own type (the step's `S`). Absent in a context built by hand: no other session.
   */
  peer?(sessionID: string): Peer<unknown> | undefined
  /**
   * Every tracked session, as peer() gives it: a walk over the whole table (at most
   * MAX_TRACKED_SESSIONS), for a rare look such as a session new to the path finding the
   * sessions that named it their parent before it was tracked. Absent as `peer` is.
   */
  tracked?(): Iterable<Peer<unknown>>
}

export interface RecoveryPath<S> {
  readonly name: string
  /**
   * The signal types the path hears as `signal` inputs; absent: none. The runtime routes by it,
   * so a signal never visits a path that did not ask for its type.
   */
  readonly signals?: readonly SignalType[]
  /**
   * The hot-path inputs the path hears, each on every streamed event: `liveness` and `text`
   * (PathInput). Absent: neither. The runtime routes by it, so a path that ignores them costs
   * nothing per streamed event.
   */
  readonly streams?: readonly ("liveness" | "text")[]
  /** The rare inputs the path hears (DeclaredInput); absent: none. */
  readonly hears?: readonly DeclaredInput[]
  /**
   * Model entries the options name for the path (`option`: the option's name): checked once at
   * start against the host's model list (bounded), one warning naming those it lacks, which
   * StepContext.unknownModels then reports.
   */
  namesModels?(resolved: ResolvedOptions): { option: string; entries: readonly string[] }
  /** Tools of ours the path answers (the plugin registers them with the host): each call comes as a `called` input. */
  readonly tools?: readonly string[]
  /**
   * Rules for a finished turn, run with every other path's in priority order by the runtime's
   * passes (runtime/turn-pass.ts).
   */
  readonly turnRules?: readonly PathTurnRule<S>[]
  /**
   * Places among the finished-turn rules where the path's own step looks at the turn (a `turn`
   * input), for decisions that need the path's state, its context (StepContext), its effects and
   * its wakes; absent: none.
   */
  readonly turnSteps?: readonly TurnStep[]
  initial(): S
  /**
   * The path's state outlives a plugin reload (core/session-snapshot.ts carries it beside the
   * session record): it must be plain data, and one saved by another version is read back
   * through this, which answers undefined to start afresh. Absent: the state is not carried.
   */
  restore?(saved: unknown): S | undefined
  /**
   * Why the path keeps every recovery out of the session (a full context...): a fact mayAct
   * weighs (by "path"), unlike StepResult.hold, which is a recovery of the path's own under way
   * that ESC or another recovery ends. Asked on every mayAct: cheap, pure. `peers`: other
   * sessions as the path sees them (StepContext.peer), for a hold that comes from one (a subagent
   * waiting on the user holds its parent).
   */
  holds?(state: S, now: number, peers?: PeerLookup<unknown>): string | undefined
  /** What the path adds to the session's status (`/auto-resume status`); undefined: nothing. */
  status?(state: S): PathStatus | undefined
  /**
   * Whether every session the session's open subagent calls wait on has settled (run and ended,
   * or silent for good), so that those calls wait on nothing: the fact the orphan-parent
   * exception to the open-call guard needs (core/intervention.ts), asked by mayAct at the abort's
   * last moment. Pure. Absent: the path knows of no such wait.
   */
  waitedOnSettled?(state: S, ctx: StepContext): boolean
  /** The state waits on the host or the user past the idle sweep, which must not drop the session. */
  keeps?(state: S): boolean
  /** `undefined`: nothing changes (the state, the wake and the hold stay; no effect). */
  step(state: S, input: PathInput, ctx: StepContext): StepResult<S> | undefined
}

/** What a path may add to the session's status. */
export type PathStatus = Pick<SessionStatus, "rateLimitWait">

/** Where a path's step looks at a finished turn: the pass and its place among the rules (ascending). */
export type TurnStep = { name: string; pass: Pass; priority: number }

/** What a path's turn rule is handed beside the turn: its state for the session, and the host's tool names if it reads them. */
export type TurnInput<S> = {
  state: S
  tools: readonly string[] | undefined
  /** What readsContext asked for; absent when it was not asked for or a look-up failed. */
  context?: ModelContext
}

/**
 * A turn rule's answer: what it wants done (absent: no answer), the path's next state (absent:
 * unchanged), and, as a step would, effects of the path's own and its next wake (absent: unchanged).
 */
export type TurnAnswer<S> = { effect?: TurnEffect; state?: S; effects?: readonly PathEffect[]; wakeAt?: number }

/** A finished-turn rule of a path: pure, like its step; the runtime reads what it needs first. */
export type PathTurnRule<S> = {
  name: string
  pass: Pass
  /** Its place among the rules of the pass: ascending. */
  priority: number
  /**
   * The rule reads the host's tool names (TurnInput.tools): `true`, the runtime fetches them,
   * bounded and cached, before it decides; "cached", it is handed them only when the runtime
   * has them at hand (a rule that must not wait on the host, nor make a call of its own).
   */
  readsTools?: true | "cached"
  /**
   * The rule weighs a hand-off to the user itself (it recovers a malfunction, such as an answer
   * cut off at the output limit, before the closing text is read): it runs when the turn hands
   * over to the user, and every rule without this is skipped.
   */
  weighsHandOff?: true
  /**
   * The rule reads the model's context limits and whether magic-context is loaded
   * (TurnInput.context), when this says it needs them for the turn: the runtime looks them up,
   * bounded and cached, before it decides. Pure.
   */
  readsContext?(facts: TurnFacts, state: S): boolean
  decide(facts: TurnFacts, input: TurnInput<S>): TurnAnswer<S> | undefined
}

/** The list of paths, whatever each keeps. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPath = RecoveryPath<any>
