/**
 * Stop statements: the model says, as its last clause, that it is out of work ("Stopping here.",
 * "No further action needed.", "Standing by for your next instruction.", "Tarea completada.").
 * - Only the end counts: the newest line with words among the last three must end with the
 *   clause, so "Stopping here for a moment, then continuing" is not a stop.
 * - A line ending in "?" is never a stop ("Ready for the next task?").
 * - `TASK COMPLETE` is the system's own literal: it counts only as the whole line, upper case;
 *   lower-case "task complete" is prose, while "task completed" is an ordinary stop in any case
 *   and in every language. The wordier "the implementation is complete" is a done claim.
 * - A negation or condition just before the clause cancels it ("I'm not stopping here").
 * Deliberately not stops: "work is still in progress", "I'll report the result when it lands".
 * Every clause is anchored at the end of the line (after trailing decoration is removed), starts
 * with a literal word and keeps its quantifiers apart with literal text.
 */
import { NL, type Phrase } from "./patterns.ts"
import { isDecorativeLine, lastNonBlankLines, trimEndDecoration } from "./text.ts"

export const TASK_COMPLETE_LITERAL = "TASK COMPLETE"

const WAIT_OBJECTS = "(?:instructions?|input|direction|tasks?|requests?|steps?|work|feedback|orders)"
const WAIT_ADJECTIVES = "(?:(?:your|the|any|further|next|new|more)\\s+)*"

function clause(name: string, body: string): Phrase {
  return { name, pattern: new RegExp(`${NL}(?:${body})$`, "iu") }
}

/** Chinese and Japanese write without spaces: a clause may follow any character. */
function cjk(name: string, body: string): Phrase {
  return { name, pattern: new RegExp(`(?:${body})$`, "u") }
}

