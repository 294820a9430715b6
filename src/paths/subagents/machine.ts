/**
 * Parents and their subagents, as a pure state machine per parent session.
 *
 *  - ORPHAN PARENT: a child finished (or crashed) but its busy parent still holds the subagent
 *    call open and never picks the result up (a 2.x background call is no wait). Keyed on the
 *    condition (parent busy, subagent call open, no child busy), not on the busy-count drop, so
 *    a missed event or a reload cannot hide an orphan. Requiring the open call keeps a parent
 *    that got its result and is merely slow to answer on the ordinary stall path.
 *      orphan-wait   wait `subagentWaitMs + gracePeriodMs`;
 *      child-probed  nudge a crashed child (not cancelled by the user) once, wait `subagentWaitMs`;
 *      resumed       abort + resume the parent, once per busy period.
 *
 *  - STUCK SUBAGENT: a quiet busy child gets one recovery prompt per busy period of the parent,
 *    and never again before it has shown a turn of its own (a second identical prompt would
 *    only queue behind the first). Silent for `subagentDeadMs` it reads as dead and a parent
 *    blocked on it is aborted and resumed. A child waiting on the user is never nudged.
 *
 * Any parent activity after a wait started means the parent is alive: back to watching.
 */
import type { Options } from "../../options/index.ts"
import type { EffectOf } from "../../core/effect.ts"
import { buildCrashedSubagentPrompt, buildStuckSubagentPrompt } from "./prompt.ts"

/** No new child output for this long reads as stuck... */
export const STUCK_CHILD_MS = 60_000
/** ...or this long while the child runs a tool. */
export const STUCK_CHILD_TOOL_MS = 180_000
/** Children remembered as already nudged, per parent. */
const MAX_NUDGED = 64

export type ChildFacts = {
  id: string
  /** idle: finished normally; error: the last turn ended in an error. */
  status: "busy" | "idle" | "error"
  /** Last new model output (text or reasoning) of the child, or its creation or last prompt when later. */
  lastOutputAt: number
  toolInProgress: boolean
  awaitingUser: boolean
  /** The user stopped this child (ESC): never nudged. */
  cancelledByUser: boolean
  /** The child's own turns; only its changes matter: a nudge stays unanswered until it moves. */
  turns: number
}

export type ParentFacts = {
  busy: boolean
  /** Last host event of any kind for the parent. */
  lastActivityAt: number
  openTools: readonly string[]
  awaitingUser: boolean
  /** ESC latch, pause, or completion latch: the plugin must not touch the session. */
  blocked: boolean
  children: readonly ChildFacts[]
}

export type OrphanBudgets = Pick<Options, "subagentWaitMs" | "gracePeriodMs" | "subagentDeadMs"> & {
  stuckChildMs?: number
  stuckChildToolMs?: number
  /** The names of the parent's open calls that wait on a subagent (apply-signal.ts marks them from HostPort.subagentTools). */
  subagentToolNames: readonly string[]
}

export type OrphanPhase = "watching" | "orphan-wait" | "child-probed" | "child-nudged" | "resumed"

export type OrphanState = {
  phase: OrphanPhase
  /** When the current wait began: parent activity after it cancels the wait. */
  since: number
  deadline: number
  /** Children already nudged during this busy period of the parent (each at most once). */
  nudged: readonly string[]
  /** Nudges the child has not answered with a turn yet; kept across the parent's busy periods. */
  unanswered: readonly Nudge[]
}

export type Nudge = { id: string; turns: number }

export const INITIAL_ORPHAN_STATE: OrphanState = { phase: "watching", since: 0, deadline: 0, nudged: [], unanswered: [] }

export type OrphanEffect = EffectOf<"none" | "abort-continue"> | (EffectOf<"nudge"> & { sessionID: string })

export type OrphanStep = { state: OrphanState; effect: OrphanEffect; wakeAt?: number }

type ChildVerdict = "active" | "awaiting-user" | "stuck" | "dead" | "crashed" | "finished"

