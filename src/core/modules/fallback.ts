/**
 * Fallback models (option `fallbackModels`, off while empty): a session whose model is rate
 * limited, out of quota or down for longer than a stall budget goes on with the next listed
 * model instead of waiting. What is decided lives in ../fallback.ts; this module carries it
 * out: it hears the host scheduling a retry far ahead, takes over the waits and give-ups other
 * paths offer (EngineModule.takeOver), and sends the one continue that moves the session on.
 *
 * Two models never run one turn: a retry the host still holds is ended first (abort, then the
 * continue), and a run that is ending on its error is let end (the continue goes out at its
 * idle). Nothing happens after ESC, while paused, while the user is asked something, or when
 * the newest turn hands over to the user.
 */
import { handOffOf } from "../../detect/hand-off.ts"
import { readEnding } from "../../detect/turn-ending.ts"
import { messageTail } from "../../detect/text.ts"
import type { ResolvedOptions } from "../../options/index.ts"
import { fallbackReason } from "../../prompts/fallback.ts"
import { formatDuration } from "../../prompts/format.ts"
import { beginRecovery, uncountUnsent } from "../actions.ts"
import type { FallbackOffer } from "../context.ts"
import { modelKey, nextFallback, unknownModelEntries, userTurnModel, waitWorthSwitching, type FallbackEpisode } from "../fallback.ts"
import { withTimeout } from "../host-calls.ts"
import { errorText } from "../logger.ts"
import type { EngineModule, ModuleEnv } from "../module.ts"
import { classifyOutage, outageLabel } from "../outage.ts"
import { runEffect } from "../run-effect.ts"
import type { SessionState } from "../session-state.ts"
import type { TranscriptMessage } from "../transcript.ts"
import { stallBudgetMs } from "../watchdog.ts"

/** Messages read before a switch, to see whether the newest turn hands over to the user. */
const HAND_OFF_LOOKBACK = 3

type Pending = { offer: FallbackOffer; previous: FallbackEpisode | undefined; episode: FallbackEpisode }

