/**
 * How one signal changes a session's state: busy/idle transitions, liveness, model output,
 * tools, the user's messages and aborts. Kept apart from the engine so the engine is only
 * lifecycle and routing; the rules each recovery path adds live in its step (src/paths/).
 */
import type { Signal } from "./port.ts"
import type { EngineContext } from "./context.ts"
import type { FinishedTurn } from "../runtime/turn-pass.ts"
import { MAX_AWAITING_KEYS_PER_SESSION, MAX_OPEN_TOOLS_PER_SESSION, NO_CONTINUES, NO_FEATURE_COUNTS, NO_OPEN_TOOLS, NOTHING_AWAITED, ownAwaiting, ownOpenTools, type OpenTool, type SessionState } from "./session-state.ts"
import { boundedSet } from "./bounded.ts"
import { cancelRecovery, interruptionWasOurs, note } from "./intervention.ts"
import { noteQuietEvent } from "./progress-ceiling.ts"

const MOVED_ON = { type: "runMovedOn" } as const

/**
 * What a signal said about the run, for the stall deadline (the paths' liveness input, runtime/path.ts):
 * "live" when it stamped the session as active, "ended" when the run is over for the deadline.
 */
export type Liveness = "live" | "ended" | undefined

export function applySignal(ctx: EngineContext, idle: FinishedTurn, state: SessionState, signal: Signal, now: number): Liveness {
  // Model output never comes here: the engine stamps it on its own short path (noteModelOutput).
  switch (signal.type) {
    case "activity":
      if (signal.progress === true) state.lastProgressAt = now
      else noteQuietEvent(state, signal.event ?? "activity")
      return touch(state, now)
    case "retryScheduled":
      // The host retrying by itself is its wait, not a run without progress: the ceiling starts
      // over, and the watchdog leaves the silence alone until the retry is due.
      state.lastProgressAt = now
      state.hostRetryAt = signal.retryInMs !== undefined && Number.isFinite(signal.retryInMs) && signal.retryInMs > 0 ? now + signal.retryInMs : undefined
      return touch(state, now)
    case "error":
      // A failed run's tool calls are over: a next run reusing a call id must not inherit them.
      state.openTools = NO_OPEN_TOOLS
      note(state.intervention, MOVED_ON, now)
      noteQuietEvent(state, "error")
      return touch(state, now)
    case "usage":
      return noteUsage(state, signal.tokens, signal.messageID, now)
    case "busy":
      if (!state.busy) markBusy(idle, state, now, signal.inferred === true)
      else noteQuietEvent(state, "status busy")
      return touch(state, now)
    case "idle":
      state.hostRetryAt = undefined
      markIdle(ctx, idle, state)
      return "ended"
    case "toolStart":
      if (!state.busy) markBusy(idle, state, now)
      if (!state.openTools.has(signal.callID)) {
        const open: OpenTool = { tool: signal.tool, startedAt: now }
        const subagent = subagentCallKind(signal.tool, signal.args, ctx.port.subagentTools)
        if (subagent) open.subagent = subagent
        boundedSet(ownOpenTools(state), signal.callID, open, MAX_OPEN_TOOLS_PER_SESSION)
      }
      return noteModelOutput(state, now)
    case "toolEnd":
      if (state.openTools.has(signal.callID)) ownOpenTools(state).delete(signal.callID)
      note(state.intervention, MOVED_ON, now)
      // A tool state change is progress; not model output, so the stall episode goes on.
      state.lastProgressAt = now
      return touch(state, now)
    case "userMessage":
      if (signal.genuine) genuineUserTurn(ctx, state, signal.setup)
      else note(state.intervention, { type: "ownPromptShown" }, now)
      noteQuietEvent(state, "user message")
      return touch(state, now)
    case "interrupted":
      return interrupted(ctx, idle, state, signal, now)
    case "reverted":
      return reverted(ctx, idle, state, signal, now)
    case "turnSetup":
      state.setup = mergeSetup(state.setup, signal.setup)
      return undefined
    case "sessionCreated":
      // A session's parent never changes on the host: the first one named stays, so a malformed
      // re-parenting cannot put a child under two parents that each nudge it. A session named
      // as its own parent is no subagent: it would orphan itself.
      if (signal.parentID && !state.parentID && signal.parentID !== state.id) state.parentID = signal.parentID
      // Announced under its parent's id again: it is the child of the session there now.
      if (signal.parentID !== undefined && signal.parentID === state.parentID) state.parentDeleted = false
      return undefined
    case "todos":
      state.todos = signal.todos.slice(0, 200)
      noteQuietEvent(state, "todos")
      return touch(state, now)
    case "compaction":
      // The host writing its summary is progress, though no model output of the session's own.
      state.lastProgressAt = now
      return touch(state, now)
    case "awaitingUser":
      if (signal.open) {
        if (state.awaiting.size < MAX_AWAITING_KEYS_PER_SESSION) ownAwaiting(state).add(signal.key)
      } else if (state.awaiting.has(signal.key)) ownAwaiting(state).delete(signal.key)
      noteQuietEvent(state, "question or permission")
      return touch(state, now)
  }
  return undefined
}


