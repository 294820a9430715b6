/**
 * A full context window, from the overflow (or our own saturation check) to the point where the
 * session has room again: the context path's decisions. Its step (path.ts) feeds it signals and
 * the outcomes of its own calls, and asks for what it answers.
 *
 * - OpenCode 1.18 compacts an overflowed session by itself and continues it (measured: the
 *   `compaction` part, the summary message, `session.compacted`, a synthetic continue). While
 *   it does, nothing of ours may go out; once its compaction ends, the episode is over and
 *   every recovery is back (the next turn is judged as any other).
 * - Where the host does not compact (no compaction started by the time the run ended, or its
 *   compaction failed), we ask it to, once per episode, and after it completes send one
 *   continue that says what happened. If that compaction fails, or the session overflows again
 *   before a turn went through, we stand down until the user writes.
 */
export type ContextEpisode =
  | { phase: "clear" }
  /** The window is full and the host may be compacting it by itself (`hostCompacting`). */
  | { phase: "full"; since: number; cause: "overflow" | "saturation"; hostCompacting: boolean; hostFailed: boolean }
  /** We asked the host to compact (`called`: the call settled and may have been carried out). */
  | { phase: "compacting"; since: number; cause: "overflow" | "saturation"; called: boolean }
  /** Our compaction completed: the one continue is due once the session is idle (`sending`: it is on its way). */
  | { phase: "compacted"; since: number; cause: "overflow" | "saturation"; sending: boolean }
  /** Our continue went out; `answered`: the model produced something since. */
  | { phase: "resumed"; since: number; answered: boolean }
  /** Nothing more of ours until the user writes (our compaction failed, or it overflowed again). */
  | { phase: "stood-down"; since: number; why: string }

export const CLEAR_CONTEXT: ContextEpisode = { phase: "clear" }

export type ContextEvent =
  | { type: "overflow" }
  /** Our own saturation check found the window nearly full at the end of a turn (a parent session). */
  | { type: "saturated" }
  | { type: "compaction"; phase: "started" | "ended" | "failed" }
  /** The run ended (`busy` false) or started. */
  | { type: "idle" }
  | { type: "modelOutput" }
  | { type: "genuineUser" }
  /** Our compaction call settled: "ok" (or timed out, and may still be carried out), "refused" (failed), "retry" (not sent). */
  | { type: "compactCalled"; outcome: "ok" | "refused" | "retry" }
  /** Our continue settled: sent, refused ("failed"), or not sent yet ("retry": held or another call was out). */
  | { type: "continueCalled"; outcome: "sent" | "failed" | "retry" }

/** What the path does next: nothing, ask for compaction, send the continue, or tell the log and history. */
export type ContextAction =
  | { kind: "none" }
  | { kind: "compact"; why: string }
  | { kind: "continue" }
  | { kind: "released"; why: string }
  | { kind: "stand-down"; why: string }

export type ContextStep = { episode: ContextEpisode; action: ContextAction }

const NOTHING: ContextAction = { kind: "none" }

function stay(episode: ContextEpisode): ContextStep {
  return { episode, action: NOTHING }
}

function standDown(now: number, why: string): ContextStep {
  return { episode: { phase: "stood-down", since: now, why }, action: { kind: "stand-down", why } }
}

