/**
 * Fallback models (option `fallbackModels`, off while empty): a session whose model is rate
 * limited, out of quota or down for longer than a stall budget goes on with the next listed
 * model instead of waiting. What is decided lives in core/fallback.ts (the session's prompts go
 * on the episode's model); this part carries it out: it takes over the waits and give-ups the
 * other parts offer (an Offer), hears the host scheduling a retry far ahead, and sends the one
 * continue that moves the session on.
 *
 * Two models never run one turn: a retry the host still holds is ended first (abort, then the
 * continue), and a run that is ending on its error is let end (the continue goes out at its
 * idle). Nothing happens after ESC, while paused, while the user is asked something, or when
 * the newest turn hands over to the user.
 */
import { handOffOf } from "../../detect/hand-off.ts"
import { messageTail } from "../../detect/text.ts"
import { readEnding } from "../../detect/turn-ending.ts"
import type { Options, ResolvedOptions } from "../../options/index.ts"
import { formatDuration } from "../../prompts/format.ts"
import { backOnUserModel, modelKey, nextFallback, userTurnModel, waitWorthSwitching } from "../../core/fallback.ts"
import type { Signal, TurnSetup } from "../../core/port.ts"
import type { TranscriptMessage } from "../../core/transcript.ts"
import { stallBudgetMs } from "../../core/watchdog.ts"
import type { EffectOutcome } from "../../runtime/path.ts"
import type { Draft, Offer, Otherwise, Switch } from "./failing-provider.ts"
import { classifyOutage, outageLabel } from "./outage.ts"
import { fallbackReason } from "./prompts.ts"

/** Messages read before a switch, to see whether the newest turn hands over to the user. */
const HAND_OFF_LOOKBACK = 3

/**
 * Offers the session to the next fallback model: true when one takes it (the caller then skips
 * its wait or give-up). Answers at once; what it sends goes out later.
 */
export function takeOver(d: Draft, offer: Offer): boolean {
  const session = d.session
  const options = d.options()
  const list = options.fallbackModels
  if (list.length === 0 || session.dropped) return false
  // A switch already decided for this session moves it on: a second report of the same
  // failure (a repeated retry status) must not skip a model or send a second continue.
  if (d.state.switching) return true
  if (!waitWorthSwitching(offer.waitMs, stallBudgetMs(options))) return false
  const held = d.ctx.mayAct("touch")?.reason
  if (held) {
    d.log("debug", `session ${session.id}: no fallback model: ${held}`)
    return false
  }
  const choice = nextFallback(session.fallback, session.setup.model, list, d.ctx.unknownModels(), offer.why, d.now)
  if (choice.kind === "off") return false
  if (choice.kind === "spent") {
    d.log("info", `session ${session.id}: fallback models spent (tried ${choice.tried.join(", ")}); the usual wait or give-up applies`)
    return false
  }
  const to = modelKey(choice.model)
  if (session.lifetimeContinues >= options.lifetimeMaxContinues) {
    // No switch passes the lifetime cap; what the offering part does instead still happens.
    const cap = `lifetime cap reached (${session.lifetimeContinues}/${options.lifetimeMaxContinues})`
    d.log("info", `session ${session.id}: fallback continue not sent: ${cap}; waiting for the user`)
    d.effects.push({ kind: "journal-refused", tag: { trigger: "fallback", evidence: offer.why }, action: `model switch to ${to} + continue`, why: "gave up", reason: `${cap}; ${offer.instead}` })
    return false
  }
  const from = session.fallback?.active ?? session.setup.model
  d.effects.push({ kind: "fallback-episode", episode: choice.episode })
  d.log(
    "info",
    `session ${session.id}: ${from ? modelKey(from) : "the session's model"} cannot go on (${offer.why}); switching to fallback model ${to}${offer.hostRetrying ? ", ending the host's own retry first" : ""}`,
  )
  const switching: Switch = { offer, previous: session.fallback, episode: choice.episode, phase: "at-idle", id: 0 }
  // The host gave up and the run is ending: the continue goes out once it has (at its idle).
  if (session.busy && !offer.hostRetrying) d.state.switching = switching
  else readNewestTurn(d, switching)
  return true
}

/** First a bounded look at the newest turn: one that hands over to the user gets no switch. */
function readNewestTurn(d: Draft, switching: Switch): void {
  const id = d.nextId()
  d.state.switching = { ...switching, phase: "reading", id }
  const timeoutMs = Math.max(1, Math.floor(d.options().sendTimeoutMs / 2))
  d.effects.push({ kind: "read-messages", id, limit: HAND_OFF_LOOKBACK, timeoutMs })
}

