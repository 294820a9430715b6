/**
 * The labelled corpus (test/corpus), judged end to end by the second pass. Prints precision
 * and recall per family and fails below the floors of issue 18.
 */
import { describe, expect, test } from "bun:test"
import { CORPUS } from "../../corpus/index.ts"
import { recallByLanguage, runCorpus, scoreFamilies, scoreUnknownTools, sizes } from "../../corpus/score.ts"
import { LANGS, type Family } from "../../corpus/types.ts"
import { UNKNOWN_TOOLS } from "../../corpus/unknown-tools.ts"

const FAMILIES: readonly Family[] = ["tool-call", "dead-stream", "done", "celebration", "stop", "ready", "action-intent", "hand-off"]

/** Families that act without being asked (send, or latch the session complete). */
const PRECISION_FLOOR: Partial<Record<Family, number>> = {
  "tool-call": 0.98,
  "dead-stream": 0.98,
  done: 0.98,
  celebration: 0.98,
  stop: 0.98,
  ready: 0.98,
  "action-intent": 0.98,
}

const RECALL_FLOOR: Partial<Record<Family, number>> = {
  "tool-call": 0.9,
  "dead-stream": 0.9,
  stop: 0.8,
  done: 0.8,
  ready: 0.8,
  "hand-off": 0.8,
}

const outcomes = runCorpus(CORPUS)
const scores = scoreFamilies(outcomes, FAMILIES)
const unknown = scoreUnknownTools()

function pct(x: number): string {
  return x.toFixed(3)
}

function report(): string {
  const lines = [`corpus: ${CORPUS.length} samples`]
  const table = sizes(CORPUS)
  lines.push(`family         | ${[...LANGS, "any"].map((l) => l.padStart(3)).join(" ")} | total`)
  for (const family of [...FAMILIES, "none" as const]) {
    const row = table.get(family)
    const cells = [...LANGS, "any" as const].map((l) => String(row?.get(l) ?? 0).padStart(3))
    const total = [...(row?.values() ?? [])].reduce((a, b) => a + b, 0)
    lines.push(`${family.padEnd(14)} | ${cells.join(" ")} | ${total}`)
  }
  lines.push("", "family         precision recall   (tp/fp/fn)")
  for (const s of scores) lines.push(`${s.family.padEnd(14)} ${pct(s.precision).padEnd(9)} ${pct(s.recall).padEnd(8)} (${s.tp}/${s.fp}/${s.fn})`)
  lines.push(`${"unknown-tool".padEnd(14)} ${pct(unknown.precision).padEnd(9)} ${pct(unknown.recall).padEnd(8)} (${unknown.tp}/${unknown.fp}/${unknown.fn}) of ${UNKNOWN_TOOLS.length} names`)
  lines.push("", "recall by language:")
  for (const family of ["stop", "done", "ready", "hand-off", "action-intent", "celebration", "tool-call"] as const) {
    const by = recallByLanguage(outcomes, family)
    lines.push(`${family.padEnd(14)} ${Object.entries(by).map(([l, r]) => `${l} ${(r ?? 0).toFixed(2)}`).join("  ")}`)
  }
  const wrong = outcomes.filter((o) => o.got !== o.sample.family)
  lines.push("", `misjudged: ${wrong.length}`)
  for (const o of wrong.slice(0, 400)) lines.push(`  [${o.sample.lang}] want ${o.sample.family}, got ${o.got}: ${JSON.stringify(o.sample.text.slice(0, 90))}`)
  for (const m of unknown.misses) lines.push(`  unknown tool: ${m}`)
  return lines.join("\n")
}

describe("labelled corpus of finished turns", () => {
  test("report", () => {
    console.log(report())
    expect(CORPUS.length).toBeGreaterThan(300)
  })

  test.each(Object.entries(PRECISION_FLOOR))("precision of %s is at least its floor", (family, floor) => {
    const s = scores.find((x) => x.family === family)!
    expect(s.precision).toBeGreaterThanOrEqual(floor!)
  })

  test.each(Object.entries(RECALL_FLOOR))("recall of %s is at least its floor", (family, floor) => {
    const s = scores.find((x) => x.family === family)!
    expect(s.recall).toBeGreaterThanOrEqual(floor!)
  })

  test.each(["stop", "done", "ready", "hand-off"] as const)("recall of %s is at least 0.8 in every language", (family) => {
    const by = recallByLanguage(outcomes, family)
    for (const lang of LANGS) expect({ lang, recall: by[lang] ?? 0 }).toEqual({ lang, recall: expect.any(Number) })
    const low = LANGS.filter((lang) => (by[lang] ?? 0) < 0.8)
    expect(low).toEqual([])
  })

  test("unknown tools from other agents map to ours; unrelated names get no suggestion", () => {
    expect(unknown.precision).toBeGreaterThanOrEqual(0.98)
    expect(unknown.recall).toBeGreaterThanOrEqual(0.9)
  })
})
