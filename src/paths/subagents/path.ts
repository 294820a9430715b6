/**
 * Subagents as one path: a parent that waits forever on children that already finished (or
 * died), and children that went quiet. The machine (machine.ts) decides for one parent at a
 * time; this step gathers its facts. Each session's state holds what the path knows of it as a
 * child (whether it ran, whether its last turn failed, when it was last heard of, its turns) and,
 * as a parent, its children and the machine's state. A child's signal tells its parent's step
 * to look again (a `tell` effect); a nudge goes to the child (an `act` naming it), and how it
 * went comes back to the parent as an `effectSettled` input.
 */
import type { Signal, SignalType } from "../../core/port.ts"
import type { SessionState } from "../../core/session-state.ts"
import { actionName, journalTag } from "../../core/journal-effects.ts"
import type { PathEffect, Peer, RecoveryPath, StepContext, StepResult } from "../../runtime/path.ts"
import { INITIAL_ORPHAN_STATE, childSettled, nextOrphanStep, nudgeDelivered, type ChildFacts, type OrphanBudgets, type OrphanEffect, type OrphanState, type ParentFacts } from "./machine.ts"
import { orphanParentReason } from "./prompt.ts"

/**
 * Signals that can change a parent's verdict, plus the user message that counts as a child's
 * turn; streaming deltas are deliberately not among them (a child's output is read off its
 * stamps when its facts are taken).
 */
const SIGNALS: readonly SignalType[] = ["busy", "idle", "toolStart", "toolEnd", "error", "interrupted", "awaitingUser", "sessionCreated", "userMessage"]
const MAX_CHILDREN_PER_PARENT = 64
/** Levels of subagents below a parent that are looked through for one waiting on the user. */
const MAX_NESTING = 4
/** Nudges whose outcome the parent still waits to hear, at most (one per child it may nudge). */
const MAX_NUDGES_OUT = MAX_CHILDREN_PER_PARENT

/** What the path knows of a session as a subagent (kept for every session: any may turn out to be one). */
type AsChild = {
  /** It linked itself to its parent: its parent lists it, or finds it once tracked (childrenOf). */
  linked: boolean
  /** It was seen busy at least once: one that never ran yet is starting, not finished. */
  started: boolean
  /** Its last turn ended in an error (cleared when it runs again). */
  errored: boolean
  /** When it was linked, or last had a turn of its own: its silence is counted from there at the earliest. */
  heardAt: number
  /** Its turn signals so far (a tool ended, an interruption, a message of the user's). */
  turnSignals: number
  /** Its run stamp (idleEpoch) at its last signal, for whether a run started or ended since. */
  epoch?: number
}

export type SubagentsState = {
  child: AsChild
  /** Its subagents by id, in the order they were linked; undefined until it first looked for them. */
  children?: readonly string[]
  /** The machine for this session as a parent. */
  orphan: OrphanState
  /** The machine as though the parent were free, kept only while it is blocked (held below). */
  unblocked?: OrphanState
  /** The wake the machine asked for. */
  wakeAt?: number
  /** Nudges out, by effect id, and the child each went to. */
  nudges: readonly { id: number; child: string }[]
  lastNudgeId: number
}

const INITIAL: SubagentsState = {
  child: { linked: false, started: false, errored: false, heardAt: 0, turnSignals: 0 },
  orphan: INITIAL_ORPHAN_STATE,
  nudges: [],
  lastNudgeId: 0,
}

type Step = StepResult<SubagentsState>
type Related = Peer<SubagentsState>
/** Other sessions as this path sees them (the runtime keeps this path's state for each). */
type RelatedLookup = (sessionID: string) => Related | undefined

/** Another session and this path's state for it, through the step's context. */
function related(ctx: StepContext, sessionID: string): Related | undefined {
  return ctx.peer?.(sessionID) as Related | undefined
}

