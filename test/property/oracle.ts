/**
 * The oracle: an independent account of what the host has told the plugin, and the
 * invariants every call the plugin makes must respect. It never looks at engine state to
 * decide what is allowed; it only reads the engine to check that its state stays bounded.
 *
 * Invariants (numbering follows issue 7):
 *  1. No abort or send to a session while one of its tool calls is open. A tool is open from
 *     its start until its end, an idle of the session, or an interruption of the run. Exempt:
 *     every open tool is older than TOOL_WEDGED_CEILING_MS, or the call is the sanctioned
 *     live-loop abort (hook below, not yet implemented in the engine).
 *  2. After a user ESC, nothing reaches the session until a genuine user message.
 *  3. a) At most one session-changing host call (send, abort, compact, command) in flight per
 *        session. A call is in flight from the moment it is made until it settles or until
 *        sendTimeoutMs has passed on the clock (the engine abandons it then, by design). The
 *        time runs from when the core asked its port: the 2.x port reads the history before
 *        its prompt, and a host answer past the core's bound is an overdue one.
 *     b) No two identical recoveries delivered to a session without a turn between them.
 *        Identical: same host method and, for sends, the same SendKind.
 *        Delivered: the host accepted the call (settled ok, late or with junk).
 *        A turn lies between recoveries R1 and R2 when, after R1 was made and before R2 was
 *        made, the plugin was told of at least one of: a genuine user message, model output
 *        (modelOutput, a tool start or end, token growth), a run starting (busy after idle)
 *        or a run ending (idle after busy, any interruption). Our own prompt showing up is
 *        not a turn by itself, but the host accepting a *different* recovery of ours does
 *        separate two identical ones (continue, abort, continue is a ladder, not a repeat:
 *        the abort ended the run; abort, continue, abort likewise: the continue began one).
 *  4. Continue-kind sends between two genuine user messages never exceed lifetimeMaxContinues
 *     (as the session's effective options give it at the time of the send). Exempt: the
 *     continue that ends a rate-limit wait, and a streaming-failure recovery or nudge the host
 *     refused or failed (README), see isUncountedIfRefused.
 *  5. Nothing reaches a paused session, or one with an open question/permission. A question
 *     is open from its ask (reported while the session runs) until its answer, the end of the
 *     run (idle, a session error) or a genuine user message.
 *  6. No exception reaches the caller; tracked sessions and per-session collections stay
 *     within their caps (checked by the runner through `checkBounds`).
 *  runs-for-ever: a scenario fired more timers than any finite one should (the runner's cap,
 *     MAX_TIMERS_PER_SCENARIO): the run is cut there, so a chain of timers cannot hang a soak.
 */
import type { RecoveryEngine } from "../../src/core/engine.ts"
import { MAX_TRACKED_SESSIONS } from "../../src/core/engine.ts"
import { effectiveOptions, resolveOptions, TOOL_WEDGED_CEILING_MS, type Options, type ResolvedOptions } from "../../src/options/index.ts"
import { overCap } from "../support/engine-peek.ts"
import { sessionName, spec, type Facts, type HostEvent } from "./events.ts"
import { delivered, type CallScript } from "./model.ts"
import { classify } from "./known-bugs.ts"

export type Invariant = "1-tool-open" | "2-after-esc" | "3a-one-in-flight" | "3b-duplicate" | "4-lifetime" | "5-paused" | "5-awaiting" | "6-exception" | "6-bounds" | "runs-for-ever"