/** A child that has run and ended, or one silent past subagentDeadMs: neither will answer its parent's call. */
export function childSettled(child: ChildFacts, now: number, budgets: OrphanBudgets): boolean {
  const verdict = classifyChild(child, now, budgets)
  return verdict === "finished" || verdict === "crashed" || verdict === "dead"
}

export function classifyChild(child: ChildFacts, now: number, budgets: OrphanBudgets): ChildVerdict {
  if (child.status === "busy") {
    if (child.awaitingUser) return "awaiting-user"
    const quiet = now - child.lastOutputAt
    const limit = child.toolInProgress ? (budgets.stuckChildToolMs ?? STUCK_CHILD_TOOL_MS) : (budgets.stuckChildMs ?? STUCK_CHILD_MS)
    if (quiet < limit) return "active"
    return quiet >= budgets.subagentDeadMs ? "dead" : "stuck"
  }
  if (child.status === "error" && !child.cancelledByUser) return "crashed"
  return "finished"
}

function none(state: OrphanState, reason: string, wakeAt?: number): OrphanStep {
  return wakeAt === undefined ? { state, effect: { kind: "none", reason } } : { state, effect: { kind: "none", reason }, wakeAt }
}

function nudge(child: ChildFacts, cause: "stuck" | "crashed", text: string, reason: string): OrphanEffect {
  return { kind: "nudge", sessionID: child.id, text, sendKind: "correction", feature: `subagent-${cause}`, reason }
}

function watching(state: OrphanState): OrphanState {
  return state.phase === "watching" ? state : { ...state, phase: "watching", since: 0, deadline: 0 }
}

function capped<T>(list: T[]): T[] {
  return list.length > MAX_NUDGED ? list.slice(list.length - MAX_NUDGED) : list
}

function withNudged(state: OrphanState, child: ChildFacts): Pick<OrphanState, "nudged" | "unanswered"> {
  return {
    nudged: capped([...state.nudged, child.id]),
    unanswered: capped([...state.unanswered.filter((n) => n.id !== child.id), { id: child.id, turns: child.turns }]),
  }
}

/**
 * The nudge reached the child: its turns are counted from here. A turn the child took while the
 * prompt was still on its way (the host slow to accept it) was no answer to it.
 */
export function nudgeDelivered(state: OrphanState, childID: string, turns: number): OrphanState {
  return { ...state, unanswered: capped([...state.unanswered.filter((n) => n.id !== childID), { id: childID, turns }]) }
}

/** A child nudged this busy period, or nudged earlier and silent (no turn of its own) since. */
function alreadyNudged(state: OrphanState, child: ChildFacts): boolean {
  return state.nudged.includes(child.id) || state.unanswered.some((n) => n.id === child.id && n.turns === child.turns)
}

function stillUnanswered(state: OrphanState, children: readonly ChildFacts[]): OrphanState {
  const kept = state.unanswered.filter((n) => children.some((c) => c.id === n.id && c.turns === n.turns))
  return kept.length === state.unanswered.length ? state : { ...state, unanswered: kept }
}

