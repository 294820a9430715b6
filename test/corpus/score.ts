/**
 * Runs the judge's second pass on every corpus sample and scores each family: what the
 * judge concluded against the label. The setting is the quiet default: a warm session, the
 * user away, no todo list, nothing open, no budget used.
 */
import { judgeSecondPass, type JudgeInput, type Judgement } from "../../src/paths/judge/judge.ts"
import type { TranscriptMessage, TranscriptPart } from "../../src/core/transcript.ts"
import { closestTool } from "../../src/detect/unknown-tool.ts"
import { OPTION_DEFAULTS } from "../../src/options/index.ts"
import { LANGS, type Family, type Lang, type Sample } from "./types.ts"
import { OPENCODE_TOOLS, UNKNOWN_TOOLS } from "./unknown-tools.ts"

const NOW = 50_000_000

function message(sample: Sample): TranscriptMessage {
  const parts: TranscriptPart[] = []
  if (sample.reasoning !== undefined) parts.push({ kind: "reasoning", text: sample.reasoning })
  parts.push({ kind: "text", text: sample.text })
  return { id: "a1", role: "assistant", finish: "stop", outputTokens: sample.tokens ?? 500, parts }
}

/** The quiet setting: a warm session, the user away, no todo list, nothing open, no budget used. */
export function quietInput(sample: Sample): JudgeInput {
  return {
    messages: [{ id: "u1", role: "user", own: false, parts: [{ kind: "text", text: "please do the thing" }] }, message(sample)],
    todos: "none",
    options: { ...OPTION_DEFAULTS },
    now: NOW,
    sessionStartedAt: NOW - 3_600_000,
    lastGenuineUserAt: NOW - OPTION_DEFAULTS.activeUserWindowMs - 60_000,
    awaitingUser: false,
    toolsInFlightAtIdle: 0,
    budgets: {},
  }
}

export function judgeSample(sample: Sample): Judgement {
  return judgeSecondPass(quietInput(sample))
}

/** The family a verdict stands for. */
export function verdictFamily(v: Judgement): Family {
  if (v.kind === "complete") return v.signal === "celebration" ? "celebration" : v.signal === "done-claim" ? "done" : "stop"
  if (v.kind === "nudge") {
    switch (v.feature) {
      case "tool-text":
      case "thinking-tool":
        return "tool-call"
      case "dead-stream":
        return "dead-stream"
      case "done-claim":
        return "done"
      case "ready-to-continue":
      case "ready-closed":
        return "ready"
      case "action-intent":
        return "action-intent"
      default:
        return "none"
    }
  }
  if (v.kind === "charge" && v.feature === "ready-closed") return "ready"
  // A done claim that describes the work is recognised, and rightly answered with nothing.
  if (v.reason.startsWith("done claim")) return "done"
  // So is a stop only the classifier read: nothing is open, so nothing is latched or sent.
  if (v.reason.startsWith("stop statement")) return "stop"
  if (v.kind === "stand-down" && /^hand-off/.test(v.reason)) return "hand-off"
  return "none"
}

export type Score = { family: Family; tp: number; fp: number; fn: number; precision: number; recall: number }

function ratio(a: number, b: number): number {
  return b === 0 ? 1 : a / b
}

export type Outcome = { sample: Sample; got: Family }

export function runCorpus(corpus: readonly Sample[]): Outcome[] {
  return corpus.map((sample) => ({ sample, got: verdictFamily(judgeSample(sample)) }))
}

export function scoreFamilies(outcomes: readonly Outcome[], families: readonly Family[]): Score[] {
  return families.map((family) => {
    let tp = 0
    let fp = 0
    let fn = 0
    for (const { sample, got } of outcomes) {
      if (got === family && sample.family === family) tp++
      else if (got === family) fp++
      else if (sample.family === family) fn++
    }
    return { family, tp, fp, fn, precision: ratio(tp, tp + fp), recall: ratio(tp, tp + fn) }
  })
}

/** Recall of one family within one language. */
export function recallByLanguage(outcomes: readonly Outcome[], family: Family): Partial<Record<Lang, number>> {
  const out: Partial<Record<Lang, number>> = {}
  for (const lang of [...LANGS, "any" as const]) {
    const mine = outcomes.filter((o) => o.sample.family === family && o.sample.lang === lang)
    if (mine.length > 0) out[lang] = mine.filter((o) => o.got === family).length / mine.length
  }
  return out
}

/** Unknown-tool mapping: a suggestion is a positive; it is right when it names the expected tool. */
export function scoreUnknownTools(): Score & { misses: string[] } {
  let tp = 0
  let fp = 0
  let fn = 0
  const misses: string[] = []
  for (const [name, expected] of UNKNOWN_TOOLS) {
    const got = closestTool(name, OPENCODE_TOOLS)
    if (got === expected) {
      if (got !== undefined) tp++
      continue
    }
    if (got !== undefined) fp++
    if (expected !== undefined) fn++
    misses.push(`${name} -> ${got ?? "(none)"} (expected ${expected ?? "(none)"})`)
  }
  return { family: "none", tp, fp, fn, precision: ratio(tp, tp + fp), recall: ratio(tp, tp + fn), misses }
}

/** Samples per family and language, for the report. */
export function sizes(corpus: readonly Sample[]): Map<Family, Map<Lang, number>> {
  const table = new Map<Family, Map<Lang, number>>()
  for (const s of corpus) {
    const row = table.get(s.family) ?? new Map<Lang, number>()
    row.set(s.lang, (row.get(s.lang) ?? 0) + 1)
    table.set(s.family, row)
  }
  return table
}
