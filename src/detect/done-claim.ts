/**
 * Done claims: the model says the task is finished ("All done.", "I've finished the task.").
 * Whether that gets a nudge depends on the todo list and on work-description.ts; this only answers
 * whether the last five non-blank lines claim completion (case-insensitive, `^`/`$` at line ends,
 * as `doneClaimPatterns` documents for a user's own list). In every language a claim names the
 * task, the work or "everything" as what is finished, so "the build finished in 3 s" or "when
 * the build is complete" claim nothing.
 */
import { claimIn, compilePatterns, NL } from "./patterns.ts"
import { lastNonBlankLines } from "./text.ts"

export const DONE_CLAIM_LINES = 5

const FINISHED_WORDS = "done|finished|complete|completed"
const FINISHED = `(?:${FINISHED_WORDS})`
/** Trailing punctuation and check marks a line may end with (the other languages). */
const END = "[\\s.!。！✅]*$"

function re(body: string): RegExp {
  return new RegExp(body, "imu")
}

/** The built-in claims, written so that every quantifier is separated by a literal word. */
export const DEFAULT_DONE_CLAIM_PATTERNS: readonly RegExp[] = Object.freeze([
  // "Done." is a stop statement and is judged earlier; these are its wordier siblings.
  new RegExp(`^(?:(?:all|everything|the\\s+task|task|the\\s+work|work)\\s+(?:is\\s+|are\\s+)?)?${FINISHED}[.!]*$`, "im"),
  new RegExp(`^(?:i'?m|i\\s+am|we'?re|we\\s+are)\\s+(?:all\\s+|now\\s+)?(?:done|finished)[.!]*$`, "im"),
  new RegExp(`^all\\s+(?:the\\s+)?(?:tasks?|todos?|items|steps|changes|work)\\s+(?:are\\s+|is\\s+|have\\s+been\\s+|has\\s+been\\s+)?(?:now\\s+)?${FINISHED}[.!]*$`, "im"),
  /\b(?:i\s+am|i'?m|i\s+have|i'?ve|we\s+have|we'?ve)\s+(?:now\s+)?(?:done|finished|completed)\s+(?:with\s+)?(?:the\s+|this\s+|all\s+(?:the\s+)?|every\s+)?(?:task|work|implementation|changes|everything|todos?|items)/im,
  new RegExp(`\\b(?:the|this|my)\\s+(?:task|work|implementation|job|fix|change)\\s+(?:is|has\\s+been)\\s+(?:now\\s+)?(?:fully\\s+)?${FINISHED}\\b`, "im"),
  new RegExp(`\\b(?:everything|all\\s+(?:of\\s+)?(?:the\\s+)?(?:tasks?|work|todos?|items|steps))\\s+(?:is|are|has\\s+been|have\\s+been)\\s+(?:now\\s+)?(?:fully\\s+)?(?:${FINISHED_WORDS}|implemented)\\b`, "im"),
  /\bnothing\s+(?:else\s+|more\s+)?(?:left|remaining)\s+to\s+do\b/im,
  /\bsuccessfully\s+(?:completed|finished)\s+(?:the\s+|all\s+(?:the\s+)?)?(?:task|tasks|work|implementation)\b/im,
  // Chinese.
  re(`(?:全部|都|所有(?:的)?(?:任务|工作|改动|修改)?都?|一切都?)(?:已经?)?(?:完成|做完|搞定|弄好)了?${END}`),
  re(`已(?:经)?完成(?:了)?(?:所有|全部)的?(?:任务|工作|改动|修改)`),
  re(`(?:实现|工作|修改|改动|开发)(?:已经?|都)?(?:完成|结束)了?${END}`),
  re(`我(?:已经?)?(?:完成|做完)了?(?:这个|该|所有|全部)?的?(?:任务|工作)`),
  // Japanese.
  re(`(?:すべて|全て|全部)(?:の(?:タスク|作業|変更))?(?:が|は)?(?:完了(?:しました|です|いたしました)|終わりました)`),
  re(`(?:実装|作業|タスク|修正|対応)(?:が|は)(?:すべて|全て)?完了(?:しました|です|いたしました)`),
  re(`^(?:完了しました|終わりました|以上で完了です)${END}`),
  // Spanish.
  re(`^todo\\s+(?:listo|hecho|terminado|completado)${END}`),
  re(`${NL}(?:ya\\s+)?está\\s+todo\\s+(?:listo|hecho|terminado)${END}`),
  re(`${NL}(?:he|ya\\s+he)\\s+(?:terminado|acabado|completado)(?:\\s+(?:la\\s+tarea|las\\s+tareas|todas\\s+las\\s+tareas|todo|el\\s+trabajo|la\\s+implementación))?${END}`),
  re(`^ya\\s+(?:terminé|acabé)${END}`),
  re(`${NL}(?:la\\s+implementación|el\\s+trabajo|la\\s+tarea)\\s+(?:está|ha\\s+sido|quedó)\\s+(?:completa|completada|terminada|lista|terminado|completo)`),
  re(`${NL}todas\\s+las\\s+tareas\\s+(?:están|han\\s+sido)\\s+(?:completadas|terminadas|hechas)`),
  // Portuguese.
  re(`^(?:está\\s+)?tudo\\s+(?:pronto|feito|concluído)${END}`),
  re(`${NL}(?:concluí|terminei|finalizei)\\s+(?:todas\\s+as\\s+tarefas|a\\s+tarefa|o\\s+trabalho|tudo)${END}`),
  re(`^(?:já\\s+)?terminei(?:\\s+a\\s+tarefa|\\s+o\\s+trabalho)?${END}`),
  re(`${NL}(?:a\\s+implementação|o\\s+trabalho|a\\s+tarefa)\\s+(?:está|foi)\\s+(?:concluída|concluído|completa|finalizada|terminada|pronta)`),
  re(`${NL}todas\\s+as\\s+tarefas\\s+(?:estão|foram)\\s+(?:concluídas|finalizadas|feitas)`),
  // German.
  re(`^alles\\s+(?:ist\\s+)?(?:erledigt|fertig)${END}`),
  re(`^(?:ich\\s+bin|wir\\s+sind)\\s+(?:jetzt\\s+)?fertig${END}`),
  re(`^fertig${END}`),
  re(`${NL}(?:die\\s+implementierung|die\\s+arbeit|die\\s+aufgabe)\\s+ist\\s+(?:jetzt\\s+)?(?:abgeschlossen|fertig|erledigt)`),
  re(`${NL}alle\\s+aufgaben\\s+sind\\s+(?:jetzt\\s+)?(?:erledigt|abgeschlossen)`),
  re(`${NL}ich\\s+habe\\s+(?:die\\s+aufgabe|alle\\s+aufgaben|alles|die\\s+arbeit)\\s+(?:abgeschlossen|erledigt)`),
  // French.
  re(`^c['\u2019]est\\s+fait${END}`),
  re(`^tout\\s+est\\s+(?:fait|terminé|prêt)${END}`),
  re(`${NL}j['\u2019]ai\\s+(?:fini|terminé)(?:\\s+(?:la\\s+tâche|toutes\\s+les\\s+tâches|tout|le\\s+travail|l['\u2019]implémentation))?${END}`),
  re(`${NL}(?:l['\u2019]implémentation|le\\s+travail|la\\s+tâche)\\s+est\\s+(?:maintenant\\s+)?(?:terminée|terminé|achevée|complète|fini|finie)`),
  re(`${NL}toutes\\s+les\\s+tâches\\s+sont\\s+(?:terminées|faites|achevées)`),
  // Russian.
  re(`^вс[её]\\s+(?:готово|сделано)${END}`),
  re(`^готово${END}`),
  re(`${NL}(?:я\\s+)?(?:закончил|завершил|выполнил)а?\\s+(?:задачу|работу|все\\s+задачи)`),
  re(`${NL}(?:реализация|работа|задача)\\s+(?:полностью\\s+)?(?:завершена|закончена|выполнена)`),
  re(`${NL}все\\s+задачи\\s+(?:выполнены|завершены)`),
])

/** The done-claim patterns in force: the user's list when it has usable entries, else the built-in set. */
export function doneClaimPatterns(sources: readonly string[] | undefined): readonly RegExp[] {
  return compilePatterns(sources, "im") ?? DEFAULT_DONE_CLAIM_PATTERNS
}

export function hasDoneClaim(text: string, patterns: readonly RegExp[] = DEFAULT_DONE_CLAIM_PATTERNS): boolean {
  return claimIn(lastNonBlankLines(text, DONE_CLAIM_LINES), patterns, DEFAULT_DONE_CLAIM_PATTERNS)
}