/** Structured facts about a violation, for the known-bug classifier (known-bugs.ts). */
export type ViolationFacts = {
  sessionID?: string
  call?: string
  /** For 1-tool-open: the young open tools, with the trace sequence of their start. */
  youngTools?: Array<{ callID: string; startSeq: number; age: number; reopenedAfterError: boolean }>
  /** Trace sequence of the engine's last stall decision for the session (its log line). */
  lastDecisionSeq?: number
  /** For 3b: how the earlier identical call ended, and the later one. */
  earlierOutcome?: string
  laterOutcome?: string
  /** An abort of ours had been made and the host had not yet reported the interruption. */
  ownAbortUnreported?: boolean
  /** For 3b: a prompt of ours the host accepted had not shown up in the session yet. */
  ownPromptUnseen?: boolean
  /** For 2: the user's ESC arrived while an abort of ours was unanswered or had just failed. */
  escDuringOwnAbortWindow?: boolean
  /** For 2: the user's ESC arrived after the host had carried out our abort but before it reported it. */
  escAfterOwnAbortLanded?: boolean
  /** The engine dropped the session (sweep, eviction) while it held ESC, budget or question state. */
  forgotten?: boolean
  /** The engine's latest log line that names the session, before the call. */
  lastLog?: string
  /** Discovery had (re)adopted the session as running after the tool concerned started. */
  rediscoveredMidTool?: boolean
  /** Discovery had (re)adopted the session as running after the open question was asked. */
  rediscoveredMidAsk?: boolean
  /** The wall clock had stepped backwards earlier in this run. */
  clockWentBack?: boolean
  /** For 3a: the session was deleted or dropped earlier while a call of it was in flight. */
  droppedMidCall?: boolean
  /** For 5-awaiting: the host line that opened each open question (set by the v2 driver). */
  awaitingVia?: string[]
}

export type Violation = {
  invariant: Invariant
  step: number
  at: number
  detail: string
  trace: string[]
  facts: ViolationFacts
  /** Id of the known bug this matches (known-bugs.ts), if any. */
  known?: string
}

/** Host methods that change a session. Reads are side-effect free and not limited here. */
export type MutatingMethod = "send" | "abort" | "compact" | "command"

export type CallRecord = {
  n: number
  method: MutatingMethod
  sessionID: string
  sendKind?: string
  issuedAt: number
  timeoutMs: number
  script: CallScript
  settled: boolean
  released: boolean
  /** A prompt the host carried out has shown up as our own user message (first landed, first shown). */
  shown: boolean
  turnAtIssue: number
  /** Recoveries of other identities the host had accepted for this session, at issue time. */
  othersAtIssue: number
}

type OracleSession = {
  busy: boolean
  tools: Map<string, { tool: string; startedAt: number; startSeq: number; reopenedAfterError: boolean }>
  /** Call ids that were open when a session error ended the run (the engine keeps them). */
  clearedByError: Set<string>
  lastDecisionSeq: number
  /** An abort of ours was made and the host has not reported any interruption since. */
  ownAbortUnreported: boolean
  /** The latching ESC arrived while `ownAbortUnreported` (the engine may take it for its own). */
  escInOwnAbortWindow: boolean
  /** The host carried out an abort of ours and has not reported any interruption since. */
  ownAbortLandedUnreported: boolean
  /** The latching ESC arrived while `ownAbortLandedUnreported`: one interruption for two stops. */
  escAfterOwnAbortLanded: boolean
  /** The engine dropped this session while it still had state that protects the user. */
  forgotten: boolean
  /** Trace sequence at which each open question was asked. */
  askSeq: Map<string, number>
  /** The host line that opened each question (v2: `form.created` or `permission.asked`). */
  askVia: Map<string, string>
  /** Trace sequence of the last "found running by discovery" line for this session. */
  rediscoveredSeq: number
  /** Sessions the host created with this one as parent. */
  children: Set<string>
  /** The parent the host first named for this session; a session's parent never changes. */
  parent?: string
  /** Ever reported busy (a run started). */
  ran: boolean
  /** Last model or user progress (see Facts.turn), for "silent past subagentDeadMs". */
  lastProgressAt: number
  awaiting: Set<string>
  escLatched: boolean
  continues: number
  provider?: string
  /** Incremented on every turn (see invariant 3b). */
  turn: number
  /** Our calls the host accepted, in total and per identity. */
  landedTotal: number
  landed: Map<string, number>
  /** Prompts of ours the host accepted whose own user message has not reached the plugin yet. */
  unseenPrompts: number
  /** The prompts behind `unseenPrompts`, oldest first (bounded by the calls of one scenario). */
  unseenCalls: CallRecord[]
  tokenHigh: Map<string, number>
  lastDelivered: Map<string, CallRecord>
}

/**
 * HOOK — live-loop abort. The lead is adding an abort for a session whose *running* tool loop
 * repeats itself; that abort is allowed while a tool is open. When it lands, make this return
 * true for exactly that abort (for example: the engine logged its live-loop line for this
 * session just before the call, `recentLog` holds the last lines) and add a property that the
 * exemption is never used for a session whose tool calls are not repeating.
 */
