/**
 * What the effect runner (run-effect.ts) tells the journal: every action that reaches the host
 * is named and its outcome handed to the book (journal-book.ts), whichever path planned it. A
 * path that knows better than the runner what it saw names itself in `Delivery.journal`.
 */
import type { EngineContext } from "./context.ts"
import type { JournalTag } from "./journal.ts"
import type { Delivery, HostEffect, Outcome } from "./run-effect.ts"
import type { SessionState } from "./session-state.ts"

/** The action as a reader names it. */
export function actionName(effect: HostEffect): string {
  switch (effect.kind) {
    case "continue":
      return "continue"
    case "abort-continue":
      return effect.text === undefined ? "abort + continue" : "abort + correction"
    case "nudge":
      return effect.sessionID ? "prompt to the subagent" : "prompt"
    case "command":
      return `command /${effect.name}`
    case "compact":
      return "compact"
  }
}

/** The path's own words, else its budget's name (or label) and the effect's reason. */
export function journalTag(effect: HostEffect, via: Delivery): JournalTag {
  return via.journal ?? { trigger: via.budget?.what ?? via.label.replace(/^send /, ""), evidence: effect.reason }
}

/** What the abort's hooks said, for an abort + continue that settled without a prompt. */
export type AbortSeen = { committed: boolean; vetoed?: string }

/** `via` with its abort hooks watched; the runner hands this one to the host call. */
export function watchedDelivery(via: Delivery, seen: AbortSeen): Delivery {
  return {
    ...via,
    onCommit: () => {
      seen.committed = true
      via.onCommit?.()
    },
    onVetoed: (why) => {
      seen.vetoed = why
      via.onVetoed?.(why)
    },
  }
}

/** The lifetime budget refused the action before anything went out. */
export function journalGaveUp(ctx: EngineContext, target: SessionState, effect: HostEffect, via: Delivery): void {
  const cap = ctx.effective(target).lifetimeMaxContinues
  ctx.journal?.refused(target, journalTag(effect, via), actionName(effect), "gave up", `lifetime cap reached (${target.lifetimeContinues}/${cap})`)
}

/** Hands the action's outcome to the book. Never throws (the runner's catch is the net). */
export function journalOutcome(ctx: EngineContext, target: SessionState, effect: HostEffect, via: Delivery, outcome: Outcome, seen: AbortSeen): void {
  const book = ctx.journal
  if (!book) return
  const tag = journalTag(effect, via)
  const action = actionName(effect)
  // A prompt counts from its call: the host may answer it before the call returns.
  const calledAt = effect.kind === "command" || effect.kind === "compact" ? undefined : target.intervention.prompt.calledAt
  if (outcome === "ok" || outcome === "timeout") return book.acted(target, tag, action, calledAt)
  // Why it is held now, as a prompt of the action would be asked (mayAct's `send`).
  const held = () => ctx.mayAct(target, { kind: "send", exception: via.exception }, ctx.time.now())?.reason
  if (outcome === "held") return book.refused(target, tag, action, "held", held() ?? "held at the last moment")
  if (outcome === "failed") return book.refused(target, tag, action, "no effect", "the host refused the call")
  // "busy": another call of ours was out; the path tries again, and that try is the entry.
  if (outcome === "busy" || effect.kind !== "abort-continue") return
  if (seen.vetoed) return book.refused(target, tag, action, "held", `not aborted: ${seen.vetoed}`)
  // The abort went out but no prompt followed it (the user stepped in, a run began by itself).
  if (seen.committed) return book.acted(target, tag, "abort")
  const why = held()
  if (why) book.refused(target, tag, action, "held", why)
}