export function fallbackModule({ ctx, resolved }: ModuleEnv): EngineModule {
  /** Entries the host's model list does not name: never switched to. */
  const unknown = new Set<string>()
  /** Switches decided while the failed run was still ending: carried out at its idle. */
  const pending = new Map<string, Pending>()
  /** Sessions whose switch is being carried out (history read, abort, continue): one at a time. */
  const underWay = new Set<string>()
  checkKnownModels()

  /** One bounded look at the host's model list at start-up; one warning naming what it lacks. */
  function checkKnownModels(): void {
    const entries = resolved ? configuredEntries(resolved) : []
    const list = ctx.port.listModels
    if (entries.length === 0 || !list) return
    const timeout = resolved?.options.sendTimeoutMs ?? 30_000
    withTimeout(ctx.time, timeout, "model list", () => list.call(ctx.port)).then(
      (known) => {
        // No list at all says nothing about the entries: they are kept as given.
        if (!Array.isArray(known) || known.length === 0) return
        const missing = unknownModelEntries(entries, known)
        for (const name of missing) unknown.add(name)
        if (missing.length > 0) ctx.logger.log("warn", `fallbackModels: the host knows no model ${missing.map((m) => `"${m}"`).join(", ")}; dropped`)
      },
      (error: unknown) => ctx.logger.log("debug", `fallbackModels: the host's model list could not be read (${errorText(error)}); entries kept as given`),
    )
  }

  function takeOver(state: SessionState, offer: FallbackOffer): boolean {
    const options = ctx.effective(state)
    const list = options.fallbackModels
    if (list.length === 0 || state.dropped) return false
    // A switch already decided for this session moves it on: a second report of the same
    // failure (a repeated retry status) must not skip a model or send a second continue.
    if (pending.has(state.id) || underWay.has(state.id)) return true
    if (!waitWorthSwitching(offer.waitMs, stallBudgetMs(options))) return false
    const held = ctx.mayAct(state, "touch", ctx.time.now())?.reason
    if (held) {
      ctx.logger.log("debug", `session ${state.id}: no fallback model: ${held}`)
      return false
    }
    const now = ctx.time.now()
    const choice = nextFallback(state.fallback, state.setup.model, list, unknown, offer.why, now)
    if (choice.kind === "off") return false
    if (choice.kind === "spent") {
      ctx.logger.log("info", `session ${state.id}: fallback models spent (tried ${choice.tried.join(", ")}); the usual wait or give-up applies`)
      return false
    }
    const from = state.fallback?.active ?? state.setup.model
    const kind = offer.hostRetrying ? "abort+continue" : "continue"
    if (!beginRecovery(ctx, state, "fallback continue", { kind, reason: `fallback to ${modelKey(choice.model)} (${offer.why})` })) {
      // The only refusal there is: the lifetime cap, which no switch may pass. What the offering
      // path does instead still happens (the caller goes on as though no module took over).
      const cap = `lifetime cap reached (${state.lifetimeContinues}/${options.lifetimeMaxContinues}); ${offer.instead}`
      ctx.journal?.refused(state, { trigger: "fallback", evidence: offer.why }, `model switch to ${modelKey(choice.model)} + continue`, "gave up", cap)
      return false
    }
    const previous = state.fallback
    state.fallback = choice.episode
    ctx.logger.log(
      "info",
      `session ${state.id}: ${from ? modelKey(from) : "the session's model"} cannot go on (${offer.why}); switching to fallback model ${modelKey(choice.model)}${offer.hostRetrying ? ", ending the host's own retry first" : ""}`,
    )
    const switching: Pending = { offer, previous, episode: choice.episode }
    // The host gave up and the run is ending: the continue goes out once it has (at its idle).
    if (state.busy && !offer.hostRetrying) pending.set(state.id, switching)
    else void carryOut(state, switching)
    return true
  }

  async function carryOut(state: SessionState, switching: Pending): Promise<void> {
    const { offer, previous, episode } = switching
    underWay.add(state.id)
    const undo = (why: string, outcome?: Parameters<typeof uncountUnsent>[1]) => {
      uncountUnsent(state, outcome)
      if (state.fallback === episode) state.fallback = previous
      ctx.logger.log("info", `session ${state.id}: fallback to ${modelKey(episode.active)} not made: ${why}`)
      offer.otherwise?.()
    }
    try {
      const handOff = await handedOff(state)
      if (handOff) return undo(handOff, "held")
      if (state.fallback !== episode) return undo("the user wrote meanwhile", "held")
      const from = episode.tried.length >= 2 ? episode.tried[episode.tried.length - 2] : undefined
      const reason = fallbackReason(from, modelKey(episode.active), offer.why)
      const outcome = await runEffect(ctx, state, { effect: { kind: offer.hostRetrying ? "abort-continue" : "continue", reason }, via: { label: "send fallback continue", journal: { trigger: "fallback", evidence: offer.why, action: `model switch to ${modelKey(episode.active)} + continue` } } })
      // A call past sendTimeoutMs may still be carried out: the switch stands.
      if (outcome === "ok" || outcome === "timeout") return
      undo(outcome === undefined ? "the abort or the continue did not go out" : `the continue was ${outcome}`, outcome ?? "held")
    } catch (error) {
      ctx.logger.fault("module:fallback", `fallback switch failed: ${errorText(error)}`)
    } finally {
      underWay.delete(state.id)
    }
  }

  /** The newest turn hands over to the user (an open request, a stop pattern, a question). */
  async function handedOff(state: SessionState): Promise<string | undefined> {
    let messages: TranscriptMessage[]
    try {
      const timeout = Math.max(1, Math.floor(ctx.effective(state).sendTimeoutMs / 2))
      messages = await withTimeout(ctx.time, timeout, "history before a fallback", () => ctx.port.readMessages(state.id, HAND_OFF_LOOKBACK))
    } catch {
      return undefined // an unreadable history must not keep the session waiting for hours
    }
    const last = [...messages].reverse().find((m) => m.role === "assistant")
    if (!last) return undefined
    const handOff = handOffOf(last, ctx.effective(state).stopPatterns)
    if (handOff) return handOff.kind === "open-question" ? "the newest turn waits on the user" : "the newest turn matches a stop pattern"
    if (readEnding(messageTail(last, "text")).handOff) return "the newest turn asks the user"
    return undefined
  }

  /**
   * A run on the fallback model ended: where the model belongs to the session (2.x), it goes
   * back to the user's, so whatever the user writes next runs there; our next prompt in the
   * episode switches again.
   */
  function restoreUserModel(state: SessionState): void {
    const back = state.fallback?.userModel
    const restore = ctx.port.restoreModel
    if (!back || !restore) return
    const timeout = ctx.effective(state).sendTimeoutMs
    withTimeout(ctx.time, timeout, "model restore", () => restore.call(ctx.port, state.id, back)).catch((error: unknown) =>
      ctx.logger.log("warn", `session ${state.id}: could not put the session back on ${modelKey(back)}: ${errorText(error)}`),
    )
  }

  function onRetry(state: SessionState, signal: { retryInMs?: number; message?: string; status?: number; name?: string }): void {
    if (signal.retryInMs === undefined || ctx.effective(state).fallbackModels.length === 0) return
    const outage = classifyOutage(signal)
    const why = `${outageLabel(outage, "the host retries")}; its retry is ${formatDuration(Math.max(0, signal.retryInMs))} away`
    takeOver(state, { why, waitMs: signal.retryInMs, hostRetrying: true, instead: "the host's own retry goes on" })
  }

  return {
    name: "fallback",
    signals: ["retryScheduled", "idle", "userMessage", "interrupted"],
    onSignal(state, signal) {
      switch (signal.type) {
        case "retryScheduled":
          return onRetry(state, signal)
        case "idle": {
          const switching = pending.get(state.id)
          if (!switching) return restoreUserModel(state)
          pending.delete(state.id)
          return void carryOut(state, switching)
        }
        case "interrupted":
          // ESC while the failed run ended: the switch waits for nothing any more.
          if (signal.byUser) pending.delete(state.id)
          return
        case "userMessage": {
          if (!signal.genuine || !state.fallback) return
          pending.delete(state.id)
          const back = state.fallback.userModel
          ctx.logger.log("info", `session ${state.id}: the user wrote; fallback episode over${back ? `, back to ${modelKey(back)}` : ""}`)
          // Where the model belongs to the session (2.x), the fallback run may still be live:
          // the idle that would have put it back would find the episode over already.
          restoreUserModel(state)
          // 2.x names no model on a user turn (the adapter reports the newest step's, the
          // fallback's): such a turn is on the user's own model, as it is on 1.x (adapter.ts).
          const own = userTurnModel(state.fallback, signal.setup?.model)
          if (own) state.setup = { ...state.setup, model: own }
          state.fallback = undefined
          return
        }
      }
    },
    takeOver,
    forget(state) {
      pending.delete(state.id)
      underWay.delete(state.id)
    },
    dispose() {
      pending.clear()
      underWay.clear()
    },
  }
}

/** Every `fallbackModels` entry the config names: top level, profiles and per provider. */
function configuredEntries(resolved: ResolvedOptions): string[] {
  const out = new Set<string>(resolved.options.fallbackModels)
  const sections: unknown[] = [resolved.options.defaultFast, resolved.options.defaultSlow, ...Object.values(resolved.options.modelProfiles ?? {})]
  for (const section of sections) {
    const list = (section as { fallbackModels?: unknown } | undefined)?.fallbackModels
    if (Array.isArray(list)) for (const entry of list) if (typeof entry === "string") out.add(entry)
  }
  return [...out]
}