export function isSanctionedLiveLoopAbort(_call: { method: MutatingMethod; sessionID: string }, _recentLog: readonly string[]): boolean {
  return false
}

/** The engine's latest line about the session says a rate-limit wait just ended with one continue. */
function isRateLimitResume(sessionID: string, recentLog: readonly string[]): boolean {
  const last = [...recentLog].reverse().find((l) => l.includes(sessionID))
  return last !== undefined && /rate-limit wait over .*one continue/.test(last)
}

/**
 * Documented exemption (README, lifetimeMaxContinues): "a streaming-failure recovery or a nudge
 * that never reached the session (held at the last moment, refused or failed by the host)" does
 * not count. Recognised by the engine's latest line about the session, which announces the
 * prompt: a streaming-failure recovery prompt, the abort before one, or a nudge ("-> send").
 * Only a refusal or a failure qualifies: a call that timed out may still have reached it.
 */
function isUncountedIfRefused(sessionID: string, recentLog: readonly string[]): boolean {
  const last = [...recentLog].reverse().find((l) => l.includes(`session ${sessionID}:`))
  return last !== undefined && (/: streaming failure .*: recovery prompt \d+\/\d+$/.test(last) || /\(send failure recovery\); prompting in/.test(last) || / -> send$/.test(last))
}

function refusedOrFailed(script: CallScript): boolean {
  return script.outcome === "reject" || script.outcome === "throw"
}

/**
 * Documented exception (src/paths/subagents/machine.ts): an orphan parent is aborted while it still
 * holds its subagent call (`task`) open, because that call's work is over: every child the
 * parent started has run and finished, or a child has been silent past subagentDeadMs. The
 * oracle allows it only when the host's own account agrees: every open young tool is a
 * subagent call, and every child of the parent ran at least once and is not running now,
 * or has been quiet past subagentDeadMs (running, or created and never started), or was deleted.
 */
export const SUBAGENT_TOOLS: readonly string[] = ["task", "subagent"] // 1.x, 2.x

const TRACE_LINES = 60

function identityOf(c: { method: MutatingMethod; sendKind?: string }): string {
  return c.sendKind ? `${c.method}(${c.sendKind})` : c.method
}

export class Oracle {
  readonly resolved: ResolvedOptions
  readonly violations: Violation[] = []
  /** Violations matching a known bug: counted, kept (a few) for reports, never failing a run. */
  readonly knownViolations: Violation[] = []
  readonly knownCounts = new Map<string, number>()
  private seq = 0
  private readonly untrackedNow = new Set<string>()
  /** Sessions deleted or dropped while a call of theirs was in flight (a zombie may act). */
  private readonly droppedMidCall = new Set<string>()
  clockWentBack = false
  readonly calls: CallRecord[] = []
  /** Calls neither settled nor abandoned yet. */
  private readonly open = new Set<CallRecord>()
  readonly trace: string[] = []
  readonly recentLog: string[] = []
  private readonly sessions = new Map<string, OracleSession>()
  /** Sessions the host deleted (and did not create again): as children they are over. */
  private readonly deletedSessions = new Set<string>()
  private readonly paused = new Set<string>()
  private pausedAll = false
  step = -1
  stats = { events: 0, sends: 0, aborts: 0, otherCalls: 0, escs: 0 }

  constructor(
    rawOptions: Record<string, unknown>,
    private readonly now: () => number,
    /** What a host line implies beyond the neutral facts (2.x: an interruption ends the run). */
    private readonly hostFacts: (e: HostEvent, base: Facts) => Facts = (_e, base) => base,
  ) {
    this.resolved = resolveOptions(rawOptions, {})
  }

  private session(id: string): OracleSession {
    let s = this.sessions.get(id)
    if (!s) {
      s = {
        busy: false,
        tools: new Map(),
        clearedByError: new Set(),
        awaiting: new Set(),
        askSeq: new Map(),
        askVia: new Map(),
        escLatched: false,
        escInOwnAbortWindow: false,
        ownAbortUnreported: false,
        ownAbortLandedUnreported: false,
        escAfterOwnAbortLanded: false,
        continues: 0,
        turn: 0,
        landedTotal: 0,
        unseenPrompts: 0,
        unseenCalls: [],
        landed: new Map(),
        lastDelivered: new Map(),
        lastDecisionSeq: -1,
        rediscoveredSeq: -1,
        forgotten: false,
        children: new Set(),
        ran: false,
        lastProgressAt: this.now(),
        tokenHigh: new Map(),
      }
      this.sessions.set(id, s)
    }
    return s
  }