function touch(state: SessionState, now: number): "live" {
  state.lastActivityAt = now
  return "live"
}

/** New model output: every stamp moves, and the stall episode is over. */
export function noteModelOutput(state: SessionState, now: number): "live" {
  state.lastModelOutputAt = now
  state.lastProgressAt = now
  // The run moving on only ends an answered abort: with none on record there is nothing to note.
  if (state.intervention.abort !== undefined) note(state.intervention, MOVED_ON, now)
  // The model is producing again: the current stall episode is over.
  state.episodeRetries = 0
  state.lastHeldReason = undefined
  return touch(state, now)
}

/** Token growth is progress; a repeated, flat total is not even liveness. */
function noteUsage(state: SessionState, tokens: number, messageID: string | undefined, now: number): Liveness {
  if (!Number.isFinite(tokens)) return undefined
  if (messageID !== undefined && messageID !== state.tokenMessageID) {
    state.tokenMessageID = messageID
    state.tokenHighWater = tokens
    // A new assistant message is a step of the run: progress, though no output yet.
    state.lastProgressAt = now
    return touch(state, now)
  }
  if (tokens <= state.tokenHighWater) return undefined
  state.tokenHighWater = tokens
  return noteModelOutput(state, now)
}

function markBusy(idle: FinishedTurn, state: SessionState, now: number, inferred = false): void {
  state.busy = true
  state.busySince = now
  note(state.intervention, MOVED_ON, now)
  state.idleEpoch++
  // Discovery finding a session running again, with no word from the host, is the same run the
  // host never reported over: the ladder must still see the continue it got as unanswered.
  if (!inferred) state.runEpoch++
  note(state.intervention, { type: "runStarted" }, now)
  idle.cancel(state)
}

function markIdle(ctx: EngineContext, idle: FinishedTurn, state: SessionState): void {
  const wasBusy = state.busy
  if (wasBusy) {
    state.idleEpoch++
    state.toolsInFlightAtIdle = state.openTools.size
  }
  state.busy = false
  state.busySince = 0
  note(state.intervention, MOVED_ON, ctx.time.now())
  // A lost tool.execute.after must not pin the next turn to the tool budget.
  if (state.openTools.size > 0) {
    ctx.logger.log("debug", `session ${state.id}: idle with ${state.openTools.size} open tool call(s); reconciled`)
  }
  // The shared empty collections rather than clear(): a Map or Set that held entries keeps its
  // storage after clear(), and idle sessions are what the table keeps by the hundred (bench/memory.ts).
  state.openTools = NO_OPEN_TOOLS
  state.awaiting = NOTHING_AWAITED
  // A stall recovery in progress (abort, then continue) owns this idle; judging it too
  // would stack a second prompt on the first. It may be what that recovery waits for.
  if (state.intervention.underWay) note(state.intervention, { type: "runEnded" }, ctx.time.now())
  else idle.start(state)
}

