/** Ordinary endings that call for nothing: explanations, reports, answers, in every language. */
import { group, type Sample } from "./types.ts"

export const PLAIN: Sample[] = [
  ...group("none", "en", [
    "The crash came from a missing null check in `parseHeader`. I added the check and a test; `bun test` passes (212 tests).",
    "Here's how the cache works: entries are keyed by path and evicted after 5 minutes.",
    "## Summary\n- Fixed the race in `watcher.ts`\n- Added two regression tests\n\nAll 48 tests pass.",
    "The function returns `undefined` when the list is empty, which is why the caller crashed.",
    "I reverted the formatting-only changes so the diff stays small.",
    "Both options work; the first keeps memory lower, the second is simpler to read.",
    "The build takes 41 s on CI now, down from 95 s.",
    "Running `git log` shows the regression came in with commit 3f2a1c9.",
  ]),
  ...group("none", "zh", [
    "崩溃是因为 `parseHeader` 缺少空值检查。我加了检查和测试，`bun test` 通过。",
    "缓存按路径做键，5 分钟后过期。",
    "## 总结\n- 修复了 watcher.ts 的竞态\n- 新增两个回归测试",
    "这个函数在列表为空时返回 undefined，所以调用方崩溃了。",
    "CI 上的构建时间从 95 秒降到了 41 秒。",
  ]),
  ...group("none", "es", [
    "El fallo venía de una comprobación de null que faltaba en `parseHeader`. Añadí la comprobación y una prueba.",
    "La caché usa la ruta como clave y caduca a los 5 minutos.",
    "## Resumen\n- Corregida la condición de carrera en watcher.ts\n- Dos pruebas de regresión nuevas",
    "Ambas opciones funcionan; la primera usa menos memoria.",
    "La compilación en CI tarda ahora 41 s.",
  ]),
  ...group("none", "pt", [
    "O erro vinha de uma verificação de null ausente em `parseHeader`. Adicionei a verificação e um teste.",
    "O cache usa o caminho como chave e expira em 5 minutos.",
    "## Resumo\n- Corrigida a condição de corrida em watcher.ts\n- Dois testes de regressão novos",
    "As duas opções funcionam; a primeira usa menos memória.",
    "O build no CI agora leva 41 s.",
  ]),
  ...group("none", "de", [
    "Der Absturz kam von einer fehlenden Null-Prüfung in `parseHeader`. Ich habe sie ergänzt und einen Test geschrieben.",
    "Der Cache verwendet den Pfad als Schlüssel und verfällt nach 5 Minuten.",
    "## Zusammenfassung\n- Race Condition in watcher.ts behoben\n- Zwei neue Regressionstests",
    "Beide Varianten funktionieren; die erste braucht weniger Speicher.",
    "Der Build auf CI dauert jetzt 41 s.",
  ]),
  ...group("none", "fr", [
    "Le plantage venait d'un test de null manquant dans `parseHeader`. J'ai ajouté le test et une vérification.",
    "Le cache utilise le chemin comme clé et expire au bout de 5 minutes.",
    "## Résumé\n- Condition de course corrigée dans watcher.ts\n- Deux tests de régression ajoutés",
    "Les deux options fonctionnent ; la première consomme moins de mémoire.",
    "Le build sur la CI prend maintenant 41 s.",
  ]),
  ...group("none", "ja", [
    "クラッシュの原因は `parseHeader` の null チェック漏れでした。チェックとテストを追加しました。",
    "キャッシュはパスをキーにして 5 分で失効します。",
    "## まとめ\n- watcher.ts の競合状態を修正\n- 回帰テストを2件追加",
    "どちらの方法でも動きますが、前者の方がメモリ使用量が少ないです。",
    "CI のビルド時間は 41 秒になりました。",
  ]),
  ...group("none", "ru", [
    "Падение было из-за отсутствующей проверки на null в `parseHeader`. Я добавил проверку и тест.",
    "Кэш использует путь как ключ и истекает через 5 минут.",
    "## Итоги\n- Исправлена гонка в watcher.ts\n- Добавлены два регрессионных теста",
    "Оба варианта работают; первый расходует меньше памяти.",
    "Сборка на CI теперь занимает 41 с.",
  ]),
]