  effective(id: string): Options {
    return effectiveOptions(this.resolved, this.sessions.get(id)?.provider)
  }

  /** Sessions the host would list as running (the host is truthful about this). */
  busyIds(): string[] {
    const out: string[] = []
    for (const [id, s] of this.sessions) if (s.busy) out.push(id)
    return out
  }

  isBusy(id: string): boolean {
    return this.sessions.get(id)?.busy ?? false
  }

  note(line: string): void {
    this.seq++
    this.trace.push(`[t+${this.now() - T0}] ${line}`)
    if (this.trace.length > TRACE_LINES) this.trace.shift()
  }

  hostLog(line: string): void {
    this.recentLog.push(line)
    if (this.recentLog.length > 20) this.recentLog.shift()
    this.note(`  log: ${line.slice(0, 160)}`)
    const decision = /session (\S+): stall detected .* -> /.exec(line)
    if (decision) {
      const s = this.sessions.get(decision[1]!)
      if (s) s.lastDecisionSeq = this.seq
    }
    const found = /session (\S+): found running by discovery/.exec(line)
    if (found) {
      const s = this.sessions.get(found[1]!)
      if (s) s.rediscoveredSeq = this.seq
    }
  }

  violate(invariant: Invariant, detail: string, facts: ViolationFacts = {}): void {
    facts.clockWentBack = this.clockWentBack
    if (facts.sessionID && facts.droppedMidCall === undefined) facts.droppedMidCall = this.droppedMidCall.has(facts.sessionID)
    if (facts.sessionID && facts.lastLog === undefined) {
      const id = facts.sessionID
      facts.lastLog = [...this.recentLog].reverse().find((l) => l.includes(id))
    }
    const v: Violation = { invariant, step: this.step, at: this.now() - T0, detail, trace: [...this.trace], facts }
    v.known = classify(v)
    if (!v.known) {
      this.violations.push(v)
      return
    }
    this.knownCounts.set(v.known, (this.knownCounts.get(v.known) ?? 0) + 1)
    if (this.knownViolations.length < 20) this.knownViolations.push(v)
  }

  // ---- what the host said ---------------------------------------------------------------