export const subagentsPath: RecoveryPath<SubagentsState> = {
  name: "subagents",
  signals: SIGNALS,
  initial: () => INITIAL,
  holds(state, _now, peers) {
    const waiting = peers && childAwaitingUser(state.children, peers as RelatedLookup, 0)
    return waiting ? `subagent ${waiting} is waiting for the user` : undefined
  },
  waitedOnSettled(state, ctx) {
    // A child no longer tracked will not answer either.
    const budgets = budgetsOf(ctx)
    return (state.children ?? []).every((id) => {
      const child = related(ctx, id)
      // Whether a child is settled does not depend on its turns.
      return !child || childSettled(childFacts(child), ctx.now, budgets)
    })
  },
  step(state, input, ctx) {
    switch (input.type) {
      case "signal":
        return onSignal(state, input.signal, ctx)
      case "told": {
        const children = childrenOf(state, ctx)
        const from = related(ctx, input.from)
        const joins = from !== undefined && !children.includes(input.from) && children.length < MAX_CHILDREN_PER_PARENT && isLinkedChild(from, ctx.session.id)
        const next = { ...state, children: joins ? [...children, input.from] : children }
        return asParent(next, ctx) ?? unchanged(next)
      }
      case "wake":
        return evaluate({ ...state, children: childrenOf(state, ctx) }, ctx)
      case "effectSettled":
        return nudgeSettled(state, input.id, input.outcome.kind === "delivered" && input.outcome.outcome === "ok", ctx)
      default:
        return undefined
    }
  },
}

/**
 * Signals that are a turn of the session whatever its state: model output and run starts/ends
 * are read off its stamps instead (turnsOf). A session error is left out: the idle that follows
 * a run-ending error moves the run stamps, and an error alone may be a late repeat.
 */
function isTurnSignal(signal: Signal): boolean {
  return signal.type === "toolEnd" || signal.type === "interrupted" || (signal.type === "userMessage" && signal.genuine)
}

/**
 * A figure that moves on every turn of the child and on nothing else: new model output (text, a
 * tool call, token growth move lastModelOutputAt), a run starting or ending (idleEpoch), or a
 * turn signal. All three only grow, so the sum moves exactly when one of them does. Our own
 * prompt showing up is none of these, so the child's answer to a nudge is what counts, not the
 * nudge's echo. Only whether it moved matters.
 */
function turnsOf(session: Readonly<SessionState>, child: AsChild): number {
  return child.turnSignals + session.idleEpoch + session.lastModelOutputAt
}

function onSignal(state: SubagentsState, signal: Signal, ctx: StepContext): Step | undefined {
  const session = ctx.session
  let child = state.child
  if (session.parentID) {
    // A run that started or ended, or a turn signal, is heard now. New output needs no stamp of
    // its own here: the child's silence is counted from its lastModelOutputAt anyway, and output
    // streamed since its last signal is no news of this moment.
    const ranOrEnded = child.epoch !== undefined && child.epoch !== session.idleEpoch
    const turn = isTurnSignal(signal)
    child = { ...child, epoch: session.idleEpoch, turnSignals: child.turnSignals + (turn ? 1 : 0), heardAt: ranOrEnded || turn ? ctx.now : child.heardAt }
  }
  // A user message only counts as a child's turn; it does not change a parent's verdict.
  if (signal.type === "userMessage") return child === state.child ? undefined : unchanged({ ...state, child })
  if (signal.type === "error") child = { ...child, errored: true }
  else if (signal.type === "busy" || signal.type === "toolStart") child = { ...child, errored: false, started: child.started || session.parentID !== undefined }
  const effects: PathEffect[] = []
  const parentID = session.parentID
  if (parentID) {
    // A child back from a sweep (its parent link kept by the session table) is linked again;
    // one whose parent was deleted is not, until the host announces it under that id again.
    if (!session.parentDeleted && (signal.type === "sessionCreated" || !child.linked)) {
      const parent = related(ctx, parentID)
      const listed = parent?.state.children
      // A parent not tracked, or not yet looking for its children, finds this one when it does.
      if (!listed || listed.includes(session.id) || listed.length < MAX_CHILDREN_PER_PARENT) child = { ...child, linked: true, heardAt: ctx.now }
    }
    effects.push({ kind: "tell", session: parentID })
  }
  const next = { ...state, child, children: childrenOf(state, ctx) }
  const own = asParent(next, ctx)
  return own ? { ...own, effects: [...effects, ...own.effects] } : { ...unchanged(next), effects }
}

