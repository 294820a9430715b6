/**
 * Subagents: a parent that waits forever on children that already finished (or died), and
 * children that went quiet. The state machine is in subagents.ts; this module gathers the
 * facts from the session table, keeps one state per parent (woken through the engine's one
 * timer per session), and says what to send.
 */
import type { Signal } from "../port.ts"
import { orphanParentReason } from "../../prompts/subagents.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { planned, type Intent, type Planned } from "../run-effect.ts"
import type { SessionState } from "../session-state.ts"
import { journalHeld } from "../journal-effects.ts"
import { INITIAL_ORPHAN_STATE, childSettled, nextOrphanStep, nudgeDelivered, type ChildFacts, type OrphanBudgets, type OrphanEffect, type OrphanState, type ParentFacts } from "../subagents.ts"

/**
 * Signals that can change a parent's verdict, plus the user message that counts as a child's
 * turn; streaming deltas are deliberately not among them (a child's output is read off its
 * stamps when its facts are taken).
 */
const RELEVANT: readonly Signal["type"][] = ["busy", "idle", "toolStart", "toolEnd", "error", "interrupted", "awaitingUser", "sessionCreated", "userMessage"]
const MAX_CHILDREN_PER_PARENT = 64
/** Levels of subagents below a parent that are looked through for one waiting on the user. */
const MAX_NESTING = 4

/** `unblocked`: the machine as though the parent were free, kept only while it is blocked (heldStep). */
type ParentTrack = { state: OrphanState; unblocked?: OrphanState }
/** What a child's turn count is computed from: the count, and the stamps that move on a turn. */
type TurnTrack = { turns: number; epoch: number; outputAt: number }

/**
 * Signals that are a turn of the session whatever its state: model output and run starts/ends
 * are read off the state instead (see countTurn). A session error is left out: the idle that
 * follows a run-ending error moves the run stamps, and an error alone may be a late repeat.
 */
function isTurnSignal(signal: Signal): boolean {
  return signal.type === "toolEnd" || signal.type === "interrupted" || (signal.type === "userMessage" && signal.genuine)
}

