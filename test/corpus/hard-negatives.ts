/**
 * Hard negatives, written last and measured before any change made for them (their first
 * figures are in the report of issue 18): endings that use the very words of a nudging
 * family without meaning it. Each one, misread, would send a nudge nobody asked for.
 */
import { group, type Sample } from "./types.ts"

export const HARD_NEGATIVES: Sample[] = [
  ...group("none", "en", [
    "Continuing with the next task requires the API key, which is not in the environment.",
    "Proceeding with step 2 failed because the lock file is stale; I regenerated it and step 2 passes now.",
    "The implementation is complete except for the Windows path handling, which still uses `/`.",
    "Moving on to the next item in the list is handled by `advance()` in `queue.ts`.",
    "Ready to continue with task 3 was the message the old CLI printed; the new one says nothing.",
    "The watcher stops here when the directory disappears.",
    "Standing by mode is now the default for idle workers.",
    "Let me explain the next step: the parser hands tokens to the checker.",
  ]),
  ...group("none", "zh", [
    "开始下一步之前需要先安装依赖，我已经在 README 里写明。",
    "实现已完成一半，剩下的是 Windows 路径处理。",
    "全部完成后会自动发送通知。",
    "继续下一个任务的逻辑在 queue.ts 的 advance() 里。",
  ]),
  ...group("none", "es", [
    "Paso a paso, el parser ahora valida cada token.",
    "Continuar con la siguiente tarea requiere la clave de la API, que falta.",
    "La implementación está completa salvo el manejo de rutas en Windows.",
    "Nada más arrancar, el servidor carga la caché.",
  ]),
  ...group("none", "pt", [
    "Passo a passo, o parser agora valida cada token.",
    "Prosseguir para a próxima tarefa exige a chave da API, que está faltando.",
    "A implementação está concluída, exceto o tratamento de caminhos no Windows.",
  ]),
  ...group("none", "de", [
    "Weiter mit der nächsten Aufgabe geht es erst nach dem Review durch das Team.",
    "Die Implementierung ist abgeschlossen bis auf die Pfadbehandlung unter Windows.",
    "Das war's mit den einfachen Fällen; die schwierigen stehen in der Liste unten.",
  ]),
  ...group("none", "fr", [
    "Je passe à la tâche suivante dès que la CI repasse au vert, ce qui prend environ dix minutes.",
    "L'implémentation est terminée sauf pour les chemins Windows.",
    "C'est tout l'intérêt du cache : éviter de relire le disque.",
  ]),
  ...group("none", "ja", [
    "次のステップに進む前に依存関係をインストールする必要があります。",
    "実装が完了しましたが、Windows のパス処理がまだ残っています。",
    "以上ですべての関数の説明になりますが、例外処理だけは別ファイルです。",
  ]),
  ...group("none", "ru", [
    "Работа закончена наполовину: осталась обработка путей в Windows.",
    "Перехожу к следующей задаче только после ревью, так договорились в команде.",
    "Это всё благодаря кэшу: диск больше не читается повторно.",
  ]),
]
