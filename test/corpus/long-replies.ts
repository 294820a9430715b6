/**
 * Whole replies rather than last lines: a report of the work, then the ending that decides.
 * Written after the detectors were extended; first run recorded in the report of issue 18.
 */
import { group, type Sample } from "./types.ts"

const REPORT_EN = "I changed `src/parser.ts` to check for an empty header and added a test in `test/parser.test.ts`.\n\n`bun test`: 214 pass, 0 fail.\n\n"
const REPORT_ZH = "我修改了 `src/parser.ts`，增加了空头部检查，并在 `test/parser.test.ts` 里加了测试。\n\n`bun test`：214 通过，0 失败。\n\n"
const REPORT_ES = "Cambié `src/parser.ts` para comprobar la cabecera vacía y añadí una prueba en `test/parser.test.ts`.\n\n`bun test`: 214 pasan, 0 fallan.\n\n"
const REPORT_PT = "Alterei `src/parser.ts` para verificar o cabeçalho vazio e adicionei um teste em `test/parser.test.ts`.\n\n`bun test`: 214 passam, 0 falham.\n\n"
const REPORT_DE = "Ich habe `src/parser.ts` um eine Prüfung auf leere Header ergänzt und einen Test in `test/parser.test.ts` hinzugefügt.\n\n`bun test`: 214 bestanden, 0 fehlgeschlagen.\n\n"
const REPORT_FR = "J'ai modifié `src/parser.ts` pour vérifier l'en-tête vide et ajouté un test dans `test/parser.test.ts`.\n\n`bun test` : 214 réussis, 0 échec.\n\n"
const REPORT_JA = "`src/parser.ts` に空ヘッダーのチェックを追加し、`test/parser.test.ts` にテストを追加しました。\n\n`bun test`: 214 件成功、0 件失敗。\n\n"
const REPORT_RU = "Я добавил в `src/parser.ts` проверку пустого заголовка и тест в `test/parser.test.ts`.\n\n`bun test`: 214 прошло, 0 упало.\n\n"

export const LONG_REPLIES: Sample[] = [
  ...group("hand-off", "en", [REPORT_EN + "Do you want me to also handle malformed headers, or leave that for a separate PR"]),
  ...group("stop", "en", [REPORT_EN + "No further action needed."]),
  ...group("done", "en", [REPORT_EN + "All done."]),
  ...group("ready", "en", [REPORT_EN + "Moving on to the next task."]),
  ...group("hand-off", "zh", [REPORT_ZH + "需要我顺便处理格式错误的头部吗"]),
  ...group("stop", "zh", [REPORT_ZH + "无需进一步操作。"]),
  ...group("done", "zh", [REPORT_ZH + "全部完成。"]),
  ...group("ready", "zh", [REPORT_ZH + "接下来继续下一个任务。"]),
  ...group("hand-off", "es", [REPORT_ES + "Dime si también quieres que maneje las cabeceras mal formadas."]),
  ...group("stop", "es", [REPORT_ES + "No se requiere ninguna acción adicional."]),
  ...group("done", "es", [REPORT_ES + "Todo listo."]),
  ...group("ready", "es", [REPORT_ES + "Paso a la siguiente tarea."]),
  ...group("hand-off", "pt", [REPORT_PT + "Me avise se devo tratar também os cabeçalhos malformados."]),
  ...group("stop", "pt", [REPORT_PT + "Nada mais a fazer."]),
  ...group("done", "pt", [REPORT_PT + "Tudo pronto."]),
  ...group("ready", "pt", [REPORT_PT + "Passando para a próxima tarefa."]),
  ...group("hand-off", "de", [REPORT_DE + "Soll ich auch fehlerhafte Header behandeln oder das in einem eigenen PR machen"]),
  ...group("stop", "de", [REPORT_DE + "Keine weiteren Maßnahmen erforderlich."]),
  ...group("done", "de", [REPORT_DE + "Alles erledigt."]),
  ...group("ready", "de", [REPORT_DE + "Weiter mit der nächsten Aufgabe."]),
  ...group("hand-off", "fr", [REPORT_FR + "Dites-moi si je dois aussi gérer les en-têtes mal formés."]),
  ...group("stop", "fr", [REPORT_FR + "Aucune autre action nécessaire."]),
  ...group("done", "fr", [REPORT_FR + "Tout est fait."]),
  ...group("ready", "fr", [REPORT_FR + "Je passe à la tâche suivante."]),
  ...group("hand-off", "ja", [REPORT_JA + "不正なヘッダーの処理も追加しますか"]),
  ...group("stop", "ja", [REPORT_JA + "これ以上の作業はありません。"]),
  ...group("done", "ja", [REPORT_JA + "すべて完了しました。"]),
  ...group("ready", "ja", [REPORT_JA + "次のタスクに進みます。"]),
  ...group("hand-off", "ru", [REPORT_RU + "Скажите, обрабатывать ли также некорректные заголовки."]),
  ...group("stop", "ru", [REPORT_RU + "Дальнейших действий не требуется."]),
  ...group("done", "ru", [REPORT_RU + "Всё готово."]),
  ...group("ready", "ru", [REPORT_RU + "Перехожу к следующей задаче."]),
  // The report alone: nothing to do.
  ...group("none", "en", [REPORT_EN.trim()]),
  ...group("none", "zh", [REPORT_ZH.trim()]),
  ...group("none", "es", [REPORT_ES.trim()]),
  ...group("none", "pt", [REPORT_PT.trim()]),
  ...group("none", "de", [REPORT_DE.trim()]),
  ...group("none", "fr", [REPORT_FR.trim()]),
  ...group("none", "ja", [REPORT_JA.trim()]),
  ...group("none", "ru", [REPORT_RU.trim()]),
]
