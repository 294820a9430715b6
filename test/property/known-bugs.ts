/**
 * Invariant violations the property runs have found and that are not fixed yet. A violation
 * matching one of these is counted and reported, but does not fail the CI property: every
 * other violation still does. Each entry has a strict reproduction in known-bugs.test.ts
 * (marked `test.failing`); when the bug is fixed that test starts failing: delete the entry
 * here and turn the reproduction into a plain test.
 */
import type { Violation } from "./oracle.ts"

export type KnownBug = {
  id: string
  summary: string
  matches(v: Violation): boolean
}

export const KNOWN_BUGS: KnownBug[] = [
  {
    id: "K20-esc-after-own-abort-landed",
    summary:
      "A limit of what the host tells, not a plugin fault: a host that carries out our abort, answers, and reports it " +
      "only afterwards (1.18 reports first), with the user's ESC arriving in between and only one interruption reported " +
      "for the two stops. One interruption after an accepted abort is read as the abort's late report, so the continue " +
      "follows. Found by the soak (seed 42). Reading it as the user's instead would cost every late-reporting host its " +
      "abort + continue. The same on 2.x (the 2.x soak hits it on every seed): both stops say reason \"user\", and our " +
      "interrupt did stop the run, so the host answers interrupted: true.",
    matches: (v) => v.invariant === "2-after-esc" && v.facts.escAfterOwnAbortLanded === true,
  },
]