const STOP_CLAUSES: readonly Phrase[] = [
  { name: "task completed", pattern: /\btask\s+completed$/i },
  { name: "no action needed", pattern: /\bno\s+(?:further\s+|more\s+|other\s+)?(?:action|work|changes)\s+(?:is\s+|are\s+)?(?:needed|required|necessary|pending|remaining|left)$/i },
  { name: "no further action", pattern: /\bno\s+further\s+(?:action|work)$/i },
  // "stopped now" alone describes a thing ("The dev server is stopped now."): only the
  // speaker stopping counts, or a stop that names the place ("here", "there").
  { name: "stopping here", pattern: /\b(?:stopping|pausing|halting)\s+(?:here|there|now|for\s+now)$/i },
  { name: "stop here", pattern: /\b(?:stop|stopped|halted|paused|pause|halt)\s+(?:here|there)(?:\s+for\s+now)?$/i },
  { name: "I stop now", pattern: /\b(?:i'?ll|i\s+will|i'?ve|i\s+have|i|we'?ll|we|let\s+me|let's)\s+(?:stop|stopped|pause|paused|halt)\s+(?:now|for\s+now)$/i },
  { name: "stopping", pattern: /^(?:stopping|halted|paused)$/i },
  { name: "nothing further", pattern: /\bnothing\s+(?:further|else|more|left|pending|remaining|outstanding)(?:\s+(?:to\s+(?:do|report|add)|pending|remaining|needed|required|outstanding|on\s+my\s+(?:side|end)))?$/i },
  { name: "nothing in progress", pattern: /\bnothing\s+(?:is\s+)?(?:currently\s+|still\s+)?(?:in\s+progress|pending|outstanding)$/i },
  { name: "none pending", pattern: /\bnone\s+(?:pending|left|remaining|outstanding)$/i },
  { name: "standing by", pattern: new RegExp(`\\bstanding\\s+by(?:\\s+for\\s+${WAIT_ADJECTIVES}${WAIT_OBJECTS})?$`, "i") },
  { name: "awaiting instructions", pattern: new RegExp(`\\b(?:awaiting|waiting\\s+for)\\s+${WAIT_ADJECTIVES}${WAIT_OBJECTS}$`, "i") },
  { name: "ready and waiting", pattern: /\bready\s+(?:when(?:ever)?\s+you\s+are|when(?:ever)?\s+you(?:'re|\s+are)\s+ready|when(?:ever)?\s+you\s+have\s+(?:(?:a|the|your|any|another)\s+)?(?:next\s+|new\s+|more\s+)?(?:task|instruction|request|step|assignment|work)s?|for\s+(?:(?:your|the|any|a)\s+)?(?:next|new|further|another|more)\s+(?:task|instruction|request|step|assignment|work|question)s?)$/i },
  { name: "done", pattern: /^done$/i },
  { name: "that's all", pattern: /\bthat(?:'s|\u2019s|\s+is)\s+all(?:\s+for\s+now)?$/i },
  // Chinese.
  cjk("zh: task completed", "^(?:任务|本任务|该任务)(?:已经?)?完成了?"),
  cjk("zh: stopping here", "到此为止|就此停止|停在这里|暂停在这里|到这里(?:结束|为止|吧)?"),
  cjk("zh: no action needed", "(?:无需|不需要)(?:进一步|其他|更多)的?(?:操作|工作|改动|修改)"),
  cjk("zh: nothing further", "没有(?:其他|更多|别的)(?:需要做|要做)的(?:事情|工作)?了?"),
  cjk("zh: awaiting instructions", "等待您?你?的?(?:下一步|进一步|新的)?(?:指示|指令)"),
  // Japanese.
  cjk("ja: task completed", "^タスク完了(?:です|しました)?"),
  cjk("ja: stopping here", "(?:ここで|これで)(?:停止|終了|中断)(?:します|とします|です)|^以上です"),
  cjk("ja: nothing further", "これ以上の(?:作業|対応|変更)は(?:ありません|不要です)"),
  cjk("ja: awaiting instructions", "(?:次の|追加の)?(?:ご指示|指示)を(?:お待ちしています|お待ちしております|待っています)"),
  // Spanish.
  clause("es: stopping here", "me\\s+detengo\\s+(?:aquí|acá|por\\s+ahora)|(?:aquí|acá)\\s+me\\s+detengo"),
  clause("es: task completed", "^tarea\\s+(?:completada|terminada|finalizada)"),
  clause("es: no action needed", "no\\s+se\\s+requieren?\\s+(?:ninguna\\s+)?(?:acción|acciones|cambios)\\s+(?:adicional|adicionales|más)"),
  clause("es: nothing further", "(?:no\\s+hay\\s+)?nada\\s+más\\s+(?:que|por)\\s+hacer"),
  clause("es: awaiting instructions", "espera\\s+de\\s+(?:nuevas|más|tus|sus)\\s+instrucciones"),
  clause("es: that's all", "eso\\s+es\\s+todo(?:\\s+por\\s+ahora)?"),
  // Portuguese.
  clause("pt: stopping here", "parar?\\s+por\\s+aqui|paro\\s+por\\s+aqui"),
  clause("pt: task completed", "^tarefa\\s+(?:concluída|completa|finalizada)"),
  clause("pt: no action needed", "nenhuma\\s+(?:ação|alteração)\\s+(?:adicional|extra)\\s+(?:é\\s+)?necessária"),
  clause("pt: nothing further", "nada\\s+mais\\s+(?:a|para)\\s+fazer|(?:não\\s+há\\s+)?mais\\s+nada\\s+(?:a|para)\\s+fazer"),
  clause("pt: awaiting instructions", "aguardando\\s+(?:novas|mais|suas)\\s+instruções"),
  clause("pt: that's all", "isso\\s+é\\s+tudo(?:\\s+por\\s+(?:enquanto|agora))?"),
  // German.
  clause("de: stopping here", "(?:höre|mache)\\s+(?:ich\\s+)?hier\\s+(?:auf|schluss)|hier\\s+halte\\s+ich\\s+an|stoppe\\s+(?:ich\\s+)?hier|hier\\s+(?:höre|mache)\\s+ich\\s+(?:auf|schluss)"),
  clause("de: task completed", "^aufgabe\\s+(?:abgeschlossen|erledigt)"),
  clause("de: no action needed", "keine\\s+weiteren\\s+(?:maßnahmen|schritte|änderungen|aktionen)\\s+(?:erforderlich|nötig|notwendig)"),
  clause("de: nothing further", "nichts\\s+(?:weiter|mehr)\\s+zu\\s+tun"),
  clause("de: awaiting instructions", "(?:warte|warten)\\s+auf\\s+(?:weitere|neue|deine|ihre)\\s+(?:anweisungen|aufgaben)"),
  clause("de: that's all", "das\\s+war['\u2019]?s(?:\\s+für\\s+(?:den\\s+moment|jetzt))?"),
  // French.
  clause("fr: stopping here", "m['\u2019]arrête\\s+(?:ici|là)"),
  clause("fr: task completed", "^tâche\\s+(?:terminée|accomplie|achevée)"),
  clause("fr: no action needed", "aucune\\s+(?:autre\\s+)?action\\s+(?:supplémentaire\\s+)?(?:n['\u2019]est\\s+)?(?:nécessaire|requise)"),
  clause("fr: nothing further", "rien\\s+(?:d['\u2019]autre|de\\s+plus)\\s+à\\s+faire|(?:il\\s+n['\u2019]y\\s+a\\s+)?plus\\s+rien\\s+à\\s+faire"),
  clause("fr: awaiting instructions", "attente\\s+de\\s+(?:nouvelles|vos|tes|prochaines)\\s+instructions"),
  clause("fr: that's all", "c['\u2019]est\\s+tout(?:\\s+pour\\s+(?:le\\s+moment|l['\u2019]instant|aujourd['\u2019]hui))?"),
  // Russian.
  clause("ru: stopping here", "(?:на\\s+этом\\s+)?останавливаюсь(?:\\s+здесь)?"),
  clause("ru: task completed", "^задача\\s+(?:выполнена|завершена)"),
  clause("ru: no action needed", "дальнейших\\s+действий\\s+не\\s+требуется"),
  clause("ru: nothing further", "больше\\s+(?:делать\\s+)?нечего(?:\\s+делать)?|больше\\s+ничего\\s+(?:делать\\s+)?не\\s+(?:нужно|требуется)"),
  clause("ru: awaiting instructions", "(?:жду|ожидаю)\\s+(?:дальнейших|новых|ваших)\\s+(?:указаний|инструкций)"),
  clause("ru: that's all", "это\\s+вс[её](?:\\s+на\\s+(?:данный\\s+момент|сегодня|сейчас))?"),
]

/** Words that, just before a stop clause, negate or condition it. */
const CANCELLING_WORDS: ReadonlySet<string> = new Set("not never no without if unless until before whether não nao nicht kein ne pas не si se wenn falls если".split(" "))

/** How many words before the clause are checked for a negation or condition. */
const CANCEL_WINDOW_WORDS = 3

function cancelledBefore(line: string, clauseStart: number): boolean {
  const before = line.slice(Math.max(0, clauseStart - 60), clauseStart).toLowerCase()
  const words = before.split(/[^\p{L}'\u2019]+/u).filter((w) => w !== "")
  return words.slice(-CANCEL_WINDOW_WORDS).some((w) => CANCELLING_WORDS.has(w) || w.endsWith("n't") || w.endsWith("n\u2019t"))
}

/** `line` without leading markdown (bold, heading, quote marks), so "**Tarea completada**" reads whole. */
function withoutLeadingMarkup(line: string): string {
  let start = 0
  while (start < line.length && "*_#> \t`".includes(line[start]!)) start++
  return line.slice(start)
}

export type StopFinding = { clause: string; line: string }

export function stopStatement(text: string): StopFinding | undefined {
  const line = lastNonBlankLines(text, 3).filter((l) => !isDecorativeLine(l)).at(-1)
  if (line === undefined) return undefined
  const core = trimEndDecoration(withoutLeadingMarkup(line))
  // The literal as models really print it: alone on its line, also in bold or a heading, with a
  // full stop or a ✅ after it; "Task complete" capitalised the same way.
  const literal = core.replace(/[`\u2705\u2714\ufe0f ]+$/u, "")
  if (literal === TASK_COMPLETE_LITERAL || literal === "Task complete") return { clause: TASK_COMPLETE_LITERAL, line }
  // Every clause ends in a word, so a line ending in "?" never matches.
  for (const { name, pattern } of STOP_CLAUSES) {
    const match = pattern.exec(core)
    if (match && !cancelledBefore(core, match.index)) return { clause: name, line }
  }
  return undefined
}
