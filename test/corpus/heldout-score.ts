/**
 * Figures on held-out text: samples written blind (by writers who saw neither the detectors,
 * the rules, the model's training text nor each other's batches), judged by the second pass in
 * two settings, and scored per family and per language.
 *
 *   bun test/corpus/heldout-score.ts <file.jsonl | folder> [...]   prints the tables
 *
 * Settings:
 *  - quiet: a warm session, the user away, no todo list (the corpus test's setting); the
 *    verdict's family is scored against the label;
 *  - todos open: the same with one pending todo, where an ending that is not a hand-off gets a
 *    reminder; a hand-off must get nothing in either setting ("nudges past a hand-off").
 */
import fs from "node:fs"
import path from "node:path"
import { judgeSecondPass, type Judgement } from "../../src/paths/judge/judge.ts"
import type { TodoItem } from "../../src/core/transcript.ts"
import { quietInput, verdictFamily } from "./score.ts"
import type { Family, Sample } from "./types.ts"

export const HELDOUT_LANGS = ["en", "zh", "es", "pt", "de", "fr", "ja", "ru", "it", "ko", "pl", "tr", "vi", "id", "nl", "hi", "ar"] as const

export type HeldOutSample = Sample & { id: string }

export function readHeldOut(paths: readonly string[]): HeldOutSample[] {
  const files = paths.flatMap((p) => (fs.statSync(p).isDirectory() ? fs.readdirSync(p).filter((f) => f.endsWith(".jsonl")).sort().map((f) => path.join(p, f)) : [p]))
  const out: HeldOutSample[] = []
  for (const file of files) {
    for (const [i, line] of fs.readFileSync(file, "utf8").split("\n").entries()) {
      if (line.trim() === "") continue
      const row = JSON.parse(line) as Record<string, unknown>
      if (typeof row.text !== "string" || typeof row.family !== "string") throw new Error(`${file}:${i + 1}: no text or family`)
      out.push({ id: String(row.id ?? `${path.basename(file)}:${i + 1}`), family: row.family as Family, lang: String(row.lang) as Sample["lang"], text: row.text, reasoning: typeof row.reasoning === "string" ? row.reasoning : undefined })
    }
  }
  return out
}

const OPEN_TODOS: readonly TodoItem[] = [
  { content: "Write the migration", status: "completed" },
  { content: "Add tests for the migration", status: "pending" },
]

export type HeldOutOutcome = { sample: HeldOutSample; got: Family; quiet: Judgement; withTodos: Judgement }

export function judgeHeldOut(samples: readonly HeldOutSample[]): HeldOutOutcome[] {
  return samples.map((sample) => {
    const quiet = judgeSecondPass(quietInput(sample))
    const withTodos = judgeSecondPass({ ...quietInput(sample), todos: OPEN_TODOS })
    // The held-out families have no 🎉 of their own: a 🎉 ending latches as a done claim does.
    const family = verdictFamily(quiet)
    return { sample, got: family === "celebration" ? "done" : family, quiet, withTodos }
  })
}

/** Families whose verdict sends something or latches the session (their precision is floored). */
export const ACTING: readonly Family[] = ["tool-call", "done", "stop", "ready", "action-intent", "celebration"]
export const SCORED: readonly Family[] = ["hand-off", "stop", "done", "ready", "tool-call", "action-intent"]

export type FamilyFigures = { family: Family; tp: number; fp: number; fn: number; precision: number; recall: number }

export function figures(outcomes: readonly HeldOutOutcome[], family: Family): FamilyFigures {
  let tp = 0
  let fp = 0
  let fn = 0
  for (const o of outcomes) {
    if (o.got === family && o.sample.family === family) tp++
    else if (o.got === family) fp++
    else if (o.sample.family === family) fn++
  }
  return { family, tp, fp, fn, precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn) }
}

/** Hand-off samples that got a nudge in either setting: the error no figure may hide. */
export function nudgesPastHandOff(outcomes: readonly HeldOutOutcome[]): HeldOutOutcome[] {
  return outcomes.filter((o) => o.sample.family === "hand-off" && (o.quiet.kind === "nudge" || o.withTodos.kind === "nudge"))
}

export function recallIn(outcomes: readonly HeldOutOutcome[], family: Family, lang: string): number | undefined {
  const mine = outcomes.filter((o) => o.sample.family === family && o.sample.lang === lang)
  return mine.length === 0 ? undefined : mine.filter((o) => o.got === family).length / mine.length
}

export function report(outcomes: readonly HeldOutOutcome[], opts: { misjudged?: boolean } = {}): string {
  const lines: string[] = [`held-out samples: ${outcomes.length}`, "", "family         precision recall  (tp/fp/fn)"]
  for (const family of SCORED) {
    const f = figures(outcomes, family)
    lines.push(`${family.padEnd(14)} ${f.precision.toFixed(3).padEnd(9)} ${f.recall.toFixed(3).padEnd(7)} (${f.tp}/${f.fp}/${f.fn})`)
  }
  const past = nudgesPastHandOff(outcomes)
  lines.push("", `nudges past a hand-off: ${past.length} (of ${outcomes.filter((o) => o.sample.family === "hand-off").length} hand-offs, either setting)`)
  // What the doubt costs: endings that are not hand-offs whose open-todo reminder it held.
  const doubted = outcomes.filter((o) => o.sample.family !== "hand-off" && o.withTodos.kind !== "nudge" && o.withTodos.reason.includes("may ask the user"))
  lines.push(`reminders held by a doubt on other endings: ${doubted.length} (of ${outcomes.filter((o) => o.sample.family !== "hand-off").length})`)
  lines.push("", `recall by language  ${HELDOUT_LANGS.map((l) => l.padStart(5)).join("")}`)
  for (const family of ["hand-off", "stop", "done", "ready", "tool-call"] as const) {
    const cells = HELDOUT_LANGS.map((l) => {
      const r = recallIn(outcomes, family, l)
      return (r === undefined ? "-" : r.toFixed(2).replace(/^0/, "")).padStart(5)
    })
    lines.push(`${family.padEnd(20)} ${cells.join("")}`)
  }
  if (opts.misjudged) {
    const wrong = outcomes.filter((o) => o.got !== o.sample.family && !(o.sample.family === "action-intent" && o.got === "none"))
    lines.push("", `misjudged: ${wrong.length}`)
    for (const o of wrong) lines.push(`  ${o.sample.id} want ${o.sample.family}, got ${o.got} (${o.quiet.reason.slice(0, 80)}): ${JSON.stringify(o.sample.text.slice(-120))}`)
    for (const o of past) lines.push(`  PAST HAND-OFF ${o.sample.id}: ${o.withTodos.reason.slice(0, 100)}`)
    for (const o of doubted) lines.push(`  DOUBT HELD ${o.sample.id} (${o.sample.family}): ${o.withTodos.reason.slice(0, 100)}`)
  }
  return lines.join("\n")
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const show = args.includes("--misjudged")
  const paths = args.filter((a) => !a.startsWith("--"))
  console.log(report(judgeHeldOut(readHeldOut(paths)), { misjudged: show }))
}
