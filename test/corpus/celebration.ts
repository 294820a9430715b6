/** The 🎉 ending: the model considers the task complete. */
import { group, type Sample } from "./types.ts"

export const CELEBRATION: Sample[] = [
  ...group("celebration", "en", [
    "All tests pass. 🎉",
    "Shipped 🎉🚀",
    "**All done 🎉**",
    "The release is out (🎉)",
    "Merged [🎉]",
    "Everything is green 🎉\n\nHappy coding!",
    "Deployed to staging 🎉 ✨",
    "All done! :tada:",
  ]),
  ...group("celebration", "zh", ["全部测试通过了🎉！", "部署完成 🎉🎉", "搞定！🎉\n祝编码愉快！"]),
  ...group("celebration", "es", ["¡Todas las pruebas pasan! 🎉", "Desplegado en producción 🎉\n¡Feliz programación!"]),
  ...group("celebration", "pt", ["Todos os testes passaram! 🎉", "Publicado 🎉🥳"]),
  ...group("celebration", "de", ["Alle Tests sind grün! 🎉", "**Fertig 🎉**"]),
  ...group("celebration", "fr", ["Tous les tests passent ! 🎉", "Déployé 🎉\nBon code !"]),
  ...group("celebration", "ja", ["すべてのテストが通りました🎉！", "デプロイ完了🎉✨"]),
  ...group("celebration", "ru", ["Все тесты проходят! 🎉", "Релиз опубликован 🎉\nУдачи!"]),
]

/** Near misses: 🎉 that is not the end, or ends a question. */
export const CELEBRATION_NEAR_MISSES: Sample[] = [
  ...group("none", "en", [
    "🎉 Good news: the flaky test was a timezone bug. I pinned TZ=UTC in the test setup and it passes 50 runs in a row.",
    "Added a 🎉 to the release-notes template as requested, next to the version number.",
  ]),
  ...group("hand-off", "en", ["Deployed 🎉 Want me to open the release PR too?"]),
  ...group("hand-off", "zh", ["部署完成🎉 需要我再写一下发布说明吗？"]),
  ...group("none", "de", ["🎉 Der Fehler lag an der Zeitzone; mit TZ=UTC läuft der Test jetzt stabil durch."]),
]
