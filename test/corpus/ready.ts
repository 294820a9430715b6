/** Ready to continue: the model says it is moving on to the next task, then stops. */
import { group, type Sample } from "./types.ts"

export const READY: Sample[] = [
  ...group("ready", "en", [
    "Task 2 is finished. Ready to continue with task 3.",
    "Proceeding with the next task.",
    "Moving on to step 4.",
    "I'll now continue with the next item.",
    "Next, I'll proceed with task 5.",
    "Let me move on to the next phase.",
  ]),
  ...group("ready", "zh", [
    "第 2 步已完成，接下来继续下一个任务。",
    "准备继续执行任务 3。",
    "现在开始下一步。",
    "继续进行第 4 步。",
    "我将继续处理下一个任务。",
  ]),
  ...group("ready", "es", [
    "Continúo con la siguiente tarea.",
    "Paso a la siguiente tarea.",
    "Listo para continuar con la tarea 3.",
    "Ahora continuaré con el paso 2.",
    "Sigo con el siguiente paso.",
  ]),
  ...group("ready", "pt", [
    "Prosseguindo para a próxima tarefa.",
    "Pronto para continuar com a tarefa 3.",
    "Agora vou continuar com o próximo passo.",
    "Passando para a próxima etapa.",
    "Sigo com a próxima tarefa.",
  ]),
  ...group("ready", "de", [
    "Weiter mit der nächsten Aufgabe.",
    "Bereit, mit Aufgabe 3 fortzufahren.",
    "Ich fahre jetzt mit dem nächsten Schritt fort.",
    "Als Nächstes mache ich mit Schritt 2 weiter.",
    "Ich mache mit der nächsten Aufgabe weiter.",
  ]),
  ...group("ready", "fr", [
    "Je passe à la tâche suivante.",
    "Prêt à continuer avec la tâche 3.",
    "Je continue avec l'étape suivante.",
    "Je vais maintenant passer à l'étape 4.",
    "Passons à la tâche suivante.",
  ]),
  ...group("ready", "ja", [
    "次のタスクに進みます。",
    "タスク3に進む準備ができました。",
    "次のステップに移ります。",
    "引き続き次の作業に取りかかります。",
    "では、ステップ4に進みます。",
  ]),
  ...group("ready", "ru", [
    "Перехожу к следующей задаче.",
    "Готов продолжить с задачей 3.",
    "Теперь продолжу со следующим шагом.",
    "Приступаю к следующему этапу.",
    "Перехожу к шагу 4.",
  ]),
]

/** Near misses: the next task as a subject, a past continuation, a continuation that waits for the user. */
export const READY_NEAR_MISSES: Sample[] = [
  ...group("none", "en", [
    "The next task in the plan is adding tests for the parser.",
    "I continued with step 2 after fixing the build, and both steps pass now.",
  ]),
  ...group("hand-off", "en", [
    "Ready to continue with task 3 once you approve the schema.",
    "Shall I proceed with the next task?",
  ]),
  ...group("none", "zh", ["计划中的下一个任务是给解析器补测试。"]),
  ...group("hand-off", "zh", ["你确认后我就继续下一个任务。"]),
  ...group("none", "es", ["La siguiente tarea del plan es añadir pruebas al parser."]),
  ...group("hand-off", "es", ["¿Continúo con la siguiente tarea?"]),
  ...group("none", "pt", ["A próxima tarefa do plano é adicionar testes ao parser."]),
  ...group("hand-off", "pt", ["Posso prosseguir para a próxima tarefa?"]),
  ...group("none", "de", ["Die nächste Aufgabe im Plan sind Tests für den Parser."]),
  ...group("hand-off", "de", ["Soll ich mit der nächsten Aufgabe weitermachen?"]),
  ...group("none", "fr", ["La prochaine tâche du plan consiste à ajouter des tests au parseur."]),
  ...group("hand-off", "fr", ["Je passe à la tâche suivante ?"]),
  ...group("none", "ja", ["計画上の次のタスクはパーサーのテスト追加です。"]),
  ...group("hand-off", "ja", ["次のタスクに進んでもよろしいですか？"]),
  ...group("none", "ru", ["Следующая задача в плане: тесты для парсера."]),
  ...group("hand-off", "ru", ["Перейти к следующей задаче?"]),
]
