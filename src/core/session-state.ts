import type { TurnSetup } from "./port.ts"
import { newIntervention, type Intervention } from "./intervention.ts"
import type { TodoItem } from "./transcript.ts"
import type { FallbackEpisode } from "./fallback.ts"
import type { QuietEvents } from "./progress-ceiling.ts"

/**
 * `subagent`: the call is the host's subagent tool; "wait" when the parent blocks on the child
 * until it ends, "background" when it returns at once (2.x `background: true`) and the
 * parent carries on: that one is not a parent waiting on its child.
 */
export type OpenTool = { tool: string; startedAt: number; subagent?: "wait" | "background" }

export type RecoveryKind = "continue" | "abort+continue"

export type RecoveryRecord = {
  kind: RecoveryKind
  reason: string
  at: number
  /** The session's runEpoch when it was made: which run (or idle spell) it belongs to. */
  epoch: number
  /** The session's lastModelOutputAt when it was made: still equal means no output since. */
  outputAt: number
}

/** Hard caps so that no per-session collection can grow with a misbehaving host. */
export const MAX_OPEN_TOOLS_PER_SESSION = 64
export const MAX_AWAITING_KEYS_PER_SESSION = 32

/** Everything the core remembers about one session. Plain data; the engine mutates it. */
export type SessionState = {
  readonly id: string
  parentID?: string
  /**
   * The host deleted the parent: that session is over, and so is this one's link to it. The
   * parent stays the one first named, but the session is its child again only when the host
   * announces it under that id again (a new session there starts with no children).
   */
  parentDeleted: boolean
  busy: boolean
  /** When the current busy period began (0 when idle). */
  busySince: number
  /** Last host event of any kind for this session: transport liveness. */
  lastActivityAt: number
  /** Last sign the model itself produced something. */
  lastModelOutputAt: number
  /** Last semantic progress (output, a tool state change, a step, token growth): the progress ceiling's stamp. */
  lastProgressAt: number
  /**
   * When the host has said it will send the run's request again by itself (1.x retry status
   * `next`, 2.x `session.retry.scheduled`): until then the silence is its wait, not a stall.
   */
  hostRetryAt?: number
  /** Events since the last progress that were liveness only, by type (progress-ceiling.ts). */
  quietEvents?: QuietEvents
  /** Highest token total seen for `tokenMessageID`; only growth counts as liveness. */
  tokenHighWater: number
  tokenMessageID?: string
  /** Read-only: shared empty until the first tool opens (written through ownOpenTools). */
  openTools: ReadonlyMap<string, OpenTool>
  /** Open questions, permissions and forms, by key. Read-only: written through ownAwaiting. */
  awaiting: ReadonlySet<string>
  /** ESC latch: set by a user abort, lifted only by a genuine user message. */
  cancelledByUser: boolean
  /**
   * The message the user's newest revert went back to (a `reverted` signal): the host repeats
   * the session with its revert on every update, and only a new one is a new act of the user.
   */
  revertedTo?: string
  /** Completion latch (task_complete and friends), lifted by a genuine user message. */
  completed: boolean
  /** The agent/model of the last genuine user turn, reused by every continue. */
  setup: TurnSetup
  /** Continues in the current episode; an episode ends when the model produces output. */
  episodeRetries: number
  /** Timestamps of recent continues, for the hallucination-loop window. */
  recentContinues: readonly number[]
  /** Continues since the last genuine user message. */
  lifetimeContinues: number
  lastRecovery?: RecoveryRecord
  /** What of ours is in flight: the host call, a recovery under way, our last prompt and abort. */
  intervention: Intervention
  /** When the plugin first saw this session (its age gates action-intent nudges). */
  firstSeenAt: number
  /** Last genuine user message; idle nudges stand down while the user is recently active. */
  lastGenuineUserAt: number
  /** Latest todo list pushed by the host (v1 todo.updated); undefined when never seen. */
  todos?: TodoItem[]
  /** Idle nudges sent per feature since the last genuine user message. */
  featureCounts: ReadonlyMap<string, number>
  /** Bumped on every busy/idle transition: a pending judgement of an older epoch is void. */
  idleEpoch: number
  /** Runs the host reported starting (discovery's inferred busy is not one): the ladder's run identity. */
  runEpoch: number
  /** Open tool calls at the moment the session went idle (before reconciliation). */
  toolsInFlightAtIdle: number
  /** Consecutive discovery listings that did not show this busy session. */
  discoveryMisses?: number
  /** Set when the session leaves the table: a recovery still in flight must not act on it. */
  dropped?: boolean
  /** Log-once memory so a held stall does not flood the log. */
  lastHeldReason?: string
  lastSeenAt: number
  /** The session table's recency stamp: higher is more recently seen (session-table.ts). */
  seenOrder: number
  /**
   * A path asked to hear this session's model output as signals (the `watch-output` effect,
   * PathInput `signal`). Set, never cleared: the state's lifetime is the longest any path keeps a session.
   */
  outputWatched: boolean
  /** A fallback model took over from the user's (fallback.ts); cleared by a genuine user message. */
  fallback?: FallbackEpisode
  /**
   * Each recovery path's own state, at the path's place in the runtime's list (runtime/paths.ts
   * keeps it; only the path reads what is inside; a path that never answered has no entry). An
   * array, not a map by name: a fraction of a map's memory per session, and no hash per step.
   * Never carried across a reload: it holds the path's timers.
   */
  paths: unknown[]
}

