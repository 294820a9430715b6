/** Action intent: the last line announces a step and ends with a colon, and nothing follows. */
import { group, type Sample } from "./types.ts"

export const ACTION_INTENT: Sample[] = [
  ...group("action-intent", "en", [
    "Next, I'll update the config:",
    "The test fails on the import. Let me fix the path:",
    "Now I'll add the missing export to **src/index.ts**:",
    "I'll run the test suite to check:",
  ]),
  ...group("action-intent", "zh", ["接下来我会更新配置：", "测试在导入处失败。我来修复路径：", "现在运行测试看看："]),
  ...group("action-intent", "es", ["Ahora voy a actualizar la configuración:", "La prueba falla en el import. Corrijo la ruta:", "Ejecuto las pruebas para comprobarlo:"]),
  ...group("action-intent", "pt", ["Agora vou atualizar a configuração:", "O teste falha no import. Vou corrigir o caminho:", "Vou rodar os testes para conferir:"]),
  ...group("action-intent", "de", ["Als Nächstes aktualisiere ich die Konfiguration:", "Der Test scheitert am Import. Ich korrigiere den Pfad:", "Ich führe die Tests aus, um das zu prüfen:"]),
  ...group("action-intent", "fr", ["Je vais maintenant mettre à jour la configuration :", "Le test échoue sur l'import. Je corrige le chemin :", "Je lance les tests pour vérifier :"]),
  ...group("action-intent", "ja", ["次に設定を更新します：", "インポートでテストが失敗しています。パスを修正します：", "テストを実行して確認します:"]),
  ...group("action-intent", "ru", ["Теперь обновлю конфигурацию:", "Тест падает на импорте. Исправляю путь:", "Запускаю тесты для проверки:"]),
]

/** Near misses: labels, URLs, a colon that is an emoji code, a colon that asks the user. */
export const ACTION_INTENT_NEAR_MISSES: Sample[] = [
  ...group("none", "en", [
    "Summary:",
    "Details are in the docs, see https:",
    "The changes:\n- `a.ts`: renamed the flag\n- `b.ts`: dropped the shim",
    "Here is the fix:\n```ts\nexport const x = 1\n```",
  ]),
  ...group("celebration", "en", ["Done :tada:", "Shipped the release :tada:"]),
  ...group("hand-off", "en", ["Please choose one of these before I start:"]),
  ...group("none", "zh", ["总结："]),
  ...group("none", "de", ["Zusammenfassung:"]),
  ...group("none", "fr", ["Résumé :"]),
  ...group("none", "ru", ["Итог:"]),
  ...group("none", "ja", ["まとめ："]),
]
