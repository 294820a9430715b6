/**
 * "Ready to continue": the model announces it will go on with the next task and then ends
 * its turn instead ("Ready to continue with task 3.", "Proceeding with step 2.", "Paso a la
 * siguiente tarea."): a verb of moving on followed by the next task, step or phase. It needs
 * no permission, so it gets a continue. Read from the last three non-blank lines; a reply
 * whose last line is a question ("Shall I proceed with task 4?") is left to the user.
 */
import { claimIn, compilePatterns, NL } from "./patterns.ts"
import { endsAsking, lastNonBlankLines } from "./text.ts"

export const READY_LINES = 3

const NEXT_THING = "(?:(?:the\\s+)?next\\s+(?:task|step|item|phase|part)|task|step|phase|item)"

function re(body: string): RegExp {
  return new RegExp(body, "iu")
}

export const DEFAULT_READY_TO_CONTINUE_PATTERNS: readonly RegExp[] = Object.freeze([
  new RegExp(`\\bready\\s+to\\s+(?:continue|proceed|move\\s+on)\\s+(?:with|to)\\s+${NEXT_THING}`, "i"),
  new RegExp(`\\b(?:continuing|proceeding|moving\\s+on)\\s+(?:with|to)\\s+${NEXT_THING}`, "i"),
  new RegExp(`\\b(?:will|i'll|let\\s+me|now\\s+i'll)\\s+(?:now\\s+)?(?:continue|proceed|move\\s+on)\\s+(?:with|to)\\s+${NEXT_THING}`, "i"),
  new RegExp(`\\bnext,?\\s+(?:i'll|i\\s+will)\\s+(?:continue|proceed)\\s+with\\s+${NEXT_THING}`, "i"),
  new RegExp(`^(?:and\\s+)?(?:now\\s+)?on\\s+to\\s+${NEXT_THING}`, "im"),
  // Chinese.
  re("(?:继续|接着|开始|进入|转到)(?:进行|执行|处理|做)?(?:下一个|下一|第\\s?\\d+\\s?个?)?(?:任务|步骤|步|阶段)"),
  // Japanese.
  re("(?:次の|タスク\\s?\\d+|ステップ\\s?\\d+)(?:タスク|ステップ|作業|段階|フェーズ)?に(?:進みます|移ります|取りかかります|取り掛かります|進む準備ができました)"),
  // Spanish.
  re(`${NL}(?:continúo|continuaré|continuando|sigo|seguiré|siguiendo|paso|pasaré|pasando|procedo|procederé|procediendo|voy\\s+a\\s+(?:continuar|seguir|pasar)|listo\\s+para\\s+(?:continuar|seguir|pasar))\\s+(?:con|al|a)\\s+(?:la\\s+|el\\s+)?(?:(?:siguiente|próxima|próximo)\\s+)?(?:tarea|paso|fase|etapa)`),
  // Portuguese.
  re(`${NL}(?:prosseguindo|continuando|passando|seguindo|sigo|continuo|prossigo|passo|vou\\s+(?:continuar|prosseguir|passar|seguir)|pronto\\s+para\\s+(?:continuar|prosseguir|passar))\\s+(?:com|para|a)\\s+(?:a\\s+|o\\s+)?(?:(?:próxima|próximo|seguinte)\\s+)?(?:tarefa|passo|etapa|fase)`),
  // German.
  re(`${NL}weiter\\s+mit\\s+(?:der\\s+|dem\\s+)?(?:nächsten\\s+)?(?:aufgabe|schritt|phase)`),
  re(`${NL}(?:bereit,?\\s+|fahre\\s+(?:ich\\s+)?(?:jetzt\\s+|nun\\s+)?|mache\\s+(?:ich\\s+)?(?:jetzt\\s+|nun\\s+)?)mit\\s+(?:der\\s+|dem\\s+)?(?:nächsten\\s+)?(?:aufgabe|schritt|phase)(?:\\s+\\d+)?\\s+(?:fortzufahren|weiterzumachen|fort|weiter)`),
  // French.
  re(`${NL}(?:je\\s+passe|passons|je\\s+vais\\s+(?:maintenant\\s+)?passer|je\\s+continue|je\\s+poursuis|prêt\\s+à\\s+(?:continuer|passer|poursuivre))\\s+(?:maintenant\\s+)?(?:à|avec)\\s+(?:la\\s+|l['\u2019]|le\\s+)?(?:(?:prochaine|suivante)\\s+)?(?:tâche|étape|phase)`),
  // Russian.
  re(`${NL}(?:перехожу|переходим|приступаю|продолжаю|продолжу|готов\\s+продолжить)\\s+(?:к|с|со)\\s+(?:следующ\\p{L}+\\s+)?(?:задач|шаг|этап)`),
])

export function readyToContinuePatterns(sources: readonly string[] | undefined): readonly RegExp[] {
  return compilePatterns(sources, "i") ?? DEFAULT_READY_TO_CONTINUE_PATTERNS
}

export function hasReadyToContinue(text: string, patterns: readonly RegExp[] = DEFAULT_READY_TO_CONTINUE_PATTERNS): boolean {
  const lines = lastNonBlankLines(text, READY_LINES)
  return !endsAsking(lines[lines.length - 1] ?? "") && claimIn(lines, patterns, DEFAULT_READY_TO_CONTINUE_PATTERNS)
}
