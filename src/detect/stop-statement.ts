/**
 * Stop statements: the model says, as its last clause, that it is out of work ("Stopping here.",
 * "No further action needed.", "Standing by for your next instruction.").
 * - Only the end counts: the newest line with words among the last three must end with the
 *   clause, so "Stopping here for a moment, then continuing" is not a stop.
 * - A line ending in "?" is never a stop ("Ready for the next task?").
 * - `TASK COMPLETE` is the system's own literal: it counts only as the whole line, upper case;
 *   lower-case "task complete" is prose, while "task completed" is an ordinary stop in any case.
 * - A negation or condition just before the clause cancels it ("I'm not stopping here").
 * Deliberately not stops: "work is still in progress", "I'll report the result when it lands".
 */
import { INTL_CANCELLING_WORDS, INTL_STOP_CLAUSES } from "./stop-clauses-intl.ts"
import { isDecorativeLine, lastNonBlankLines, trimEndDecoration } from "./text.ts"

export const TASK_COMPLETE_LITERAL = "TASK COMPLETE"

const WAIT_OBJECTS = "(?:instructions?|input|direction|tasks?|requests?|steps?|work|feedback|orders)"
const WAIT_ADJECTIVES = "(?:(?:your|the|any|further|next|new|more)\\s+)*"

/** Each clause is anchored at the end of the line (after trailing decoration is removed). */
const STOP_CLAUSES: readonly { name: string; pattern: RegExp }[] = [
  { name: "task completed", pattern: /\btask\s+completed$/i },
  {
    name: "no action needed",
    pattern:
      /\bno\s+(?:further\s+|more\s+|other\s+)?(?:action|work|changes)\s+(?:is\s+|are\s+)?(?:needed|required|necessary|pending|remaining|left)$/i,
  },
  { name: "no further action", pattern: /\bno\s+further\s+(?:action|work)$/i },
  // "stopped now" alone describes a thing ("The dev server is stopped now."): only the
  // speaker stopping counts, or a stop that names the place ("here", "there").
  { name: "stopping here", pattern: /\b(?:stopping|pausing|halting)\s+(?:here|there|now|for\s+now)$/i },
  { name: "stop here", pattern: /\b(?:stop|stopped|halted|paused|pause|halt)\s+(?:here|there)(?:\s+for\s+now)?$/i },
  {
    name: "I stop now",
    pattern: /\b(?:i'?ll|i\s+will|i'?ve|i\s+have|i|we'?ll|we|let\s+me|let's)\s+(?:stop|stopped|pause|paused|halt)\s+(?:now|for\s+now)$/i,
  },
  { name: "stopping", pattern: /^(?:stopping|halted|paused)$/i },
  {
    name: "nothing further",
    pattern:
      /\bnothing\s+(?:further|else|more|left|pending|remaining|outstanding)(?:\s+(?:to\s+(?:do|report|add)|pending|remaining|needed|required|outstanding|on\s+my\s+(?:side|end)))?$/i,
  },
  { name: "nothing in progress", pattern: /\bnothing\s+(?:is\s+)?(?:currently\s+|still\s+)?(?:in\s+progress|pending|outstanding)$/i },
  { name: "none pending", pattern: /\bnone\s+(?:pending|left|remaining|outstanding)$/i },
  { name: "standing by", pattern: new RegExp(`\\bstanding\\s+by(?:\\s+for\\s+${WAIT_ADJECTIVES}${WAIT_OBJECTS})?$`, "i") },
  { name: "awaiting instructions", pattern: new RegExp(`\\b(?:awaiting|waiting\\s+for)\\s+${WAIT_ADJECTIVES}${WAIT_OBJECTS}$`, "i") },
  {
    name: "ready and waiting",
    pattern:
      /\bready\s+(?:when(?:ever)?\s+you\s+are|when(?:ever)?\s+you(?:'re|\s+are)\s+ready|when(?:ever)?\s+you\s+have\s+(?:(?:a|the|your|any|another)\s+)?(?:next\s+|new\s+|more\s+)?(?:task|instruction|request|step|assignment|work)s?|for\s+(?:(?:your|the|any|a)\s+)?(?:next|new|further|another|more)\s+(?:task|instruction|request|step|assignment|work|question)s?)$/i,
  },
  { name: "done", pattern: /^done$/i },
  { name: "that's all", pattern: /\bthat(?:'s|\u2019s|\s+is)\s+all(?:\s+for\s+now)?$/i },
  ...INTL_STOP_CLAUSES,
]

/** Words that, just before a stop clause, turn it into something else. */
const CANCELLING_WORDS: ReadonlySet<string> = new Set([
  "not",
  "never",
  "no",
  "without",
  "if",
  "unless",
  "until",
  "before",
  "whether",
  ...INTL_CANCELLING_WORDS,
])

/** How many words before the clause are checked for a negation or condition. */
const CANCEL_WINDOW_WORDS = 3

function cancelledBefore(line: string, clauseStart: number): boolean {
  const before = line.slice(Math.max(0, clauseStart - 60), clauseStart).toLowerCase()
  const words = before.split(/[^\p{L}'\u2019]+/u).filter((w) => w !== "")
  for (const word of words.slice(-CANCEL_WINDOW_WORDS)) {
    if (CANCELLING_WORDS.has(word) || word.endsWith("n't") || word.endsWith("n\u2019t")) return true
  }
  return false
}

/** `line` without leading markdown (bold, heading, quote marks), so "**Tarea completada**" reads whole. */
function withoutLeadingMarkup(line: string): string {
  let start = 0
  while (start < line.length && "*_#> \t`".includes(line[start]!)) start++
  return line.slice(start)
}

/**
 * The system's literal as models really print it: `TASK COMPLETE` alone on its line, also
 * in bold or a heading, with a full stop or a ✅ after it; "Task complete" capitalised the
 * same way. Lower-case "task complete" stays prose (a bare done claim, judged later).
 */
function isTaskCompleteLiteral(line: string): boolean {
  const core = trimEndDecoration(withoutLeadingMarkup(line)).replace(/[`\u2705\u2714\ufe0f ]+$/u, "")
  return core === TASK_COMPLETE_LITERAL || core === "Task complete"
}

export type StopFinding = { clause: string; line: string }

export function stopStatement(text: string): StopFinding | undefined {
  if (typeof text !== "string" || text.length === 0) return undefined
  const lines = lastNonBlankLines(text, 3)
  let line: string | undefined
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!isDecorativeLine(lines[i]!)) {
      line = lines[i]
      break
    }
  }
  if (line === undefined) return undefined
  if (isTaskCompleteLiteral(line)) return { clause: TASK_COMPLETE_LITERAL, line }
  // Every clause is anchored at the end of the line and ends in a word, so a line ending
  // in "?" never matches: the question-mark rule needs no separate check.
  const core = trimEndDecoration(withoutLeadingMarkup(line))
  if (core.length === 0) return undefined
  for (const { name, pattern } of STOP_CLAUSES) {
    const match = pattern.exec(core)
    if (match && !cancelledBefore(core, match.index)) return { clause: name, line }
  }
  return undefined
}
