/**
 * Done claims in Chinese, Japanese, Spanish, Portuguese, German, French and Russian: the
 * siblings of the English list in done-claim.ts, read the same way (last five lines,
 * case-insensitive, `^`/`$` at line ends). Each pattern names the task, the work or
 * "everything" as what is finished, so "the build finished in 3 s" or "when the build is
 * complete" claim nothing.
 */

/** Trailing punctuation and check marks a line may end with. */
const END = "[\\s.!。！✅]*$"
const NL = "(?<!\\p{L})"

function re(body: string): RegExp {
  return new RegExp(body, "imu")
}

export const INTL_DONE_CLAIM_PATTERNS: readonly RegExp[] = Object.freeze([
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