/** Found by the property runs and fixed since (reproductions: known-bugs.test.ts, FIXED). */
export const FIXED_BUGS: KnownBug[] = [
  {
    id: "K27-v2-late-listings-drop-running-tool",
    summary:
      "Found by the 1,000,000-event 2.x soak (seed 1), once: session listings answered 14 s late, taken before a tool " +
      "started, make discovery mark the session stopped (engine.ts stopped, from discovery.ts) after the tool began; the " +
      "open tool is dropped with the run, and the next stall continues and aborts the session while its tool runs. The " +
      "K11 class (discovery trusting stale listings), reached on 2.x; not seen on 1.x with the same timeline. Its " +
      "timeline stopped reproducing once the 2.x shape corrections and the stall path's live check were merged (session 4); " +
      "the change that ended it was not isolated, so the soak keeps watching for the class.",
    // A 2.x trace (its host lines name the wire events), and the engine saw no tool in flight.
    matches: (v) => v.invariant === "1-tool-open" && v.trace.some((l) => l.includes("[session.")) && /no tool in flight/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K28-evicted-session-ladder-restarts",
    summary:
      "Found by the 1,000,000-event 2.x soak (seed 1) in bursts of 1,500 sessions: a session past the tracked cap " +
      "(MAX_TRACKED_SESSIONS) is evicted with the continue it just got, discovery adopts it again as a fresh session, and " +
      "its ladder starts over with the same plain continue: two identical continues with no turn between (K17 for an " +
      "evicted rather than an idled session). Core behaviour; the 2.x event order is what keeps the session tracked long " +
      "enough to get its first continue before eviction. Its timeline stopped reproducing once the stall path's live " +
      "check (abort first) and the 2.x shape corrections were merged (session 4); the change that ended it was not isolated.",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.call === "send(continue)" && /^flood/.test(v.facts.sessionID ?? "") && /attempt 1\//.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K21-v2-form-session-not-read",
    summary:
      "2.x only: `form.created` names its session at data.form.sessionID (no data.sessionID, no durable), and the 2.x " +
      "adapter reads only data.sessionID or the durable aggregate, so it drops the event: an open question form does not " +
      "hold recovery and the session gets a continue while the user is being asked. Fixed by the 2.x forms work " +
      "(issue 14): the adapter reads data.form.sessionID and holds until form.replied / form.cancelled. Found by the 2.x " +
      "property run on its first seed.",
    matches: (v) => v.invariant === "5-awaiting" && (v.facts.awaitingVia ?? []).some((via) => via.includes("form.created")),
  },
  {
    id: "K22-v2-prompt-after-core-gave-up",
    summary:
      "2.x: the port reads the last messages before each prompt (the duplicate check) with no bound of its own, and made " +
      "the prompt whenever the read answered: seconds after the core had given up on the send (sendTimeoutMs) and moved " +
      "on, after the user's ESC. Found by the first 2.x property run. The read now gets half the send's time and no call " +
      "is made once the time is spent.",
    matches: (v) => v.invariant === "2-after-esc" && v.facts.call?.startsWith("send") === true,
  },
  {
    id: "K23-v2-prompt-after-esc-during-check",
    summary:
      "2.x: the same history check, answered in time, but the user pressed ESC (or paused, or a question opened) while it " +
      "was out; the prompt decided before went out behind the ESC. The port now asks the core (SendRequest.stillWanted) " +
      "just before its call. 1.x makes its call at once and never had the window.",
    matches: (v) => v.invariant === "2-after-esc" && v.facts.call?.startsWith("send") === true,
  },
  {
    id: "K26-v2-esc-just-before-own-interrupt",
    summary:
      "2.x: the user's ESC ends the run in the same moment our interrupt goes out. 2.x says reason \"user\" for both, the " +
      "host reports one interruption and accepts our call at once, so the core took the ESC for its own abort's echo and " +
      "continued 5 s later. 2.x does tell: interrupt answers { interrupted: false } when no run was there to stop, which " +
      "the port now reports as a failed abort (the interruption is then the user's). Found by the 2.x soak (seeds 3, 7).",
    matches: (v) => v.invariant === "2-after-esc" && v.facts.escDuringOwnAbortWindow === true,
  },
  {
    id: "K25-v2-prompt-after-output-during-check",
    summary:
      "2.x: as K24, with the model producing output (or the run ending or starting) during the history check: the continue " +
      "decided for the stall before went out after the turn, and the next stall repeated it with no turn between. Found by " +
      "the 2.x soak (seed 3). stillWanted now also reports model output and run changes since the decision.",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.call === "send(continue)",
  },
  {
    id: "K24-v2-prompt-after-user-wrote-during-check",
    summary:
      "2.x: the user wrote while the history check was out; the continue decided for the turn before went out into the new " +
      "episode, and the next stall sent another: two continues past a cap of one, with no turn between. stillWanted also " +
      "says 'the user wrote' when a genuine user message arrived since the prompt was decided.",
    matches: (v) => (v.invariant === "4-lifetime" || v.invariant === "3b-duplicate") && v.facts.call === "send(continue)",
  },
  {
    id: "K19-failure-prompt-behind-other-prompt",
    summary:
      "The finished-turn judge's continue was accepted but not yet shown when a streaming error armed the failure chain, " +
      "whose recovery prompt went straight out behind it: two continues with no turn between. Found by the soak (seed 11) " +
      "with injectIntervalMs 0 (the default 5 s spacing hides it).",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.call === "send(continue)" && /streaming failure .*recovery prompt/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K18-failure-prompt-overdue-repeated",
    summary:
      "K10 in the streaming-failure chain: a recovery prompt whose call timed out counted as settled, so once the echo " +
      "grace passed the next identical prompt went out while the first could still be carried out; both land with no " +
      "turn between. Found by the soak (seed 7): overdue answers exist only there.",
    matches: (v) =>
      v.invariant === "3b-duplicate" && v.facts.call === "send(continue)" && v.facts.earlierOutcome === "overdue" && /streaming failure .*recovery prompt/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K17-rediscovered-run-resets-ladder",
    summary:
      "A session that discovery marked idle (two listings without it) and then finds running again is treated as a new " +
      "run: markBusy moves idleEpoch, so the ladder's 'this run, nothing since' test no longer sees the continue that went " +
      "unanswered before, and the next stall repeats the same plain continue instead of escalating: two identical " +
      "continues with no turn of the host between (low severity: needs listings that disagree with the events for minutes; " +
      "found after a host deleted a session and answered our calls 20 s late).",
    matches: (v) =>
      v.invariant === "3b-duplicate" && v.facts.call === "send(continue)" && v.trace.some((l) => /found running by discovery/.test(l)),
  },
  {
    id: "K2-reabort-before-abort-reported",
    summary:
      "After our abort was accepted and the continue that follows it failed, the next stall aborts again although the host " +
      "has not yet reported the first interruption and nothing else happened: two aborts with no turn between (low " +
      "severity: only when the host reports the abort more than ~2 s late; the second abort hits a run that is over).",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.call === "abort" && v.facts.ownAbortUnreported === true,
  },

  {
    id: "K4-esc-taken-for-own-abort",
    summary:
      "A user ESC that arrives while our own abort is still unanswered (hanging until sendTimeoutMs, or accepted but not " +
      "yet reported by the host) falls inside ownAbortUntil and is consumed as the abort's echo: the ESC latch is never " +
      "set, and the ladder later continues the session the user just stopped. 6454ec1 closes the window once the abort " +
      "has failed, which is after the ESC was already consumed.",
    matches: (v) => v.invariant === "2-after-esc" && v.facts.escDuringOwnAbortWindow === true,
  },
  {
    id: "K10-overdue-answer-repeated",
    summary:
      "A host answer that lands after sendTimeoutMs counts as failed, so the next stall repeats the same recovery while the " +
      "first is still on its way: both land (two aborts, or two prompts) with no turn between. Only in the soak: CI " +
      "scenarios answer within sendTimeoutMs.",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.earlierOutcome === "overdue",
  },
  {
    id: "K16-failure-retry-before-prompt-shown",
    summary:
      "The streaming-failure chain judges a recovery prompt by busy within max(toolTextCheckDelayMs, 1 s) of the host " +
      "accepting it. A host that accepted the prompt but shows it (own user message, busy) later than that gets the next " +
      "identical prompt first: two continues with no turn between (low severity: OpenCode starts the run within " +
      "milliseconds of accepting a prompt; the K12 residue once the chain timed from the settled send).",
    matches: (v) =>
      v.invariant === "3b-duplicate" && v.facts.call === "send(continue)" && v.facts.ownPromptUnseen === true && /streaming failure .*recovery prompt/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K15-slot-lost-on-delete",
    summary:
      "The one-call-per-session slot lives in the session state. When the host deletes a session while a call to it is " +
      "still pending and a late event brings the id back, the new state starts with a free slot and a second call goes " +
      "out beside the first (low severity: both go to a deleted session; residue of the dropped-state fix in 6454ec1).",
    matches: (v) => v.invariant === "3a-one-in-flight" && v.facts.droppedMidCall === true,
  },
  {
    id: "K7-clock-step-back",
    summary:
      "The ladder compares wall-clock stamps (lastRecovery.at >= busySince): after the clock steps backwards a continue " +
      "stamped before the step looks older than the busy period, so the next stall sends the same plain continue again " +
      "instead of escalating. realTime().now() is Date.now(); a monotonic source would remove the whole class.",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.call === "send(continue)" && v.facts.clockWentBack === true,
  },
  {
    id: "K12-failure-retry-clock-starts-at-send",
    summary:
      "The streaming-failure chain times its next step from the moment it decided to send (failure-chain.ts: " +
      "wakeAt = now + max(1 s, ...)), not from the send's completion: when the host takes most of sendTimeoutMs to accept " +
      "recovery prompt 1, prompt 2 follows it within milliseconds, before the host could show any effect: two identical " +
      "continues with no turn between.",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.call === "send(continue)" && /streaming failure .*recovery prompt/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K5-subagent-nudge-repeats",
    summary:
      "A stuck subagent is nudged again every time its parent starts a new busy period (the orphan state machine forgets " +
      "`nudged` when the parent goes idle), with nothing from the child in between: two identical nudges to the child with " +
      "no turn between (bounded by the child's lifetime cap).",
    matches: (v) => v.invariant === "3b-duplicate" && v.facts.call === "send(correction)" && /nudging the subagent/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K14-idle-judgement-spins-after-clock-step-back",
    summary:
      "With minActivityGapMs 0, a session that goes idle after the wall clock stepped back has quietFor < 0 = gap, so " +
      "modules/finished-turn.ts (now runtime/turn-pass.ts) reschedules its judgement with delay min(gap, gap - quietFor) = 0, forever: a zero-delay timer loop that, " +
      "on real timers, spins the host's CPU until the clock catches up with the step.",
    matches: (v) => v.invariant === "6-bounds" && /timer storm/.test(v.detail) && v.facts.clockWentBack === true,
  },  {
    id: "K1-late-tool-not-rechecked",
    summary:
      "A recovery decided before a tool call started is still carried out while that tool runs (a continue, or the abort " +
      "of abort+continue): the backoff re-check in paths/stall/path.ts compares lastActivityAt > detectedAt (an event in the same " +
      "millisecond passes), and the continue 2 s after our own abort checks neither activity nor open tools (a run the " +
      "host starts from its queue keeps busy, so busySince does not move).",
    matches: (v) =>
      v.invariant === "1-tool-open" &&
      (v.facts.call?.startsWith("send") === true || v.facts.call === "abort") &&
      v.facts.youngTools !== undefined &&
      v.facts.lastDecisionSeq !== undefined &&
      v.facts.lastDecisionSeq >= 0 &&
      v.facts.youngTools.every((t) => t.startSeq > v.facts.lastDecisionSeq!),
  },
  {
    id: "K11-discovery-trusts-one-listing",
    summary:
      "Session discovery marks a busy session idle as soon as one listing omits it (a listing taken before a run started " +
      "and answered late, an empty answer, or on v1 any malformed status answer, which the port turns into 'nothing is " +
      "running'); markIdle then wipes the open tools and questions. The next listing adopts the session again as busy with " +
      "no tool, and the stall ladder continues and aborts a session whose tool is still running.",
    matches: (v) => (v.invariant === "1-tool-open" && v.facts.rediscoveredMidTool === true) || (v.invariant === "5-awaiting" && v.facts.rediscoveredMidAsk === true),
  },
  {
    id: "K13-error-keeps-dead-tools",
    summary:
      "A session error ends the run, but the engine keeps the run's open tool calls (only idle and interruptions clear " +
      "them). If the next run starts a call with the same id (providers that number calls call_0, call_1... per turn) " +
      "and the idle was lost, the new call inherits the dead one's start time: past the 30-minute ceiling it no longer " +
      "protects the session, and a fresh tool gets a continue or an abort.",
    matches: (v) => v.invariant === "1-tool-open" && v.facts.youngTools !== undefined && v.facts.youngTools.every((t) => t.reopenedAfterError),
  },
  {
    id: "K3-sweep-forgets-protection",
    summary:
      "The idle sweep (and eviction) drops a session together with its ESC latch, its lifetime continue count and its open " +
      "questions. When that session runs again without a genuine user message the plugin sees it reach it (a lost or late " +
      "user event, a run started by discovery, or our own continue landing just after the sweep: the sweep judges age by " +
      "lastSeenAt, which our own sends do not refresh), it is a fresh session: continues after ESC, past lifetimeMaxContinues, " +
      "or while a question is open.",
    matches: (v) => (v.invariant === "2-after-esc" || v.invariant === "4-lifetime" || v.invariant === "5-awaiting") && v.facts.forgotten === true,
  },
  {
    id: "K6-orphan-parent-unstarted-child",
    summary:
      "The orphan-parent check counts a child that was created but never ran (no busy yet) as finished, and aborts the " +
      "parent's open task call subagentWaitMs + gracePeriodMs later. A finished child should have run at least once.",
    matches: (v) => v.invariant === "1-tool-open" && v.facts.call === "abort" && /orphan parent/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K9-stuck-subagent-nudged-mid-tool",
    summary:
      "A subagent running a tool with no output for 180 s (STUCK_CHILD_TOOL_MS) is sent a recovery prompt while that tool " +
      "is still open, far below the 30-minute ceiling that protects every other session's tool (invariant 1); the parent " +
      "need not even hold a task call.",
    matches: (v) => v.invariant === "1-tool-open" && v.facts.call === "send(correction)" && /nudging the subagent/.test(v.facts.lastLog ?? ""),
  },
  {
    id: "K8-deleted-session-call-in-flight",
    summary:
      "A dropped session state keeps acting: when a session is deleted (or evicted) while a recovery of it is in flight, " +
      "the recovery's continuation re-arms the watchdog of the dropped state (paths/stall/path.ts: ensureDeadline after the send), " +
      "which goes on detecting stalls and sending beside the fresh state that later events create: two calls in flight " +
      "for one session, and a second set of budgets.",
    // Any invariant: the zombie state acts on stale facts (old tools, no ESC latch, its own slot).
    matches: (v) => v.facts.droppedMidCall === true,
  },
]

/** The id of the known bug a violation matches, or undefined for a new finding. */
export function classify(v: Violation): string | undefined {
  return KNOWN_BUGS.find((k) => k.matches(v))?.id
}