/** The session's children: those it lists, or (the first time it looks) the tracked sessions that linked themselves to it. */
function childrenOf(state: SubagentsState, ctx: StepContext): readonly string[] {
  if (state.children) return state.children
  const found: string[] = []
  for (const peer of (ctx.tracked?.() ?? []) as Iterable<Related>) {
    if (found.length >= MAX_CHILDREN_PER_PARENT) break
    if (isLinkedChild(peer, ctx.session.id)) found.push(peer.session.id)
  }
  return found
}

function isLinkedChild(peer: Related, parentID: string): boolean {
  return peer.session.parentID === parentID && !peer.session.parentDeleted && peer.state.child.linked
}

/** The session's look as a parent, when it is one (or the machine still has something of its own under way). */
function asParent(state: SubagentsState, ctx: StepContext): Step | undefined {
  const busyMachine = state.orphan.phase !== "watching" || state.wakeAt !== undefined
  return (state.children?.length ?? 0) > 0 || busyMachine ? evaluate(state, ctx) : undefined
}

function unchanged(state: SubagentsState): Step {
  return { state, effects: [], wakeAt: state.wakeAt }
}

function budgetsOf(ctx: StepContext, parent?: Readonly<SessionState>): OrphanBudgets {
  const options = ctx.options()
  // The parent's open calls that wait on a child, as apply-signal.ts marked them (HostPort.subagentTools).
  const waits = parent ? [...parent.openTools.values()].filter((t) => t.subagent === "wait").map((t) => t.tool) : []
  return { subagentWaitMs: options.subagentWaitMs, gracePeriodMs: options.gracePeriodMs, subagentDeadMs: options.subagentDeadMs, subagentToolNames: waits }
}

function childFacts({ session, state }: Related): ChildFacts {
  const child = state.child
  return {
    id: session.id,
    // A child that never ran yet is starting, not finished: its parent is not an orphan.
    status: session.busy || !child.started ? "busy" : child.errored ? "error" : "idle",
    // A child just created, just given its prompt, interrupted or run again is not silent from
    // before that: old output (of a session id the plugin knew earlier) must not read as death.
    lastOutputAt: Math.max(session.lastModelOutputAt || session.firstSeenAt, child.heardAt),
    toolInProgress: session.openTools.size > 0,
    awaitingUser: session.awaiting.size > 0,
    cancelledByUser: session.cancelledByUser,
    turns: turnsOf(session, child),
  }
}

/** The machine for this session as a parent, over its children as they are now. */
function evaluate(state: SubagentsState, ctx: StepContext): Step {
  const parent = ctx.session
  const kids: Related[] = []
  for (const id of state.children ?? []) {
    const kid = related(ctx, id)
    if (kid) kids.push(kid)
  }
  // A child that left the table is no longer this parent's: linked again when it comes back.
  const children = kids.length === state.children?.length ? state.children : kids.map((k) => k.session.id)
  const held = ctx.mayAct("touch")?.reason
  // A background subagent call returns at once: the parent is not waiting on that child.
  const open = [...parent.openTools.values()].filter((t) => t.subagent !== "background")
  const facts: ParentFacts = {
    busy: parent.busy,
    lastActivityAt: parent.lastActivityAt,
    openTools: open.map((t) => t.tool),
    awaitingUser: parent.awaiting.size > 0,
    // A child waiting on the user holds the parent too (holds()); the machine reads that from
    // the child's facts, so it does not count as the parent being blocked.
    blocked: held !== undefined && parent.awaiting.size === 0 && childAwaitingUser(children, (id) => related(ctx, id), 0) === undefined,
    children: kids.map(childFacts),
  }
  const budgets = budgetsOf(ctx, parent)
  const step = nextOrphanStep(state.orphan, facts, ctx.now, budgets)
  if (facts.blocked && facts.busy) return heldStep({ ...state, children, orphan: step.state }, state.unblocked ?? state.orphan, facts, budgets, held ?? "held", ctx)
  const next: SubagentsState = { ...state, children, orphan: step.state, unblocked: undefined, wakeAt: step.wakeAt }
  return plan(next, step.effect, ctx)
}

/**
 * The parent is blocked: the machine itself starts over on every look (its transitions are
 * unchanged), and a second run of it, as though the parent were free, says what would be due
 * meanwhile. Such an action is recorded as held, never sent. That run keeps its own state
 * through the block (so a wait begun before or during it can still run out, once per action)
 * and is dropped when the block ends; its wakes are the only ones asked while blocked.
 */