  /** Called just before the event reaches the plugin; `via` names the host line that carried it. */
  event(e: HostEvent, id: string, via?: string): void {
    this.stats.events++
    const f = this.hostFacts(e, spec(e).facts(e, id))
    if (f.deleted) {
      this.sessions.delete(id)
      // A deleted child is over; an event under its id later is not that child again.
      if (this.deletedSessions.size < 4096) this.deletedSessions.add(id)
      this.noteDropMidCall(id)
      return
    }
    const s = this.session(id)
    const wasBusy = s.busy
    if (f.busy !== undefined) s.busy = f.busy
    if (s.busy) s.ran = true
    if (f.turn === "always" || (f.turn === "ifBusyChanges" && wasBusy !== s.busy)) {
      s.turn++
      s.lastProgressAt = this.now()
    }
    // A session created (again) is heard from now: its quiet counts from here.
    if (e.t === "created") {
      s.lastProgressAt = this.now()
      this.deletedSessions.delete(id)
    }
    // A session's parent never changes on the host: a second `created` naming another parent
    // (a session id reused without a delete between) is malformed, and the plugin keeps the
    // first parent (apply-signal.ts, sessionCreated). So does the host's account here. A deleted
    // session's record is gone, so one created again under that id gets its parent afresh; a
    // parent deleted and seen again hears of its children again when they are announced again.
    if (e.t === "created" && e.parent !== undefined && sessionName(e.parent) !== id) {
      s.parent ??= sessionName(e.parent)
      const parent = this.session(s.parent)
      if (s.parent === sessionName(e.parent) && parent.children.size < 64) parent.children.add(id)
    }
    if (f.turn === "ifTokensGrow" && e.t === "usage") {
      const high = s.tokenHigh.get(`${e.msg}`)
      if (high !== undefined && e.tokens > high) s.turn++
      if (high === undefined || e.tokens > high) s.tokenHigh.set(`${e.msg}`, e.tokens)
      if (s.tokenHigh.size > 64) s.tokenHigh.clear()
    }
    if (f.toolStart && !s.tools.has(f.toolStart.callID)) {
      const reopenedAfterError = s.clearedByError.has(f.toolStart.callID)
      s.tools.set(f.toolStart.callID, { tool: f.toolStart.tool, startedAt: this.now(), startSeq: this.seq, reopenedAfterError })
    }
    if (f.toolEnd) {
      s.tools.delete(f.toolEnd)
      s.clearedByError.delete(f.toolEnd)
    }
    if (f.clearTools) {
      if (e.t === "error") {
        for (const id of s.tools.keys()) if (s.clearedByError.size < 64) s.clearedByError.add(id)
      } else s.clearedByError.clear() // idle and interruptions: the engine clears its tools too
      s.tools.clear()
    }
    if (f.userStop) {
      if (!s.escLatched) {
        s.escInOwnAbortWindow = s.ownAbortUnreported
        s.escAfterOwnAbortLanded = s.ownAbortLandedUnreported
      }
      s.escLatched = true
      this.stats.escs++
    }
    if (e.t === "esc" || e.t === "abortEcho") {
      s.ownAbortUnreported = false
      s.ownAbortLandedUnreported = false
    }
    if (e.t === "ownEcho") {
      s.unseenPrompts = Math.max(0, s.unseenPrompts - 1)
      const shown = s.unseenCalls.shift()
      if (shown) shown.shown = true
    }
    if (f.genuineUser) {
      s.forgotten = false
      s.escInOwnAbortWindow = false
      s.escAfterOwnAbortLanded = false
      s.escLatched = false
      s.continues = 0
      s.awaiting.clear()
      if (f.provider) s.provider = f.provider
    }
    // A question or permission belongs to a running tool: one reported while the session is
    // not running (a late event from a run that ended) was settled when that run ended.
    if (f.awaitOpen && s.busy) {
      if (!s.awaiting.has(f.awaitOpen)) s.askSeq.set(f.awaitOpen, this.seq)
      if (via) s.askVia.set(f.awaitOpen, via)
      s.awaiting.add(f.awaitOpen)
    }
    if (f.awaitClose) s.awaiting.delete(f.awaitClose)
    if (f.clearAwaiting) s.awaiting.clear()
  }

  /** The runner saw the engine no longer tracks `id`. */
  untracked(id: string): void {
    if (!this.untrackedNow.has(id)) {
      this.untrackedNow.add(id)
      this.noteDropMidCall(id)
    }
    const s = this.sessions.get(id)
    if (s && !s.forgotten && (s.escLatched || s.continues > 0 || s.awaiting.size > 0)) {
      s.forgotten = true
      this.note(`(the engine no longer tracks ${id})`)
    }
  }

  private noteDropMidCall(id: string): void {
    for (const c of this.open) if (c.sessionID === id && !c.settled) this.droppedMidCall.add(id)
  }

  /** The runner saw the engine track `id` (again). */
  tracked(id: string): void {
    this.untrackedNow.delete(id)
  }

  pause(id: string): void {
    this.paused.add(id)
  }

  resume(id: string): void {
    this.paused.delete(id)
  }

  pauseAll(on: boolean): void {
    this.pausedAll = on
    if (!on) this.paused.clear()
  }

  // ---- what the plugin did --------------------------------------------------------------

