/** What the engine, its runtime (src/runtime/) and the effect runner share: time, the host port, logging, option lookup, the timer and mayAct. */
import type { HostPort } from "./port.ts"
import type { JournalBook } from "./journal-book.ts"
import type { Options } from "../options/index.ts"
import type { TimeSource } from "./clock.ts"
import type { CoreLogger } from "./logger.ts"
import type { PauseSource } from "./pauses.ts"
import type { RateWaitStore } from "./carried-waits.ts"
import type { GoalSource } from "./goals.ts"
import type { MayAct } from "../runtime/may-act.ts"
import type { Wake } from "./scheduler.ts"
import type { SessionState } from "./session-state.ts"

export type EngineContext = {
  readonly time: TimeSource
  readonly port: HostPort
  readonly logger: CoreLogger
  readonly pauses: PauseSource
  /** Where rate-limit waits are kept across a restart (carried-waits.ts); absent: in memory only. */
  readonly rateWaits?: RateWaitStore
  /** Where the sessions' goals are kept (goals.ts); absent: no session has a goal. */
  readonly goals?: GoalSource
  /** The user's history of interventions (journal-book.ts); absent in contexts built by hand. */
  readonly journal?: JournalBook
  /** Options as they apply to this session right now (profile resolved from its current model). */
  effective(state: SessionState): Options
  /**
   * The session's one timer (scheduler.ts): wakes `owner` at `at`, replacing its earlier wake
   * (`undefined` cancels it); `run` gets the holds as they are when the timer fires.
   */
  wake(state: SessionState, owner: string, at: number | undefined, run: (wake: Wake) => void): void
  /**
   * Whether anything of ours may reach the session now (runtime/may-act.ts): the one answer,
   * over the user's guards, the holds the recovery paths state, and what of ours is in flight.
   */
  readonly mayAct: MayAct
  /**
   * The user stopped the session, found out after the fact (an interruption held undecided
   * while our abort was out): the same stand-down as a reported ESC, the paths included.
   */
  userStopped(state: SessionState): void
  /** The session latched completion (task_complete): every path, the judge and a recovery under way stand down. */
  standDown(state: SessionState): void
}