function genuineUserTurn(ctx: EngineContext, state: SessionState, setup: SessionState["setup"] | undefined): void {
  if (state.cancelledByUser || state.completed || state.lifetimeContinues > 0) {
    ctx.logger.log("debug", `session ${state.id}: genuine user message; budgets and latches re-armed`)
  }
  state.lastGenuineUserAt = ctx.time.now()
  note(state.intervention, { type: "userTookOver" }, ctx.time.now())
  state.featureCounts = NO_FEATURE_COUNTS
  state.cancelledByUser = false
  state.completed = false
  state.episodeRetries = 0
  state.lifetimeContinues = 0
  state.recentContinues = NO_CONTINUES
  state.lastRecovery = undefined
  state.lastHeldReason = undefined
  state.awaiting = NOTHING_AWAITED
  if (setup) state.setup = mergeSetup(state.setup, setup)
  cancelRecovery(state.intervention)
}

function interrupted(ctx: EngineContext, idle: FinishedTurn, state: SessionState, signal: Extract<Signal, { type: "interrupted" }>, now: number): Liveness {
  const whose = interruptionWasOurs(state.intervention, signal.byUser, now)
  // The run's tool calls ended with it, when it was interrupted: a verdict that comes later
  // must not end the calls of a run that started since.
  if (!signal.settledLate) state.openTools = NO_OPEN_TOOLS
  if (whose === "ours" || whose === "other") {
    ctx.logger.log("debug", `session ${state.id}: abort observed (${whose === "ours" ? "ours" : "not the user's"})`)
    return undefined
  }
  if (whose === "undecided") {
    // The run is over either way; whether the user stopped it is settled by our abort's answer.
    idle.cancel(state)
    ctx.logger.log("debug", `session ${state.id}: interrupted while our abort is unanswered; ours if the host accepts it`)
    return "ended"
  }
  userTookHand(ctx, idle, state, "cancelled by the user")
  return "ended"
}

/** Longest message id kept: an id is short; a host that sends more is not believed further. */
const MAX_REVERT_ID = 200

/**
 * A revert staged is the user's own hand, the same fact as ESC (the latch a genuine user message
 * lifts): the reverted turn is not judged, nothing pending for it goes out, nothing until they
 * write. The messages leaving the history later only void a judgement still pending: the host
 * removes them as the user's next message goes in, and a latch set then would outlive it.
 */
function reverted(ctx: EngineContext, idle: FinishedTurn, state: SessionState, signal: Extract<Signal, { type: "reverted" }>, now: number): Liveness {
  noteQuietEvent(state, "revert")
  const messageID = signal.messageID?.slice(0, MAX_REVERT_ID)
  if (!messageID) {
    ctx.logger.log("debug", `session ${state.id}: a revert (${signal.phase}) that names no message; skipped`)
    return touch(state, now)
  }
  if (signal.phase === "removed") {
    idle.cancel(state)
    ctx.logger.log("debug", `session ${state.id}: message ${messageID} left the history; no judgement of its turn`)
    return touch(state, now)
  }
  if (state.revertedTo !== messageID) {
    state.revertedTo = messageID
    userTookHand(ctx, idle, state, `the user reverted the session to message ${messageID}`)
  }
  return touch(state, now)
}

/** The user took the session in hand (ESC, a revert): nothing of ours under way or pending goes on, nothing until they write. */
function userTookHand(ctx: EngineContext, idle: FinishedTurn, state: SessionState, what: string): void {
  state.cancelledByUser = true
  cancelRecovery(state.intervention)
  idle.cancel(state)
  ctx.logger.log("info", `session ${state.id}: ${what}; standing down until the next user message`)
}

/** Newer agent/model facts win; a missing one never erases what is known. */
function mergeSetup(known: SessionState["setup"], update: SessionState["setup"]): SessionState["setup"] {
  return { agent: update.agent ?? known.agent, model: update.model ?? known.model }
}

/**
 * Whether a call of `tool` waits on a subagent: the host's subagent tool (`names`, HostPort.subagentTools)
 * is a wait on the child, but a 2.x call with input `background: true` returns at once.
 */
export function subagentCallKind(tool: string, args: unknown, names: readonly string[]): OpenTool["subagent"] {
  const lower = tool.toLowerCase()
  if (!names.some((n) => n.toLowerCase() === lower)) return undefined
  const background = typeof args === "object" && args !== null && (args as { background?: unknown }).background === true
  return background ? "background" : "wait"
}