/** `idle`: the session is not running now (the compaction and the continue wait for that). */
export function nextContextEpisode(episode: ContextEpisode, event: ContextEvent, now: number, idle: boolean): ContextStep {
  if (event.type === "genuineUser") return episode.phase === "clear" ? stay(episode) : { episode: CLEAR_CONTEXT, action: { kind: "released", why: "the user wrote" } }
  switch (episode.phase) {
    case "clear":
      if (event.type === "overflow") return stay({ phase: "full", since: now, cause: "overflow", hostCompacting: false, hostFailed: false })
      // Ours to compact at the path's next look (it is the end of a turn: nothing of the host's is coming).
      if (event.type === "saturated") return stay({ phase: "full", since: now, cause: "saturation", hostCompacting: false, hostFailed: false })
      return stay(episode)
    case "full":
      switch (event.type) {
        case "overflow":
          // 1.18 reports its failed compaction as a second overflow.
          return stay(episode.hostCompacting ? { ...episode, hostCompacting: false, hostFailed: true } : episode)
        case "compaction":
          if (event.phase === "started") return stay({ ...episode, hostCompacting: true })
          if (event.phase === "ended") return { episode: CLEAR_CONTEXT, action: { kind: "released", why: "the host compacted the context" } }
          return ourCompaction({ ...episode, hostCompacting: false, hostFailed: true }, idle)
        case "idle":
          return ourCompaction(episode, idle)
        default:
          return stay(episode)
      }
    case "compacting":
      switch (event.type) {
        case "overflow":
          return standDown(now, "the context overflowed again while it was being compacted")
        case "compaction":
          if (event.phase === "ended") return afterCompaction({ phase: "compacted", since: episode.since, cause: episode.cause, sending: false }, idle)
          if (event.phase === "failed") return standDown(now, "the host could not compact the context")
          return stay(episode)
        case "compactCalled":
          if (event.outcome === "refused") return standDown(now, "the host refused to compact the context")
          // Not sent after all (another call of ours was out): asked again at the path's next look.
          if (event.outcome === "retry") return stay({ phase: "full", since: episode.since, cause: episode.cause, hostCompacting: false, hostFailed: false })
          return stay({ ...episode, called: true })
        default:
          return stay(episode)
      }
    case "compacted":
      switch (event.type) {
        case "overflow":
          return standDown(now, "the context overflowed again right after the compaction")
        case "idle":
          return afterCompaction(episode, idle)
        case "continueCalled":
          if (event.outcome === "sent") return stay({ phase: "resumed", since: episode.since, answered: false })
          if (event.outcome === "failed") return standDown(now, "the continue after the compaction could not be sent")
          return stay({ ...episode, sending: false })
        default:
          return stay(episode)
      }
    case "resumed":
      switch (event.type) {
        case "overflow":
          return standDown(now, "the context overflowed again after the compaction and the continue")
        case "modelOutput":
          return episode.answered ? stay(episode) : stay({ ...episode, answered: true })
        case "idle":
          // The continued turn went through: the episode is over, the next overflow is a new one.
          return idle && episode.answered ? { episode: CLEAR_CONTEXT, action: { kind: "released", why: "the turn after the compaction went through" } } : stay(episode)
        case "compaction":
          return event.phase === "ended" ? { episode: CLEAR_CONTEXT, action: { kind: "released", why: "the host compacted the context" } } : stay(episode)
        default:
          return stay(episode)
      }
    case "stood-down":
      // The user (or the host by itself) compacting it gives the window room again.
      if (event.type === "compaction" && event.phase === "ended") return { episode: CLEAR_CONTEXT, action: { kind: "released", why: "the host compacted the context" } }
      return stay(episode)
  }
}

/** Ours to compact once the run is over, unless the host already is. */
function ourCompaction(episode: Extract<ContextEpisode, { phase: "full" }>, idle: boolean): ContextStep {
  if (!idle || episode.hostCompacting) return stay(episode)
  const why =
    episode.cause === "saturation"
      ? "the context window is nearly full"
      : episode.hostFailed
        ? "the host's own compaction failed"
        : "the host did not compact the full context"
  return { episode: { phase: "compacting", since: episode.since, cause: episode.cause, called: false }, action: { kind: "compact", why } }
}

/** The one continue, once the session is idle and none is on its way (1.x repeats its idle). */
function afterCompaction(episode: Extract<ContextEpisode, { phase: "compacted" }>, idle: boolean): ContextStep {
  return idle && !episode.sending ? { episode: { ...episode, sending: true }, action: { kind: "continue" } } : stay(episode)
}

/** Whether the episode keeps every continue of any path out of the session. */
export function contextHolds(episode: ContextEpisode): boolean {
  return episode.phase === "full" || episode.phase === "compacting" || episode.phase === "stood-down"
}