export function nextOrphanStep(prev: OrphanState, facts: ParentFacts, now: number, budgets: OrphanBudgets): OrphanStep {
  const state = stillUnanswered(prev, facts.children)
  // A parent that is idle (or one the plugin may not touch) starts over, but the nudges its
  // children have not answered yet stay: only the child's own turn makes another one worth it.
  const restart: OrphanState = { ...INITIAL_ORPHAN_STATE, unanswered: state.unanswered }
  if (!facts.busy) return none(restart, "parent is not busy")
  if (facts.blocked) return none(restart, "parent is cancelled, paused or completed")
  if (state.phase !== "watching" && facts.lastActivityAt > state.since) {
    return nextOrphanStep({ ...state, phase: "watching", since: 0, deadline: 0 }, facts, now, budgets)
  }
  if (state.phase === "resumed") return none(state, "parent already aborted and resumed this busy period")
  if (facts.children.length === 0) return none(watching(state), "parent has no subagents")

  const subagentTools = new Set(budgets.subagentToolNames.map((t) => t.toLowerCase()))
  let subagentCallOpen = false
  for (const tool of facts.openTools) {
    if (!subagentTools.has(tool.toLowerCase())) return none(watching(state), `parent has a tool in flight (${tool})`)
    subagentCallOpen = true
  }
  if (facts.awaitingUser) return none(watching(state), "parent is waiting on the user")

  const verdicts = facts.children.map((child) => ({ child, verdict: classifyChild(child, now, budgets) }))
  const stuckLimit = (c: ChildFacts) => (c.toolInProgress ? (budgets.stuckChildToolMs ?? STUCK_CHILD_TOOL_MS) : (budgets.stuckChildMs ?? STUCK_CHILD_MS))

  // 1. A running child (or one asking its user something): leave the parent alone.
  const running = verdicts.filter((v) => v.verdict === "active" || v.verdict === "awaiting-user")
  if (running.length > 0) {
    const wakes = running.filter((v) => v.verdict === "active").map((v) => v.child.lastOutputAt + stuckLimit(v.child))
    return none(watching(state), "a subagent is still running", wakes.length ? Math.min(...wakes) : undefined)
  }

  // 2. A stuck child gets one recovery prompt before anything happens to the parent.
  const stuck = verdicts.filter((v) => v.verdict === "stuck")
  const toNudge = stuck.find((v) => !alreadyNudged(state, v.child))
  if (toNudge) {
    const quiet = now - toNudge.child.lastOutputAt
    return {
      state: { phase: "child-nudged", since: now, deadline: toNudge.child.lastOutputAt + budgets.subagentDeadMs, ...withNudged(state, toNudge.child) },
      effect: nudge(
        toNudge.child,
        "stuck",
        buildStuckSubagentPrompt(quiet / 1000, toNudge.child.toolInProgress),
        `subagent quiet for ${Math.round(quiet / 1000)}s${toNudge.child.toolInProgress ? " with a tool running" : ""}`,
      ),
      wakeAt: toNudge.child.lastOutputAt + budgets.subagentDeadMs,
    }
  }
  // 3. Nudged and still quiet, but not yet dead: wait (subagentDeadMs bounds the wait).
  if (stuck.length > 0) {
    const deadAt = Math.min(...stuck.map((v) => v.child.lastOutputAt + budgets.subagentDeadMs))
    const base = state.phase === "child-nudged" ? state : { ...state, phase: "child-nudged" as const, since: now, deadline: deadAt }
    return none(base, "waiting on a quiet subagent (not dead yet)", deadAt)
  }

  if (!subagentCallOpen) return none(watching(state), "no subagent call open in the parent")

  // 4. A dead child: its runner is hung, a prompt would only queue. Abort + resume the parent.
  const dead = verdicts.find((v) => v.verdict === "dead")
  if (dead) {
    return {
      state: { ...state, phase: "resumed", since: now, deadline: 0 },
      effect: {
        kind: "abort-continue",
        reason: `subagent ${dead.child.id} silent for ${Math.round((now - dead.child.lastOutputAt) / 1000)}s (past subagentDeadMs)`,
      },
    }
  }

  // 5. Orphan: every child is done, the parent still holds the call open.
  if (state.phase !== "orphan-wait" && state.phase !== "child-probed") {
    const deadline = now + budgets.subagentWaitMs + budgets.gracePeriodMs
    return none({ ...state, phase: "orphan-wait", since: now, deadline }, "subagents finished; waiting for the parent to pick up", deadline)
  }
  if (now < state.deadline) return none(state, "waiting for the parent to pick up", state.deadline)
  if (state.phase === "orphan-wait") {
    const crashed = verdicts.find((v) => v.verdict === "crashed" && !alreadyNudged(state, v.child))
    if (crashed) {
      const deadline = now + budgets.subagentWaitMs
      return {
        state: { ...state, phase: "child-probed", deadline, ...withNudged(state, crashed.child) },
        effect: nudge(crashed.child, "crashed", buildCrashedSubagentPrompt(), "subagent ended in an error and the parent is still waiting"),
        wakeAt: deadline,
      }
    }
  }
  return {
    state: { ...state, phase: "resumed", deadline: 0 },
    effect: {
      kind: "abort-continue",
      reason: `parent still waiting ${Math.round((now - state.since) / 1000)}s after its subagents finished`,
    },
  }
}
