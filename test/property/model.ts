/**
 * A generated scenario: options, a host timeline and a script for how the host answers the
 * plugin's calls. Plain data, so fast-check can shrink it and a failure can be printed.
 */
import type { HostEvent } from "./events.ts"
import type { V2Faults } from "./v2-host.ts"

export type Delivery =
  /** Delivered once, now. */
  | "once"
  /** Delivered twice in a row (a duplicated event). */
  | "twice"
  /** Held back and delivered at the next `release` step, after later events (reordering). */
  | "hold"

export type Step =
  | { k: "ev"; ev: HostEvent; how: Delivery }
  /** Delivers every held event, newest first. */
  | { k: "release" }
  /** Time passes: due timers fire one by one, host answers land. */
  | { k: "wait"; ms: number }
  /** The wall clock steps (either direction); nothing fires. */
  | { k: "jump"; ms: number }
  | { k: "pause"; s: number }
  | { k: "resume"; s: number }
  | { k: "pauseAll"; on: boolean }
  /** Runs the engine's idle sweep now (it also runs on its own timer). */
  | { k: "sweep" }
  /** Many new sessions at once (`busy` every third, else plain activity): the state caps. */
  | { k: "flood"; n: number; tag: number }
  /** The host's forced faults stop (fault tests only; the generators never emit it). */
  | { k: "heal" }

/** How the host answers one call the plugin makes. Consumed in call order, cycling. */
export type CallScript = {
  outcome:
    | "ok"
    /** Rejects (core) or answers `{ error }` the way the v1 SDK does. */
    | "reject"
    /** Throws before returning a promise. */
    | "throw"
    /** Never settles. */
    | "hang"
    /** Settles fine after `lateMs`, but always before sendTimeoutMs runs out (slow, in time). */
    | "late"
    /** Settles fine `lateMs` after sendTimeoutMs ran out: the plugin has given up on it by then. */
    | "overdue"
    /** Settles with data of the wrong shape. */
    | "junk"
  lateMs: number
  /** Delay before the host shows what the call did (our prompt appearing, the abort landing). */
  echoDelayMs: number
  /** After an abort lands, whether the host also reports the session idle. */
  idleAfterAbort: boolean
}

export const OK_CALL: CallScript = { outcome: "ok", lateMs: 0, echoDelayMs: 0, idleAfterAbort: true }

export type Scenario = {
  options: Record<string, unknown>
  steps: Step[]
  calls: CallScript[]
  /** 2.x faults (stream breaks, foreign and undurable events); only the v2 driver reads them. */
  v2?: V2Faults
}

/** Did the host accept the call (now or later)? Only accepted calls reach the session. */
export function delivered(script: CallScript): boolean {
  return script.outcome === "ok" || script.outcome === "late" || script.outcome === "overdue" || script.outcome === "junk"
}

// ---- readable printing -----------------------------------------------------------------------

function showEvent(e: HostEvent): string {
  const { t, s, ...rest } = e as HostEvent & Record<string, unknown>
  const extra = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ")
  return `${typeof s === "number" ? `s${s}` : s} ${t}${extra ? ` ${extra}` : ""}`
}

export function showStep(step: Step): string {
  switch (step.k) {
    case "ev":
      return `${showEvent(step.ev)}${step.how === "once" ? "" : ` (${step.how === "twice" ? "duplicated" : "held back"})`}`
    case "release":
      return "release held events (newest first)"
    case "wait":
      return `wait ${step.ms} ms`
    case "jump":
      return `clock jumps ${step.ms >= 0 ? "+" : ""}${step.ms} ms`
    case "pause":
      return `pause s${step.s}`
    case "resume":
      return `resume s${step.s}`
    case "pauseAll":
      return `pause all: ${step.on}`
    case "sweep":
      return "sweep"
    case "flood":
      return `flood of ${step.n} new sessions (tag ${step.tag})`
    case "heal":
      return "the host's faults stop"
  }
}

export function showCall(c: CallScript): string {
  const parts: string[] = [c.outcome]
  if (c.outcome === "late") parts.push(`after ${c.lateMs} ms or just inside sendTimeoutMs`)
  if (c.outcome === "overdue") parts.push(`${c.lateMs} ms after sendTimeoutMs`)
  if (delivered(c)) parts.push(`echo +${c.echoDelayMs} ms`)
  if (!c.idleAfterAbort) parts.push("no idle after abort")
  return parts.join(", ")
}

/** The whole scenario, one numbered line per step: what a failing test prints. */
export function showScenario(sc: Scenario, upTo?: number): string {
  const lines: string[] = []
  lines.push(`options: ${JSON.stringify(sc.options)}`)
  lines.push(`host answers to calls, in order (cycling): ${sc.calls.length === 0 ? "all ok" : sc.calls.map((c, i) => `#${i} ${showCall(c)}`).join("; ")}`)
  if (sc.v2) lines.push(`2.x faults: ${JSON.stringify(sc.v2)}`)
  lines.push("timeline:")
  const last = upTo === undefined ? sc.steps.length - 1 : Math.min(upTo, sc.steps.length - 1)
  for (let i = 0; i <= last; i++) lines.push(`  ${String(i).padStart(3)}. ${showStep(sc.steps[i]!)}`)
  if (last < sc.steps.length - 1) lines.push(`  ... ${sc.steps.length - 1 - last} later steps not reached`)
  return lines.join("\n")
}