/**
 * The empty collections every new session starts with, shared: most sessions never open a tool
 * through us, await an answer or get a nudge, and an empty map or set is still about 40 bytes
 * (issue 28: bytes per watched session). The fields are typed read-only, so the compiler sends
 * every write through the functions below, which put a session's own collection in first.
 */
export const NO_OPEN_TOOLS: ReadonlyMap<string, OpenTool> = new Map()
export const NOTHING_AWAITED: ReadonlySet<string> = new Set()
export const NO_CONTINUES: readonly number[] = Object.freeze([])
export const NO_FEATURE_COUNTS: ReadonlyMap<string, number> = new Map()

/** The session's own map of open tools, made on the first write. */
export function ownOpenTools(state: SessionState): Map<string, OpenTool> {
  if (state.openTools === NO_OPEN_TOOLS) state.openTools = new Map()
  return state.openTools as Map<string, OpenTool>
}

/** The session's own set of awaited keys, made on the first write. */
export function ownAwaiting(state: SessionState): Set<string> {
  if (state.awaiting === NOTHING_AWAITED) state.awaiting = new Set()
  return state.awaiting as Set<string>
}

/** One more nudge of `feature` since the last genuine user message. */
export function countFeature(state: SessionState, feature: string): void {
  const counts = state.featureCounts === NO_FEATURE_COUNTS ? new Map<string, number>() : (state.featureCounts as Map<string, number>)
  counts.set(feature, (counts.get(feature) ?? 0) + 1)
  state.featureCounts = counts
}

export function newSessionState(id: string, now: number): SessionState {
  // Every field, optional ones included, is present from the start: one object shape for all
  // sessions keeps the per-event property reads monomorphic (the streaming hot path).
  return {
    id,
    parentID: undefined,
    tokenMessageID: undefined,
    lastRecovery: undefined,
    todos: undefined,
    discoveryMisses: undefined,
    dropped: undefined,
    lastHeldReason: undefined,
    outputWatched: false,
    parentDeleted: false,
    fallback: undefined,
    quietEvents: undefined,
    revertedTo: undefined,
    paths: [],
    busy: false,
    busySince: 0,
    lastActivityAt: now,
    lastModelOutputAt: 0,
    lastProgressAt: 0,
    tokenHighWater: 0,
    openTools: NO_OPEN_TOOLS,
    awaiting: NOTHING_AWAITED,
    cancelledByUser: false,
    completed: false,
    setup: {},
    episodeRetries: 0,
    recentContinues: NO_CONTINUES,
    lifetimeContinues: 0,
    intervention: newIntervention(),
    firstSeenAt: now,
    lastGenuineUserAt: 0,
    featureCounts: NO_FEATURE_COUNTS,
    idleEpoch: 0,
    runEpoch: 0,
    toolsInFlightAtIdle: 0,
    lastSeenAt: now,
    seenOrder: 0,
  }
}

/** Names its run and the model's last output by value, so "this run, nothing since" holds whatever the clock did. */
export function recoveryRecord(state: SessionState, kind: RecoveryKind, reason: string, at: number): RecoveryRecord {
  return { kind, reason, at, epoch: state.runEpoch, outputAt: state.lastModelOutputAt }
}

/** How long a prompt must wait so that it keeps `injectIntervalMs` from the previous one the host took (actions.ts spacingWait; read by paths too). */
export function promptSpacing(state: Readonly<SessionState>, injectIntervalMs: number, now: number): number {
  const acceptedAt = state.intervention.prompt.acceptedAt
  if (acceptedAt === undefined) return 0
  return Math.max(0, acceptedAt + injectIntervalMs - now)
}
