/**
 * Fallback models, as pure decisions: when a model that cannot serve the session for now is
 * worth leaving rather than waiting for, which model comes next, which model a prompt of ours
 * goes out with, and where a genuine user message goes. No clock and no I/O: `now` is passed in.
 *
 * One episode runs from the first switch to the next genuine user message. Within it every
 * model, the user's own included, is used at most once, so two failing models can never take
 * turns: once the list is spent the session falls back to the normal wait or give-up. Going
 * back to the user's model once its wait is over stays within the episode for that reason: a
 * second failure there moves on down the list, never back to a model that stood in already.
 */
import type { ModelRef, TurnSetup } from "./port.ts"

export type FallbackEpisode = {
  /** The model of the user's last genuine turn: where the user's next message goes. */
  userModel?: ModelRef
  /** The model the session goes on with now. */
  active: ModelRef
  /** Every model used in this episode ("provider/model"), the user's included. */
  tried: readonly string[]
  /** Why the latest switch happened (for the log, the status and the continue). */
  why: string
  at: number
  /**
   * The fallback model the session went back from, once its user's model's wait was over
   * (`active` is the user's model again): a message aimed at it still goes to the user's.
   */
  returnedFrom?: ModelRef
}

export type FallbackChoice =
  | { kind: "off" }
  | { kind: "switch"; model: ModelRef; episode: FallbackEpisode }
  | { kind: "spent"; tried: readonly string[] }

export function modelKey(model: ModelRef): string {
  return `${model.providerID}/${model.modelID}`
}

/** "provider/model" (the model id may itself hold slashes); undefined for anything else. */
export function parseModelEntry(entry: string): ModelRef | undefined {
  if (typeof entry !== "string") return undefined
  const text = entry.trim()
  const slash = text.indexOf("/")
  if (slash <= 0 || slash === text.length - 1 || /\s/.test(text)) return undefined
  return { providerID: text.slice(0, slash), modelID: text.slice(slash + 1) }
}

/**
 * Whether a wait is better spent on another model: the host retries, or the plugin would wait,
 * for longer than one stall budget (the time the plugin already lets a silent session have).
 */
export function waitWorthSwitching(waitMs: number | undefined, stallBudgetMs: number): boolean {
  return waitMs !== undefined && Number.isFinite(waitMs) ? waitMs > stallBudgetMs : waitMs === Infinity
}

/**
 * The next model after `current` fails: the first entry of `list` not yet used in this
 * episode, not the current model, and not one the host said it does not know.
 */
export function nextFallback(
  episode: FallbackEpisode | undefined,
  current: ModelRef | undefined,
  list: readonly string[],
  unknown: ReadonlySet<string>,
  why: string,
  now: number,
): FallbackChoice {
  if (list.length === 0) return { kind: "off" }
  const tried = new Set(episode?.tried ?? [])
  if (current) tried.add(modelKey(current))
  if (episode) tried.add(modelKey(episode.active))
  for (const entry of list) {
    const model = parseModelEntry(entry)
    if (!model || unknown.has(entry.trim())) continue
    const key = modelKey(model)
    if (tried.has(key)) continue
    const userModel = episode ? episode.userModel : current
    return { kind: "switch", model, episode: { userModel, active: model, tried: [...tried, key], why, at: now } }
  }
  return { kind: "spent", tried: [...tried] }
}

/** The setup a prompt of ours goes out with: the episode's model while one runs, same agent. */
export function promptSetup(setup: TurnSetup, episode: FallbackEpisode | undefined): TurnSetup {
  return episode ? { agent: setup.agent, model: episode.active } : setup
}

/**
 * A genuine user message during an episode that is aimed at a model we switched to (a client
 * that sends no model gets the last message's, and the 1.x terminal UI shows it as selected:
 * the active fallback, or the one the session went back from) goes back to the user's own
 * model. Any other model is the user's own choice and is left alone. Undefined: leave the
 * message as it is.
 */
export function userTurnModel(episode: FallbackEpisode | undefined, model: ModelRef | undefined): ModelRef | undefined {
  if (!episode?.userModel) return undefined
  const user = modelKey(episode.userModel)
  const ours = [episode.active, episode.returnedFrom].flatMap((m) => (m && modelKey(m) !== user ? [modelKey(m)] : []))
  if (model && !ours.includes(modelKey(model))) return undefined
  return ours.length > 0 ? episode.userModel : undefined
}

/** The session runs on the user's model again within the episode (it went back after the wait). */
export function backOnUserModel(episode: FallbackEpisode): boolean {
  return episode.userModel !== undefined && modelKey(episode.userModel) === modelKey(episode.active)
}

/** Entries of `entries` that name no model in the host's list (format errors count as unknown). */
export function unknownModelEntries(entries: readonly string[], known: readonly ModelRef[]): string[] {
  const knownKeys = new Set(known.map(modelKey))
  const out: string[] = []
  for (const entry of entries) {
    const model = parseModelEntry(entry)
    const name = typeof entry === "string" ? entry.trim() : String(entry)
    if ((!model || !knownKeys.has(modelKey(model))) && !out.includes(name)) out.push(name)
  }
  return out
}
