/**
 * Stop clauses in the other languages models answer in (Chinese, Spanish, Portuguese,
 * German, French, Japanese, Russian), in the same shape as the English ones in
 * stop-statement.ts: anchored at the end of the line after trailing decoration, starting
 * with a literal word, quantifiers kept apart by literal text.
 *
 * "Task completed" in each language is a stop (as in English); the wordier "the
 * implementation is complete" kind of sentence is a done claim (done-claims-intl.ts).
 */

/** No letter just before: `\b` knows only ASCII letters. */
const NL = "(?<!\\p{L})"

function clause(name: string, body: string): { name: string; pattern: RegExp } {
  return { name, pattern: new RegExp(`${NL}(?:${body})$`, "iu") }
}

/** Chinese and Japanese write without spaces: a clause may follow any character. */
function cjk(name: string, body: string): { name: string; pattern: RegExp } {
  return { name, pattern: new RegExp(`(?:${body})$`, "u") }
}

export const INTL_STOP_CLAUSES: readonly { name: string; pattern: RegExp }[] = [
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

/** Words that, just before a clause, negate or condition it (English ones live in stop-statement.ts). */
export const INTL_CANCELLING_WORDS: readonly string[] = ["não", "nao", "nicht", "kein", "ne", "pas", "не", "si", "se", "wenn", "falls", "если"]