/** The session went idle: a switch waiting for the failed run to end goes on; otherwise a run on the fallback model ended. */
export function switchAtIdle(d: Draft): void {
  const switching = d.state.switching
  if (switching?.phase === "at-idle") return readNewestTurn(d, switching)
  if (!switching) restoreUserModel(d)
}

/** ESC or the user's message while the failed run ended: the switch waits for nothing any more. */
export function dropSwitchAtIdle(d: Draft): void {
  if (d.state.switching?.phase === "at-idle") d.state.switching = undefined
}

/**
 * An outcome for the switch under way (its id): the newest turn read, or the continue over.
 * `otherwise` carries out what the offering part would have done, when the switch is not made.
 * False when the outcome is not the switch's.
 */
export function switchSettled(d: Draft, id: number, outcome: EffectOutcome, otherwise: (o: Otherwise) => void): boolean {
  const switching = d.state.switching
  if (!switching || switching.id !== id) return false
  const undo = (why: string) => {
    d.state.switching = undefined
    if (d.session.fallback === switching.episode) d.effects.push({ kind: "fallback-episode", episode: switching.previous })
    d.log("info", `session ${d.session.id}: fallback to ${modelKey(switching.episode.active)} not made: ${why}`)
    if (switching.offer.otherwise) otherwise(switching.offer.otherwise)
  }
  if (switching.phase === "reading" && outcome.kind === "messages") {
    const handOff = handedOff(outcome.messages, d.options().stopPatterns)
    if (handOff) return (undo(handOff), true)
    if (d.session.fallback !== switching.episode) return (undo("the user wrote meanwhile"), true)
    sendContinue(d, switching)
    return true
  }
  if (switching.phase === "sending" && outcome.kind === "delivered") {
    // A call past sendTimeoutMs may still be carried out: the switch stands.
    if (outcome.outcome === "ok" || outcome.outcome === "timeout") {
      d.state.switching = undefined
      planReturn(d, switching)
    } else undo(outcome.outcome === undefined ? "the abort or the continue did not go out" : `the continue was ${outcome.outcome}`)
  }
  return true
}

function sendContinue(d: Draft, switching: Switch): void {
  const { offer, episode } = switching
  const to = modelKey(episode.active)
  const from = episode.tried.length >= 2 ? episode.tried[episode.tried.length - 2] : undefined
  const id = d.nextId()
  d.state.switching = { ...switching, phase: "sending", id }
  d.effects.push({
    kind: "act",
    id,
    effect: { kind: offer.hostRetrying ? "abort-continue" : "continue", reason: fallbackReason(from, to, offer.why) },
    via: {
      label: "send fallback continue",
      // Counted when it goes out, and only if it reaches the session.
      budget: { what: "fallback continue", record: { kind: offer.hostRetrying ? "abort+continue" : "continue", reason: `fallback to ${to} (${offer.why})` }, refundUnsent: true },
      journal: { trigger: "fallback", evidence: offer.why, action: `model switch to ${to} + continue` },
    },
  })
}

/** The newest turn hands over to the user (an open request, a stop pattern, a question); an unreadable history does not keep the session waiting for hours. */
function handedOff(messages: TranscriptMessage[] | undefined, stopPatterns: Options["stopPatterns"]): string | undefined {
  const last = messages && [...messages].reverse().find((m) => m.role === "assistant")
  if (!last) return undefined
  const handOff = handOffOf(last, stopPatterns)
  if (handOff) return handOff.kind === "open-question" ? "the newest turn waits on the user" : "the newest turn matches a stop pattern"
  if (readEnding(messageTail(last, "text")).handOff) return "the newest turn asks the user"
  return undefined
}

/**
 * A run on the fallback model ended: where the model belongs to the session (2.x), it goes
 * back to the user's, so whatever the user writes next runs there; our next prompt in the
 * episode switches again.
 */
function restoreUserModel(d: Draft): void {
  const back = d.session.fallback?.userModel
  if (back) d.effects.push({ kind: "restore-model", model: back })
}

/** The host schedules its own retry: one far enough ahead is better spent on the next model. */
export function retryScheduled(d: Draft, signal: Extract<Signal, { type: "retryScheduled" }>): void {
  if (signal.retryInMs === undefined || d.options().fallbackModels.length === 0) return
  const why = `${outageLabel(classifyOutage(signal), "the host retries")}; its retry is ${formatDuration(Math.max(0, signal.retryInMs))} away`
  takeOver(d, { why, waitMs: signal.retryInMs, hostRetrying: true, instead: "the host's own retry goes on" })
}

