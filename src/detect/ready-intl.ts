/**
 * "Ready to continue" in Chinese, Japanese, Spanish, Portuguese, German, French and
 * Russian, read like the English patterns in ready-to-continue.ts: a verb of moving on
 * followed by the next task, step or phase. A question ("¿Continúo con la siguiente
 * tarea?") never gets here: the judge hands those to the user first.
 */
const NL = "(?<!\\p{L})"

function re(body: string): RegExp {
  return new RegExp(body, "iu")
}

export const INTL_READY_TO_CONTINUE_PATTERNS: readonly RegExp[] = Object.freeze([
  // Chinese.
  re("(?:继续|接着|开始|进入|转到)(?:进行|执行|处理|做)?(?:下一个|下一|第\\s?\\d+\\s?个?)?(?:任务|步骤|步|阶段)"),
  // Japanese.
  re("(?:次の|タスク\\s?\\d+|ステップ\\s?\\d+)(?:タスク|ステップ|作業|段階|フェーズ)?に(?:進みます|移ります|取りかかります|取り掛かります|進む準備ができました)"),
  // Spanish.
  re(
    `${NL}(?:continúo|continuaré|continuando|sigo|seguiré|siguiendo|paso|pasaré|pasando|procedo|procederé|procediendo|voy\\s+a\\s+(?:continuar|seguir|pasar)|listo\\s+para\\s+(?:continuar|seguir|pasar))\\s+(?:con|al|a)\\s+(?:la\\s+|el\\s+)?(?:(?:siguiente|próxima|próximo)\\s+)?(?:tarea|paso|fase|etapa)`,
  ),
  // Portuguese.
  re(
    `${NL}(?:prosseguindo|continuando|passando|seguindo|sigo|continuo|prossigo|passo|vou\\s+(?:continuar|prosseguir|passar|seguir)|pronto\\s+para\\s+(?:continuar|prosseguir|passar))\\s+(?:com|para|a)\\s+(?:a\\s+|o\\s+)?(?:(?:próxima|próximo|seguinte)\\s+)?(?:tarefa|passo|etapa|fase)`,
  ),
  // German.
  re(`${NL}weiter\\s+mit\\s+(?:der\\s+|dem\\s+)?(?:nächsten\\s+)?(?:aufgabe|schritt|phase)`),
  re(
    `${NL}(?:bereit,?\\s+|fahre\\s+(?:ich\\s+)?(?:jetzt\\s+|nun\\s+)?|mache\\s+(?:ich\\s+)?(?:jetzt\\s+|nun\\s+)?)mit\\s+(?:der\\s+|dem\\s+)?(?:nächsten\\s+)?(?:aufgabe|schritt|phase)(?:\\s+\\d+)?\\s+(?:fortzufahren|weiterzumachen|fort|weiter)`,
  ),
  // French.
  re(
    `${NL}(?:je\\s+passe|passons|je\\s+vais\\s+(?:maintenant\\s+)?passer|je\\s+continue|je\\s+poursuis|prêt\\s+à\\s+(?:continuer|passer|poursuivre))\\s+(?:maintenant\\s+)?(?:à|avec)\\s+(?:la\\s+|l['\u2019]|le\\s+)?(?:(?:prochaine|suivante)\\s+)?(?:tâche|étape|phase)`,
  ),
  // Russian.
  re(
    `${NL}(?:перехожу|переходим|приступаю|продолжаю|продолжу|готов\\s+продолжить)\\s+(?:к|с|со)\\s+(?:следующ\\p{L}+\\s+)?(?:задач|шаг|этап)`,
  ),
])