function heldStep(state: SubagentsState, from: OrphanState, facts: ParentFacts, budgets: OrphanBudgets, why: string, ctx: StepContext): Step {
  const would = nextOrphanStep(from, { ...facts, blocked: false }, ctx.now, budgets)
  const next: SubagentsState = { ...state, unblocked: would.state, wakeAt: would.wakeAt }
  const due = actOf(next, would.effect, ctx)
  if (!due) return unchanged(next)
  // A nudge's entry is the child's, as a nudge sent would be: its note names whose guard held it.
  const act = due.act
  const reason = act.target === undefined ? why : `parent ${ctx.session.id}: ${why}`
  const entry: PathEffect = { kind: "journal-refused", tag: journalTag(act.effect, act.via), action: actionName(act.effect), why: "held", reason, ...(act.target !== undefined ? { target: act.target } : {}) }
  return { state: next, effects: [entry], wakeAt: next.wakeAt }
}

/** The machine's effect, sent. */
function plan(state: SubagentsState, action: OrphanEffect, ctx: StepContext): Step {
  const due = actOf(state, action, ctx)
  if (!due) return unchanged(state)
  return { state: due.state, effects: [due.act], wakeAt: due.state.wakeAt }
}

type Act = Extract<PathEffect, { kind: "act" }>

/** What the machine's effect is sent as, with the state that waits to hear of a nudge; undefined for none (or a child no longer tracked). */
function actOf(state: SubagentsState, action: OrphanEffect, ctx: StepContext): { state: SubagentsState; act: Act } | undefined {
  const parentID = ctx.session.id
  if (action.kind === "nudge") {
    if (!related(ctx, action.sessionID)) return undefined
    const id = state.lastNudgeId + 1
    const nudges = [...state.nudges, { id, child: action.sessionID }].slice(-MAX_NUDGES_OUT)
    const act: Act = {
      kind: "act",
      id,
      target: action.sessionID,
      effect: action,
      via: { label: "send subagent nudge", budget: { what: "subagent nudge" }, announce: `session ${parentID}: subagent ${action.sessionID}: ${action.reason}; nudging the subagent` },
    }
    return { state: { ...state, nudges, lastNudgeId: id }, act }
  }
  if (action.kind !== "abort-continue") return undefined
  const act: Act = {
    kind: "act",
    effect: { kind: "abort-continue", reason: orphanParentReason(action.reason) },
    via: {
      label: "send orphan-parent continue",
      budget: { what: "orphan-parent recovery", record: { kind: "abort+continue", reason: `orphan parent: ${action.reason}` } },
      announce: `session ${parentID}: orphan parent (${action.reason}); abort + resume`,
      // The parent's subagent call is what is stuck: the abort may end it (the guard's exception),
      // as long as every child still reads as finished or dead when the abort goes out (waitedOnSettled).
      exception: { kind: "orphan-parent" },
    },
  }
  return { state, act }
}

/**
 * A nudge is over. One that reached the child counts the child's turns from here: a turn the
 * child took while the prompt was still on its way (the host slow to accept it) was no answer to it.
 */
function nudgeSettled(state: SubagentsState, id: number, reached: boolean, ctx: StepContext): Step | undefined {
  const nudge = state.nudges.find((n) => n.id === id)
  if (!nudge) return undefined
  const next = { ...state, nudges: state.nudges.filter((n) => n !== nudge) }
  const child = reached ? related(ctx, nudge.child) : undefined
  if (!child) return unchanged(next)
  return unchanged({ ...next, orphan: nudgeDelivered(next.orphan, nudge.child, turnsOf(child.session, child.state.child)) })
}

/**
 * A subagent (or its own subagent) waiting on a question, form or permission: its parent,
 * blocked on that child, is waiting on the user too, however long that takes.
 */
function childAwaitingUser(children: readonly string[] | undefined, peers: RelatedLookup, depth: number): string | undefined {
  if (!children || depth >= MAX_NESTING) return undefined
  for (const id of children) {
    const child = peers(id)
    if (!child) continue
    if (child.session.awaiting.size > 0) return id
    const nested = childAwaitingUser(child.state.children, peers, depth + 1)
    if (nested) return nested
  }
  return undefined
}