  /** Checks a session-changing call at the moment the plugin makes it. */
  call(method: MutatingMethod, sessionID: string, script: CallScript, sendKind?: string, begunAt?: number): CallRecord {
    const s = this.session(sessionID)
    const now = this.now()
    const what = `${method}${sendKind ? `(${sendKind})` : ""}`
    if (method === "send") this.stats.sends++
    else if (method === "abort") this.stats.aborts++
    else this.stats.otherCalls++

    // 1. open tools
    const young = [...s.tools].filter(([, t]) => now - t.startedAt < TOOL_WEDGED_CEILING_MS)
    if (young.length > 0 && !isSanctionedLiveLoopAbort({ method, sessionID }, this.recentLog) && !this.orphanParentAbort(method, s, young)) {
      const [callID, t] = young[0]!
      this.violate("1-tool-open", `${what} to ${sessionID} while tool "${t.tool}" (${callID}) has been open for ${now - t.startedAt} ms`, {
        sessionID,
        call: what,
        youngTools: young.map(([id, y]) => ({ callID: id, startSeq: y.startSeq, age: now - y.startedAt, reopenedAfterError: y.reopenedAfterError })),
        lastDecisionSeq: s.lastDecisionSeq,
        rediscoveredMidTool: young.some(([, y]) => s.rediscoveredSeq > y.startSeq),
      })
    }
    // 2. ESC latch
    if (s.escLatched) {
      this.violate("2-after-esc", `${what} to ${sessionID} after the user pressed ESC and before any genuine user message`, {
        sessionID,
        call: what,
        escDuringOwnAbortWindow: s.escInOwnAbortWindow,
        escAfterOwnAbortLanded: s.escAfterOwnAbortLanded,
        forgotten: s.forgotten,
      })
    }
    // 3a. one call in flight
    let inFlight: CallRecord | undefined
    for (const c of this.open) if (c.sessionID === sessionID && !c.settled && !c.released) inFlight = c
    if (inFlight) {
      this.violate("3a-one-in-flight", `${what} to ${sessionID} while call #${inFlight.n} (${inFlight.method}, made at t+${inFlight.issuedAt - T0}) is still in flight`, {
        sessionID,
        call: what,
        droppedMidCall: this.droppedMidCall.has(sessionID),
      })
    }
    // 3b. identical recoveries with no turn between
    const identity = identityOf({ method, sendKind })
    const prev = s.lastDelivered.get(identity)
    const others = s.landedTotal - (s.landed.get(identity) ?? 0)
    const separated = (p: CallRecord) => p.turnAtIssue !== s.turn || p.othersAtIssue !== others
    // Documented exemption (README, Safety rails): a call of ours that showed no effect (an
    // abort never reported, a prompt never shown or never answered) for the late-landing hold
    // after it could have settled is presumed lost, and the same recovery may go out again, so a
    // host that lost one cannot leave a session unrecovered for good.
    const o = this.effective(sessionID)
    const hold = Math.max(60_000, 2 * (o.chunkTimeoutMs + o.gracePeriodMs)) // stated, not imported
    const noEffectSeen = (p: CallRecord) =>
      p.method === "abort" ? s.ownAbortUnreported : !p.shown
    const presumedLost = (p: CallRecord) => noEffectSeen(p) && this.now() - (p.issuedAt + p.timeoutMs) > hold
    if (delivered(script) && prev && !separated(prev) && !presumedLost(prev)) {
      this.violate("3b-duplicate", `${what} to ${sessionID} delivered again with no turn since the identical call #${prev.n} at t+${prev.issuedAt - T0}`, {
        sessionID,
        call: what,
        earlierOutcome: prev.script.outcome,
        laterOutcome: script.outcome,
        ownAbortUnreported: s.ownAbortUnreported,
        ownPromptUnseen: s.unseenPrompts > 0,
      })
    }
    // 4. lifetime cap. Documented exemption (README, rate limits): the continue that ends a
    // rate-limit wait spends no budget; its own cooldown ladder bounds it and then goes silent
    // until the user writes. It is recognised by the engine's log line just before the call.
    const uncounted = refusedOrFailed(script) && isUncountedIfRefused(sessionID, this.recentLog)
    if (method === "send" && sendKind === "continue" && !isRateLimitResume(sessionID, this.recentLog) && !uncounted) {
      s.continues++
      const cap = this.effective(sessionID).lifetimeMaxContinues
      if (s.continues > cap) {
        this.violate("4-lifetime", `continue #${s.continues} to ${sessionID} in one user episode; lifetimeMaxContinues is ${cap}`, { sessionID, call: what, forgotten: s.forgotten })
      }
    }
    // 5. paused or waiting for the user
    if (this.pausedAll || this.paused.has(sessionID)) this.violate("5-paused", `${what} to paused session ${sessionID}`)
    if (s.awaiting.size > 0) {
      this.violate("5-awaiting", `${what} to ${sessionID} while the user is being asked (${[...s.awaiting].join(", ")})`, {
        sessionID,
        call: what,
        forgotten: s.forgotten,
        rediscoveredMidAsk: [...s.awaiting].some((k) => s.rediscoveredSeq > (s.askSeq.get(k) ?? Infinity)),
        awaitingVia: [...s.awaiting].map((k) => s.askVia.get(k) ?? "?"),
      })
    }

    if (method === "abort") s.ownAbortUnreported = true
    const record: CallRecord = {
      n: this.calls.length,
      method,
      sessionID,
      sendKind,
      issuedAt: now,
      // The core times a call from when it asked its port (`begunAt`, 2.x reads the history
      // before its prompt), so that is when the call's sendTimeoutMs starts running.
      timeoutMs: Math.max(1, this.effective(sessionID).sendTimeoutMs - (begunAt === undefined ? 0 : now - begunAt)),
      script,
      settled: false,
      released: false,
      shown: false,
      turnAtIssue: s.turn,
      othersAtIssue: others,
    }
    if (delivered(script)) s.lastDelivered.set(identity, record)
    this.calls.push(record)
    this.open.add(record)
    if (this.calls.length > 512) this.calls.splice(0, 256) // history for reports only; keep it flat
    this.note(`plugin -> ${what} ${sessionID} (call #${record.n}, host will answer: ${script.outcome})`)
    return record
  }