/**
 * A switch away from the user's model stands: the session goes back to it once its wait would
 * have ended (option `fallbackReturnToModel`). The wait is the one the failure named (a
 * Retry-After, the host's retry time or the ladder's rung); a failure that names none (a model
 * the provider does not know, an endpoint that keeps failing) gets the ladder's first rung, so
 * a model that is still down costs one failed turn per rung at most. A later switch within the
 * episode (fallback to fallback) keeps the first wait: it is still the user's model's.
 */
function planReturn(d: Draft, switching: Switch): void {
  const options = d.options()
  if (!options.fallbackReturnToModel || !switching.episode.userModel) return
  if (switching.previous && !backOnUserModel(switching.previous)) return
  const offered = switching.offer.waitMs
  const waitMs = Number.isFinite(offered) && offered > 0 ? offered : (options.rateLimitCooldownsMs[0] ?? 0)
  d.state.back = { at: switching.episode.at + waitMs, waitMs }
  d.wakeBy(d.state.back.at)
}

/**
 * Back to the user's model at the first turn boundary after its wait would have ended: the
 * session idle, nothing of ours under way, and mayAct letting it be touched (not over ESC, a
 * pause, a question or a hand-off: the user's next message goes to the user's model anyway).
 * Only the model changes: no message goes out, so a finished turn stays finished; the next
 * prompt of any path, or the user's next turn, runs on the user's model. Looked at after every
 * input of the path while a return is planned; the wake brings the look when nothing else does.
 */
export function backToUserModel(d: Draft): void {
  const back = d.state.back
  if (!back || d.state.switching) return
  const episode = d.session.fallback
  const user = episode?.userModel
  if (!episode || !user || backOnUserModel(episode) || !d.options().fallbackReturnToModel) {
    d.state.back = undefined
    return
  }
  if (d.now < back.at) return d.wakeBy(back.at)
  // Mid-run: the idle that ends the run looks again.
  if (d.session.busy) return
  const held = d.ctx.mayAct("touch")?.reason
  if (held) return d.wakeBy(d.now + d.options().checkIntervalMs)
  d.state.back = undefined
  const to = modelKey(user)
  const from = modelKey(episode.active)
  const after = `back to ${to} after ${formatDuration(back.waitMs)}`
  d.effects.push({ kind: "fallback-episode", episode: { ...episode, active: user, returnedFrom: episode.active, why: after, at: d.now }, model: user })
  d.effects.push({ kind: "restore-model", model: user })
  d.log("info", `session ${d.session.id}: ${after}, the wait ${from} stood in for; nothing is sent, the next turn runs on ${to}`)
  d.effects.push({
    kind: "journal-refused",
    tag: { trigger: "fallback", evidence: after },
    action: `model switch back to ${to}`,
    why: "cleared",
    reason: `${from} stood in; nothing sent, the next turn runs on ${to}`,
  })
}

/** The user wrote: the episode is over, and the session's own turns are on the user's model again. */
export function userWrote(d: Draft, setup: TurnSetup | undefined): void {
  dropSwitchAtIdle(d)
  d.state.back = undefined
  const episode = d.session.fallback
  if (!episode) return
  const back = episode.userModel
  d.log("info", `session ${d.session.id}: the user wrote; fallback episode over${back ? `, back to ${modelKey(back)}` : ""}`)
  // Where the model belongs to the session (2.x), the fallback run may still be live: the idle
  // that would have put it back would find the episode over already.
  restoreUserModel(d)
  // 2.x names no model on a user turn (the adapter reports the newest step's, the fallback's):
  // such a turn is on the user's own model, as it is on 1.x (adapter.ts).
  const own = userTurnModel(episode, setup?.model)
  d.effects.push({ kind: "fallback-episode", episode: undefined, ...(own ? { model: own } : {}) })
}

/** Every `fallbackModels` entry the config names: top level, profiles and per provider. */
export function configuredFallbackModels(resolved: ResolvedOptions): string[] {
  const out = new Set<string>(resolved.options.fallbackModels)
  const sections: unknown[] = [resolved.options.defaultFast, resolved.options.defaultSlow, ...Object.values(resolved.options.modelProfiles ?? {})]
  for (const section of sections) {
    const list = (section as { fallbackModels?: unknown } | undefined)?.fallbackModels
    if (Array.isArray(list)) for (const entry of list) if (typeof entry === "string") out.add(entry)
  }
  return [...out]
}
