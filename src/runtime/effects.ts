/**
 * Carries out what a path asked for (runtime/path.ts PathEffect) and tells the path how each
 * of its effects ended: the path names its effects as data, and the hooks the shared host
 * actions need (run-effect.ts Delivery) are built here, never by the path.
 */
import type { EngineContext } from "../core/context.ts"
import { modelKey } from "../core/fallback.ts"
import { readTodosBounded, withTimeout } from "../core/host-calls.ts"
import { errorText } from "../core/logger.ts"
import { askHostRun } from "../core/host-run.ts"
import { runEffect, type Delivery } from "../core/run-effect.ts"
import type { SessionState } from "../core/session-state.ts"
import type { EffectOutcome, PathEffect } from "./path.ts"
import { countEpisodeContinue, episodeContinueSent } from "./episode-continue.ts"

/** How the path's runtime hears back: an effect of the path settled, or a call of our tools has its answer. */
export type EffectHooks = {
  settle(id: number, outcome: EffectOutcome): void
  reply(call: number, answer: { ok: boolean; text: string }): void
  /** The path's step for another session (by id) is to look again (PathEffect `tell`). */
  tell(sessionID: string): void
}

/** Runs one effect on `state` (the session it is for); one that reaches the host settles later, through `hooks.settle`. */
export function runPathEffect(ctx: EngineContext, state: SessionState, effect: PathEffect, hooks: EffectHooks): void {
  const settle = (id: number, outcome: EffectOutcome) => hooks.settle(id, outcome)
  switch (effect.kind) {
    case "log":
      ctx.logger.log(effect.level, effect.text)
      return
    case "note-held":
      state.lastHeldReason = effect.key
      return
    case "journal-refused":
      ctx.journal?.refused(state, effect.tag, effect.action, effect.why, effect.reason)
      return
    case "ask-host-run":
      void askHostRun(ctx, state).then((run) => settle(effect.id, { kind: "host-run", run }))
      return
    case "episode-continue":
      void episodeContinue(ctx, state, effect).then((outcome) => settle(effect.id, outcome))
      return
    case "goal":
      ctx.goals?.change(state.id, effect.change)
      return
    case "act": {
      const id = effect.id
      if (id === undefined) return void runEffect(ctx, state, effect.effect, effect.via)
      const via: Delivery = { ...effect.via, onCommit: () => settle(id, { kind: "committed" }) }
      void runEffect(ctx, state, effect.effect, via).then((outcome) => settle(id, { kind: "delivered", outcome }))
      return
    }
    case "read-todos":
      void readTodosBounded(ctx, state.id, ctx.effective(state).sendTimeoutMs).then((todos) => settle(effect.id, { kind: "todos", todos }))
      return
    case "reply":
      hooks.reply(effect.call, { ok: effect.ok, text: effect.text })
      return
    case "latch-complete":
      state.completed = true
      ctx.standDown(state)
      return
    case "watch-output":
      state.outputWatched = true
      return
    case "tell":
      hooks.tell(effect.session)
      return
    case "read-messages":
      void withTimeout(ctx.time, effect.timeoutMs, "history read", () => ctx.port.readMessages(state.id, effect.limit)).then(
        (messages) => settle(effect.id, { kind: "messages", messages }),
        () => settle(effect.id, { kind: "messages", messages: undefined }),
      )
      return
    case "carry-wait":
      return carryWait(ctx, state, effect)
    case "fallback-episode":
      state.fallback = effect.episode
      if (effect.model) state.setup = { ...state.setup, model: effect.model }
      return
    case "restore-model": {
      const restore = ctx.port.restoreModel
      if (!restore) return
      withTimeout(ctx.time, ctx.effective(state).sendTimeoutMs, "model restore", () => restore.call(ctx.port, state.id, effect.model)).catch((error: unknown) =>
        ctx.logger.log("warn", `session ${state.id}: could not put the session back on ${modelKey(effect.model)}: ${errorText(error)}`),
      )
      return
    }
  }
}

/**
 * The wait file is shared with other processes, and the engine's clock may run ahead of the wall
 * after a backward step: what goes in is wall time.
 */
function carryWait(ctx: EngineContext, state: SessionState, effect: Extract<PathEffect, { kind: "carry-wait" }>): void {
  const store = ctx.rateWaits
  if (!store) return
  const wait = effect.wait
  if (!wait) {
    store.end(state.id)
    ctx.logger.log("debug", `session ${state.id}: rate-limit wait removed from the wait file (${effect.why})`)
    return
  }
  const wall = ctx.time.wall?.()
  const wallTime = (at: number) => Math.round(wall === undefined ? at : wall + (at - ctx.time.now()))
  const saved: Parameters<typeof store.save>[0] = { sessionID: state.id, rung: wait.rung, until: wallTime(wait.until), since: wallTime(wait.since) }
  if (state.setup.agent) saved.agent = state.setup.agent
  if (state.setup.model) saved.model = state.setup.model
  if (wait.carriedOver) saved.carriedOver = true
  store.save(saved)
}

/**
 * A plain continue is counted before it goes out; an abort then continue once every check and
 * the abort's veto passed. The attempt the prompt quotes is fixed when it is counted: output of
 * the run being aborted (or of a prompt the host picks up meanwhile) resets the episode, and
 * must not make the continue read "Attempt 0/3".
 */
async function episodeContinue(ctx: EngineContext, state: SessionState, effect: Extract<PathEffect, { kind: "episode-continue" }>): Promise<EffectOutcome> {
  const count = () => countEpisodeContinue(state, effect.recovery, effect.effect.reason, ctx.time.now(), ctx.effective(state).loopWindowMs)
  let attempt = state.episodeRetries + 1
  let vetoed: string | undefined
  let record: SessionState["lastRecovery"]
  const via: Delivery = { label: effect.label, silentMs: effect.silentMs, attempt: () => attempt, journal: effect.tag }
  if (effect.effect.kind === "continue") {
    count()
    attempt = state.episodeRetries
    via.onSent = () => episodeContinueSent(state, ctx.time.now())
  } else {
    via.onCommit = () => {
      count()
      attempt = state.episodeRetries
      record = state.lastRecovery
    }
    via.onSent = () => {
      // The continue went out seconds after the decision: output of the run being aborted in
      // between does not answer it, so the record takes the output stamp as of now. Its run stays
      // the decision's: if the abort ended that run, the continue starts a fresh one.
      if (record && state.lastRecovery === record) state.lastRecovery = { ...record, outputAt: state.lastModelOutputAt }
      episodeContinueSent(state, ctx.time.now())
    }
    via.onVetoed = (why) => {
      vetoed = why
    }
  }
  const outcome = await runEffect(ctx, state, effect.effect, via)
  const heldBy = outcome === "held" ? (ctx.mayAct(state, "touch", ctx.time.now())?.reason ?? "held") : undefined
  return { kind: "delivered", outcome, ...(vetoed !== undefined ? { vetoed } : {}), ...(heldBy !== undefined ? { heldBy } : {}) }
}