  /** See SUBAGENT_TOOLS: the orphan-parent abort, when the host's account backs it. */
  private orphanParentAbort(method: MutatingMethod, parent: OracleSession, young: Array<[string, { tool: string }]>): boolean {
    if (method !== "abort" || parent.children.size === 0) return false
    if (!young.every(([, t]) => SUBAGENT_TOOLS.includes(t.tool.toLowerCase()))) return false
    const deadMs = this.resolved.options.subagentDeadMs
    for (const id of parent.children) {
      const child = this.sessions.get(id)
      // A deleted child is over: it can neither run again nor answer the call.
      if (this.deletedSessions.has(id)) continue
      if (!child) return false
      // subagentDeadMs: a child quiet that long is dead, whether it never started or stopped.
      const dead = this.now() - child.lastProgressAt >= deadMs
      if (!child.ran && !dead) return false
      if (child.busy && !dead) return false
    }
    return true
  }

  settle(record: CallRecord, how: string): void {
    if (record.settled) return
    record.settled = true
    this.open.delete(record)
    this.note(`host answers call #${record.n}: ${how}`)
  }

  /** The host carried out the call. An abort ends the run it hit, and with it its tools. */
  landed(record: CallRecord): void {
    const s = this.sessions.get(record.sessionID)
    if (!s) return
    const identity = identityOf(record)
    s.landedTotal++
    s.landed.set(identity, (s.landed.get(identity) ?? 0) + 1)
    // The host shows every prompt it accepted as an own user message (host.ts, echo).
    if (record.method === "send" || record.method === "command") {
      s.unseenPrompts++
      if (s.unseenCalls.length < 64) s.unseenCalls.push(record)
    }
    if (record.method === "abort") {
      s.tools.clear()
      s.ownAbortLandedUnreported = true
    }
  }

  /** After every step and timer: calls past their timeout no longer count as in flight. */
  tick(): void {
    if (this.open.size === 0) return
    const now = this.now()
    for (const c of this.open) {
      if (c.settled) this.open.delete(c)
      else if (now >= c.issuedAt + c.timeoutMs) {
        c.released = true
        this.open.delete(c)
      }
    }
  }

  checkTracked(engine: RecoveryEngine): void {
    const tracked = engine.trackedSessions
    if (tracked > MAX_TRACKED_SESSIONS) this.violate("6-bounds", `${tracked} tracked sessions, cap ${MAX_TRACKED_SESSIONS}`)
  }

  /** Invariant 6 (state side): the given sessions' collections, or all of them. */
  checkBounds(engine: RecoveryEngine, ids: Iterable<string> | undefined): void {
    this.checkTracked(engine)
    const over = overCap(engine, ids)
    if (over) this.violate("6-bounds", `session ${over.sessionID}: ${over.field} holds ${over.size}, cap ${over.cap}`)
  }

  /** Lets known ids be enumerated for bound checks. */
  knownSessions(): IterableIterator<string> {
    return this.sessions.keys()
  }
}

/** The simulated clock's start, so traces print small relative times. */
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)
