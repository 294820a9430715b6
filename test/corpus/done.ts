/** Done claims: the end of the reply says the task is finished. */
import { group, type Sample } from "./types.ts"

export const DONE: Sample[] = [
  ...group("done", "en", [
    // A bare "Done." is a claim of finished work (issue 26), not a stop statement.
    "Done.",
    "All done.",
    "The implementation is complete.",
    "I've finished the task.",
    "Everything is done!",
    "All tasks have been completed.",
    "I'm done.",
    "The work is finished.",
    "All the changes are done.",
    "task complete",
    "I have successfully completed the task.",
  ]),
  ...group("done", "zh", [
    "全部完成。",
    "已完成所有任务。",
    "实现已完成。",
    "我已经完成了这个任务。",
    "所有工作都做完了！",
    "都搞定了。",
  ]),
  ...group("done", "es", [
    "Todo listo.",
    "He terminado la tarea.",
    "La implementación está completa.",
    "Todas las tareas están completadas.",
    "Ya terminé.",
    "Todo hecho.",
  ]),
  ...group("done", "pt", [
    "Tudo pronto.",
    "Terminei a tarefa.",
    "A implementação está concluída.",
    "Todas as tarefas foram concluídas.",
    "Já terminei.",
    "Tudo feito!",
  ]),
  ...group("done", "de", [
    "Alles erledigt.",
    "Ich bin fertig.",
    "Die Implementierung ist abgeschlossen.",
    "Alle Aufgaben sind erledigt.",
    "Ich habe die Aufgabe abgeschlossen.",
    "Fertig!",
  ]),
  ...group("done", "fr", [
    "C'est fait.",
    "J'ai terminé la tâche.",
    "L'implémentation est terminée.",
    "Toutes les tâches sont terminées.",
    "Tout est fait !",
    "J'ai fini.",
  ]),
  ...group("done", "ja", [
    "すべて完了しました。",
    "実装が完了しました。",
    "作業は完了です。",
    "全てのタスクが完了しました！",
    "終わりました。",
    "完了しました。",
  ]),
  ...group("done", "ru", [
    "Всё готово.",
    "Я закончил задачу.",
    "Реализация завершена.",
    "Все задачи выполнены.",
    "Готово!",
    "Работа закончена.",
  ]),
]

/** Near misses: finished things that are not the task, done in the past of another clause. */
export const DONE_NEAR_MISSES: Sample[] = [
  ...group("none", "en", [
    "The download finished in 3 seconds; the checksum matches the release.",
    "When the build is complete, the artefacts land in `dist/`.",
    "I'll report the numbers when the run completes.",
    "Auto-complete now suggests file paths in the prompt box.",
  ]),
  ...group("none", "zh", ["构建完成后，产物会放在 dist/ 目录。", "下载在 3 秒内完成，校验和与发布一致。"]),
  ...group("none", "es", ["Cuando la compilación esté completa, los artefactos quedan en dist/.", "La descarga terminó en 3 segundos y la suma coincide."]),
  ...group("none", "pt", ["Quando a compilação estiver concluída, os artefatos ficam em dist/.", "O download terminou em 3 segundos e o checksum confere."]),
  ...group("none", "de", ["Wenn der Build fertig ist, liegen die Artefakte in dist/.", "Der Download war nach 3 Sekunden abgeschlossen, die Prüfsumme stimmt."]),
  ...group("none", "fr", ["Quand le build est terminé, les artefacts sont dans dist/.", "Le téléchargement s'est terminé en 3 secondes et la somme correspond."]),
  ...group("none", "ja", ["ビルドが完了すると、成果物は dist/ に置かれます。", "ダウンロードは3秒で終わり、チェックサムも一致しました。"]),
  ...group("none", "ru", ["Когда сборка завершится, артефакты окажутся в dist/.", "Загрузка закончилась за 3 секунды, контрольная сумма совпала."]),
]
