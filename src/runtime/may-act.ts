/**
 * May we act on this session now? The one answer, for every recovery path and for the effect
 * runner: whether anything of ours may be sent to the session or abort its run at this moment,
 * and if not, why and (when it is known) until when.
 *
 * Everything else that bears on it is a fact weighed here, never a second answer: the user's
 * guards (a pause, ESC, completion, an open question), the holds the recovery paths state (a
 * rate-limit wait, a full context, a child waiting on the user), the tools running, what of ours
 * is still under way or landing (core/intervention.ts), the host's own last look before an abort
 * (core/abort-veto.ts), and a turn the session took since a prompt was decided.
 */
import { TOOL_WEDGED_CEILING_MS } from "../options/index.ts"
import { abortMayEnd, ownHold, type OpenCallException } from "../core/intervention.ts"
import type { SessionState } from "../core/session-state.ts"

/** The moment a prompt was decided at (its stamps): a turn taken since makes it an answer to a moment that is over. */
export type Decided = Pick<SessionState, "lastGenuineUserAt" | "lastModelOutputAt" | "idleEpoch">

/** What is about to be done. Each asks for the facts before it in this list, and its own. */
export type Act =
  /** Anything at all (what a wake is told): the user's guards, then the paths' holds. */
  | "touch"
  /** A recovery that supersedes none under way: as `touch`, and no recovery of ours under way. */
  | "recovery"
  /** The stall ladder's next step: as `touch`, and nothing of ours under way, out, or landing. */
  | "ladder"
  /** A recovery prompt decided now: as `touch`, and no prompt of ours still on its way (`until`: when it may be). */
  | "prompt"
  /** A prompt's host call goes out now: the session still tracked, as `touch`, and no tool running. */
  | "send"
  /** The run is aborted now: as `send`, and no abort of ours still landing. */
  | "abort"
  /** `send` with the open calls `exception` may end, and the moment the prompt was decided at. */
  | { kind: "send"; exception?: OpenCallException; decided?: Decided }
  /** `abort` with the open calls `exception` may end, and what the host's last look found (the veto). */
  | { kind: "abort"; exception?: OpenCallException; veto?: string }

/** Why not now: whose fact it is, and until when when that is known. */
export type Hold = {
  reason: string
  /**
   * `user`: a guard of the user or the session itself; `path`: a hold a recovery path states;
   * `gone`: the session left the table; `tool`: a tool runs (or the host still shows one);
   * `ours`: something of ours is under way or may still land; `turn`: the session took a turn
   * since the prompt was decided.
   */
  by: "user" | "path" | "gone" | "tool" | "ours" | "turn"
  until?: number
}

/** A guard's refusal (the user's or a path's), which the history records; ours in flight is not a refusal. */
export function isGuard(hold: Hold | undefined): hold is Hold {
  return hold !== undefined && (hold.by === "user" || hold.by === "path")
}

/** What the answer needs from outside the session record. */
export type HoldFacts = {
  /** The user paused the session (the pause store). */
  paused(sessionID: string): boolean
  /** The hold a recovery path states for the session at `now`, or undefined (the engine asks each in turn). */
  pathHold(session: SessionState, now: number): string | undefined
  /** Every session the session's open subagent calls wait on has settled, as the paths find it now (RecoveryPath.waitedOnSettled). */
  waitedOnSettled(session: SessionState, now: number): boolean
}

export type MayAct = (session: SessionState, act: Act, now: number) => Hold | undefined

/** The answer, over the facts of one engine. */
export function actGate(facts: HoldFacts): MayAct {
  const guard = (s: SessionState, now: number): Hold | undefined => {
    const user = userGuard(facts, s)
    if (user) return { reason: user, by: "user" }
    const path = facts.pathHold(s, now)
    return path ? { reason: path, by: "path" } : undefined
  }
  return (session, act, now) => {
    const kind = typeof act === "string" ? act : act.kind
    switch (kind) {
      case "touch":
        return guard(session, now)
      case "recovery":
      case "ladder":
      case "prompt":
        return guard(session, now) ?? ours(session, now, kind)
      case "send":
      case "abort": {
        const exception = typeof act === "string" ? undefined : act.exception
        // The host's own record of the newest turn outranks what we remember of the session.
        const veto = typeof act !== "string" && act.kind === "abort" ? act.veto : undefined
        if (veto !== undefined) return { reason: veto, by: "tool" }
        if (session.dropped) return { reason: "the session is no longer tracked", by: "gone" }
        const held = guard(session, now) ?? runningTool(session, now, exception, () => facts.waitedOnSettled(session, now))
        if (held) return held
        if (kind === "abort") return ours(session, now, "abort")
        return typeof act === "string" || act.kind !== "send" || !act.decided ? undefined : turnTaken(session, act.decided)
      }
    }
  }
}

/** The guard of a session waiting on the user's answer (the history names it; a notice tells the user). */
export const AWAITING_USER = "waiting for the user (question or permission open)"

function userGuard(facts: HoldFacts, s: SessionState): string | undefined {
  if (facts.paused(s.id)) return "paused"
  if (s.cancelledByUser) return "cancelled by the user (ESC)"
  if (s.completed) return "task marked complete"
  if (s.awaiting.size > 0) return AWAITING_USER
  return undefined
}

function ours(s: SessionState, now: number, act: "recovery" | "ladder" | "prompt" | "abort"): Hold | undefined {
  const own = ownHold(s.intervention, now, act)
  return own && { ...own, by: "ours" }
}

/**
 * A tool call younger than the wedged ceiling is running: no prompt and no abort may reach the
 * session, whatever decided it earlier (a recovery decided before the tool started must not be
 * carried out while it runs), but for the exceptions intervention.ts states.
 */
function runningTool(s: SessionState, now: number, exception: OpenCallException | undefined, childrenSettled: () => boolean): Hold | undefined {
  for (const open of s.openTools.values()) {
    if (now - open.startedAt < TOOL_WEDGED_CEILING_MS && !abortMayEnd(exception, open, childrenSettled)) return { reason: `tool "${open.tool}" is running`, by: "tool" }
  }
  return undefined
}

/** The user wrote, the model produced something, or the run ended or started since the decision. */
function turnTaken(s: SessionState, d: Decided): Hold | undefined {
  if (s.lastGenuineUserAt !== d.lastGenuineUserAt) return { reason: "the user wrote", by: "turn" }
  if (s.lastModelOutputAt !== d.lastModelOutputAt) return { reason: "the model produced output", by: "turn" }
  if (s.idleEpoch !== d.idleEpoch) return { reason: "the run ended or started", by: "turn" }
  return undefined
}