export function subagentsModule({ ctx, sessions, wakeAt }: ModuleEnv): EngineModule {
  const children = new Map<string, Set<string>>()
  const parents = new Map<string, ParentTrack>()
  /** Children whose last turn ended in an error (cleared when they run again). */
  const errored = new Set<string>()
  /** Children seen busy at least once. */
  const started = new Set<string>()
  /**
   * When the host last reported each child created, or the child last had a turn of its own
   * (countTurn, as its signals arrive): its silence is counted from there at the earliest.
   */
  const heardAt = new Map<string, number>()
  /** Each child's own turns, so a nudge it has not answered is not repeated (one entry per tracked child). */
  const turns = new Map<string, TurnTrack>()

  /**
   * Counts a child's turn: new model output (text, a tool call, token growth: lastModelOutputAt
   * moves), a run starting or ending (idleEpoch moves), or a turn signal. Our own prompt showing
   * up is none of these, so the child's answer to a nudge is what counts, not the nudge's echo.
   */
  function countTurn(child: SessionState, signal?: Signal): void {
    const seen = turnTrack(child)
    if (seen.epoch !== child.idleEpoch || seen.outputAt !== child.lastModelOutputAt || (signal !== undefined && isTurnSignal(signal))) seen.turns++
    seen.epoch = child.idleEpoch
    seen.outputAt = child.lastModelOutputAt
  }

  /** The child's turn track; one first made now (a child restored from a snapshot) starts from its current stamps. */
  function turnTrack(child: SessionState): TurnTrack {
    let seen = turns.get(child.id)
    if (!seen) turns.set(child.id, (seen = { turns: 0, epoch: child.idleEpoch, outputAt: child.lastModelOutputAt }))
    return seen
  }

  /** `turns` defaults to counting the child's turn now; a caller that ignores it passes its own. */
  function childFacts(child: SessionState, turns?: number): ChildFacts {
    return {
      id: child.id,
      // A child that never ran yet is starting, not finished: its parent is not an orphan.
      status: child.busy || !started.has(child.id) ? "busy" : errored.has(child.id) ? "error" : "idle",
      // A child just created, just given its prompt, interrupted or run again is not silent from
      // before that: old output (of a session id the plugin knew earlier) must not read as death.
      lastOutputAt: Math.max(child.lastModelOutputAt || child.firstSeenAt, heardAt.get(child.id) ?? 0),
      toolInProgress: child.openTools.size > 0,
      awaitingUser: child.awaiting.size > 0,
      cancelledByUser: child.cancelledByUser,
      // Output and runs are read off the stamps here, so streaming deltas need not visit this module.
      turns: turns ?? (countTurn(child), turnTrack(child).turns),
    }
  }

  /** `hold`: the holds as the engine found them on a wake (otherwise asked now). */
  function evaluate(parentID: string, hold?: { reason: string | undefined }): Planned | undefined {
    const parent = sessions.get(parentID)
    const kids = children.get(parentID)
    if (!parent || !kids) return undefined
    const held = hold ? hold.reason : ctx.mayAct(parent, "touch", ctx.time.now())?.reason
    const facts: ParentFacts = {
      busy: parent.busy,
      lastActivityAt: parent.lastActivityAt,
      // A background subagent call returns at once: the parent is not waiting on that child.
      openTools: [...parent.openTools.values()].filter((t) => t.subagent !== "background").map((t) => t.tool),
      awaitingUser: parent.awaiting.size > 0,
      // A child waiting on the user holds the parent too (its hold below); the machine reads
      // that from the child's facts, so it does not count as the parent being blocked.
      blocked: held !== undefined && parent.awaiting.size === 0 && childAwaitingUser(parentID) === undefined,
      children: [...kids].flatMap((id) => {
        const child = sessions.get(id)
        return child ? [childFacts(child)] : []
      }),
    }
    let track = parents.get(parentID)
    if (!track) parents.set(parentID, (track = { state: INITIAL_ORPHAN_STATE }))
    const budgets = { ...ctx.effective(parent), subagentToolNames: ctx.port.subagentTools }
    const now = ctx.time.now()
    const before = track.state
    const step = nextOrphanStep(before, facts, now, budgets)
    track.state = step.state
    if (facts.blocked && facts.busy) return heldStep(parent, track, track.unblocked ?? before, facts, now, budgets, held ?? "held")
    track.unblocked = undefined
    wakeAt(parent, step.wakeAt)
    return plan(parent, step.effect, budgets)
  }

  /**
   * The parent is blocked: the machine itself starts over on every look (its transitions are
   * unchanged), and a second run of it, as though the parent were free, says what would be due
   * meanwhile. Such an action is recorded as held, never planned. That run keeps its own state
   * through the block (so a wait begun before or during it can still run out, once per action)
   * and is dropped when the block ends; its wakes are the only ones asked while blocked.
   */
  function heldStep(parent: SessionState, track: ParentTrack, from: OrphanState, facts: ParentFacts, now: number, budgets: OrphanBudgets, why: string): undefined {
    const would = nextOrphanStep(from, { ...facts, blocked: false }, now, budgets)
    track.unblocked = would.state
    wakeAt(parent, would.wakeAt)
    const due = plan(parent, would.effect, budgets)
    if (!due) return undefined
    // A nudge's entry is the child's, as a nudge sent would be: its note names whose guard held it.
    const target = due.via.target ?? parent
    journalHeld(ctx, parent, due.effect, due.via, target === parent ? why : `parent ${parent.id}: ${why}`)
    return undefined
  }

  /** What the machine's effect is sent as, or undefined for none (or a child no longer tracked). */
  function plan(parent: SessionState, action: OrphanEffect, budgets: OrphanBudgets): Planned | undefined {
    const parentID = parent.id
    if (action.kind === "nudge") {
      const child = sessions.get(action.sessionID)
      if (!child) return undefined
      return planned(action, {
        label: "send subagent nudge",
        target: child,
        budget: { what: "subagent nudge" },
        announce: `session ${parentID}: subagent ${action.sessionID}: ${action.reason}; nudging the subagent`,
        onSent: () => {
          const track = parents.get(parentID)
          if (!track || sessions.get(child.id) !== child) return
          countTurn(child)
          track.state = nudgeDelivered(track.state, child.id, turnTrack(child).turns)
        },
      })
    }
    if (action.kind !== "abort-continue") return undefined
    // The parent's subagent call is what is stuck: the abort may end it (the guard's exception),
    // as long as every child still reads as finished or dead when the abort goes out.
    const childrenSettled = () => {
      const now = ctx.time.now()
      return [...(children.get(parentID) ?? [])].every((id) => {
        const child = sessions.get(id)
        // Whether a child is settled does not depend on its turn count: leave that count alone.
        return !child || childSettled(childFacts(child, 0), now, budgets)
      })
    }
    return planned(
      { kind: "abort-continue", reason: orphanParentReason(action.reason) },
      {
        label: "send orphan-parent continue",
        target: parent,
        budget: { what: "orphan-parent recovery", record: { kind: "abort+continue", reason: `orphan parent: ${action.reason}` } },
        announce: `session ${parentID}: orphan parent (${action.reason}); abort + resume`,
        exception: { kind: "orphan-parent", childrenSettled },
      },
    )
  }

  /**
   * A subagent (or its own subagent) waiting on a question, form or permission: its parent,
   * blocked on that child, is waiting on the user too, however long that takes.
   */
  function childAwaitingUser(parentID: string, depth = 0): string | undefined {
    const kids = children.get(parentID)
    if (!kids || depth >= MAX_NESTING) return undefined
    for (const id of kids) {
      if ((sessions.get(id)?.awaiting.size ?? 0) > 0) return id
      const nested = childAwaitingUser(id, depth + 1)
      if (nested) return nested
    }
    return undefined
  }

  return {
    name: "subagents",
    signals: RELEVANT,
    hold(state) {
      const waiting = childAwaitingUser(state.id)
      return waiting ? `subagent ${waiting} is waiting for the user` : undefined
    },
    onWake(state, wake) {
      return evaluate(state.id, { reason: wake.hold })
    },
    onSignal(state, signal) {
      if (state.parentID) {
        const before = turnTrack(state).turns
        countTurn(state, signal)
        if (turnTrack(state).turns !== before) heardAt.set(state.id, ctx.time.now())
      }
      // A user message only counts as a child's turn; it does not change a parent's verdict.
      if (signal.type === "userMessage") return
      if (signal.type === "error") errored.add(state.id)
      else if (signal.type === "busy" || signal.type === "toolStart") {
        errored.delete(state.id)
        if (state.parentID) started.add(state.id)
      }
      // A child back from a sweep (its parent link kept by the session table) is linked again;
      // one whose parent was deleted is not, until the host announces it under that id again.
      if (state.parentID && !state.parentDeleted && (signal.type === "sessionCreated" || !children.get(state.parentID)?.has(state.id))) {
        let kids = children.get(state.parentID)
        if (!kids) children.set(state.parentID, (kids = new Set()))
        if (kids.size < MAX_CHILDREN_PER_PARENT) kids.add(state.id)
        if (kids.has(state.id)) heardAt.set(state.id, ctx.time.now())
      }
      const intents: (Planned | undefined)[] = []
      if (state.parentID && children.has(state.parentID)) intents.push(evaluate(state.parentID))
      if (children.has(state.id)) intents.push(evaluate(state.id))
      return intents satisfies Intent
    },
    forget(state) {
      parents.delete(state.id)
      children.delete(state.id)
      errored.delete(state.id)
      started.delete(state.id)
      heardAt.delete(state.id)
      turns.delete(state.id)
      if (state.parentID) children.get(state.parentID)?.delete(state.id)
    },
    dispose() {
      parents.clear()
    },
  }
}
