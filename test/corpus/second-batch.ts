/**
 * A second batch, written after the detectors were extended and measured before any
 * change was made for it (its first figures are in the report of issue 18): phrasings the
 * first batch does not have, so the corpus is not only the detectors' own mirror.
 */
import { group, type Sample } from "./types.ts"

const FENCE = "```"

export const SECOND_BATCH: Sample[] = [
  // Hand-offs.
  ...group("hand-off", "en", [
    "I see two ways to fix this. Which would you prefer",
    "Can you confirm the target branch before I force-push?",
    "Let me know whether to keep the old endpoint for backwards compatibility.",
    "I'd like your go-ahead before running the destructive migration.",
    "Awaiting your confirmation to proceed with the deletion.",
    "Option A or option B — your choice.",
    "Should I go ahead and commit these changes",
    "If you approve, I'll merge the branch and tag the release.",
  ]),
  ...group("hand-off", "zh", ["您看这样可以吗", "请问要保留旧接口吗？", "你同意的话我就合并分支。", "请回复 1 或 2。"]),
  ...group("hand-off", "es", ["¿Te parece bien si sigo así?", "Confírmame la rama de destino antes de hacer el force-push.", "Si me das el visto bueno, hago el merge."]),
  ...group("hand-off", "pt", ["Posso seguir com a migração?", "Me diga se devo manter o endpoint antigo.", "Preciso da sua aprovação antes de apagar os dados."]),
  ...group("hand-off", "de", ["Passt das so für dich?", "Sag mir bitte, ob ich den alten Endpunkt behalten soll.", "Ich brauche deine Freigabe, bevor ich die Daten lösche."]),
  ...group("hand-off", "fr", ["Ça te va si je continue comme ça ?", "Peux-tu me confirmer la branche cible avant le force-push ?", "J'ai besoin de votre accord avant de supprimer les données."]),
  ...group("hand-off", "ja", ["この方針で進めてよろしいでしょうか。", "古いエンドポイントを残すかどうか教えてください。", "データを削除する前に承認をお願いします。"]),
  ...group("hand-off", "ru", ["Так подойдёт?", "Скажите, оставить ли старый эндпоинт.", "Мне нужно ваше одобрение, прежде чем удалять данные."]),
  // Stops.
  ...group("stop", "en", ["I'll stop here.", "Nothing else pending.", "Awaiting further instructions.", "No further changes required."]),
  ...group("stop", "zh", ["先到这里。", "暂时就到这里。", "没有其他要做的了。"]),
  ...group("stop", "es", ["Aquí me detengo.", "Tarea finalizada.", "No hay nada más que hacer."]),
  ...group("stop", "pt", ["Paro por aqui.", "Tarefa finalizada.", "Não há mais nada a fazer."]),
  ...group("stop", "de", ["Hier höre ich auf.", "Aufgabe erledigt.", "Es gibt nichts mehr zu tun."]),
  ...group("stop", "fr", ["Je m'arrête là.", "Tâche accomplie.", "Il n'y a plus rien à faire."]),
  ...group("stop", "ja", ["これで終了します。", "タスク完了です。", "これ以上の対応は不要です。"]),
  ...group("stop", "ru", ["Здесь я останавливаюсь.", "Задача завершена.", "Больше ничего делать не нужно."]),
  // Done claims.
  ...group("done", "en", ["Everything has been implemented.", "The fix is complete.", "I've completed all the tasks.", "We're all done!"]),
  ...group("done", "zh", ["已经全部完成了。", "修改都完成了。", "一切搞定！"]),
  ...group("done", "es", ["Ya está todo hecho.", "He completado todas las tareas.", "El trabajo está terminado."]),
  ...group("done", "pt", ["Está tudo pronto.", "Concluí todas as tarefas.", "O trabalho está concluído."]),
  ...group("done", "de", ["Alles ist erledigt.", "Ich habe alle Aufgaben erledigt.", "Die Arbeit ist fertig."]),
  ...group("done", "fr", ["Tout est terminé.", "J'ai terminé toutes les tâches.", "Le travail est fini."]),
  ...group("done", "ja", ["全部終わりました。", "すべての作業が完了しました。", "修正は完了です。"]),
  ...group("done", "ru", ["Всё сделано.", "Я выполнил все задачи.", "Работа завершена."]),
  // Ready to continue.
  ...group("ready", "en", ["On to the next task.", "Continuing with step 3 now.", "Now moving on to the next item."]),
  ...group("ready", "zh", ["接着做下一步。", "开始第 3 个任务。"]),
  ...group("ready", "es", ["Ahora paso al siguiente paso.", "Continuando con la siguiente tarea."]),
  ...group("ready", "pt", ["Continuando com a próxima tarefa.", "Agora passo para a próxima etapa."]),
  ...group("ready", "de", ["Jetzt weiter mit Schritt 3.", "Ich mache mit dem nächsten Schritt weiter."]),
  ...group("ready", "fr", ["Je poursuis avec l'étape suivante.", "Passons maintenant à la tâche suivante."]),
  ...group("ready", "ja", ["続いて次のステップに進みます。", "次の作業に移ります。"]),
  ...group("ready", "ru", ["Продолжаю со следующим шагом.", "Перехожу к следующему этапу."]),
  // Printed tool calls.
  ...group("tool-call", "en", [
    'Checking the file now.\n[read(filePath="package.json"), grep(pattern="version")]',
    '<|start|>assistant<|channel|>commentary to=functions.glob<|message|>{"pattern":"**/*.md"}<|call|>',
    `${FENCE}tool_code\nglob(pattern="src/**/*.ts")\n${FENCE}`,
    "<execute_command>\n<command>git diff</command>\n</execute_command>",
    'Action: webfetch\nAction Input: {"url": "https://example.com"}',
    '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}',
  ]),
  ...group("tool-call", "zh", ['<write_to_file>\n<path>说明.md</path>\n<content>内容</content>\n</write_to_file>']),
  ...group("tool-call", "ru", ['[bash(command="npm test")]']),
  // Dead streams.
  { family: "dead-stream", lang: "any", text: "\n\u200b\n\u200b\n" },
  { family: "dead-stream", lang: "any", text: "<think>\n\n" },
  { family: "dead-stream", lang: "any", text: "<THINK>Планирую изменения" },
  // Celebrations.
  ...group("celebration", "en", ["PR merged 🎉🎉🎉", "_Released v2.0 🎉_", "All checks green 🎉 🙌"]),
  ...group("celebration", "zh", ["上线啦🎉"]),
  ...group("celebration", "es", ["¡Listo! 🎉✨"]),
  ...group("celebration", "fr", ["C'est en ligne 🎉 !"]),
  ...group("celebration", "ja", ["リリースしました🎉"]),
  ...group("celebration", "ru", ["Готово 🎉🎉"]),
  // Action intent.
  ...group("action-intent", "en", ["Let me check the logs:", "Now I'll rewrite the handler:"]),
  ...group("action-intent", "zh", ["下面我来修改测试："]),
  ...group("action-intent", "de", ["Jetzt passe ich den Handler an:"]),
  ...group("action-intent", "ru", ["Сейчас поправлю обработчик:"]),
  // Ordinary endings.
  ...group("none", "en", [
    "The tests were flaky because of a shared temp dir; each test now gets its own.",
    "The approval step in CI is manual by design; I left it unchanged.",
    "Confirmation e-mails are now sent asynchronously.",
    "I kept the old endpoint for backwards compatibility, as the README promises.",
    "The next step in the pipeline is the deploy job, which runs only on main.",
    "The server stops when it receives SIGTERM.",
    "Whether to keep the cache is discussed in docs/cache.md.",
    "The option lets users choose between JSON and YAML output.",
  ]),
  ...group("none", "zh", ["用户现在可以选择输出格式。", "审批流程保持不变。", "服务器收到 SIGTERM 后会停止。", "是否启用缓存由配置项 cache.enabled 决定。"]),
  ...group("none", "es", ["Los usuarios ahora pueden elegir el formato de salida.", "El paso de aprobación en CI es manual.", "El servidor se detiene al recibir SIGTERM."]),
  ...group("none", "pt", ["Os usuários agora podem escolher o formato de saída.", "A etapa de aprovação no CI é manual.", "O servidor para ao receber SIGTERM."]),
  ...group("none", "de", ["Nutzer können jetzt das Ausgabeformat wählen.", "Der Freigabeschritt in der CI ist manuell.", "Der Server stoppt, wenn er SIGTERM erhält."]),
  ...group("none", "fr", ["Les utilisateurs peuvent maintenant choisir le format de sortie.", "L'étape de validation en CI est manuelle.", "Le serveur s'arrête à la réception de SIGTERM."]),
  ...group("none", "ja", ["ユーザーは出力形式を選べるようになりました。", "CI の承認ステップは手動のままです。", "サーバーは SIGTERM を受け取ると停止します。"]),
  ...group("none", "ru", ["Теперь пользователи могут выбрать формат вывода.", "Шаг одобрения в CI остаётся ручным.", "Сервер останавливается при получении SIGTERM."]),
]
