import { describe, expect, test } from "bun:test"
import { DEFAULT_DONE_CLAIM_PATTERNS, doneClaimPatterns, hasDoneClaim } from "../../../src/detect/done-claim.ts"

describe("done claims (built-in patterns)", () => {
  test.each([
    ["All done!", "All done!"],
    ["Finished.", "Finished."],
    ["Task done.", "Task done."],
    ["lower-case task complete is a claim (not a stop)", "task complete"],
    ["Everything is complete.", "Everything is complete."],
    ["All tasks completed.", "All tasks completed."],
    ["All the changes are done", "All the changes are done"],
    ["I'm done.", "I'm done."],
    ["I've finished the implementation", "I've finished the implementation and pushed it."],
    ["I have completed the task", "I have completed the task as requested."],
    ["The task is now complete", "The task is now complete."],
    ["The fix has been completed", "The fix has been completed"],
    ["Everything has been implemented", "Everything has been implemented."],
    ["All of the todos are done", "All of the todos are done now."],
    ["nothing left to do", "There is nothing left to do."],
    ["successfully completed", "I successfully completed the task."],
    ["claim within the last five lines", "All done!\nline 2\nline 3\nline 4\nline 5"],
    ["case-insensitive", "ALL DONE"],
  ])("claims: %s", (_name, text) => {
    expect(hasDoneClaim(text)).toBe(true)
  })

  test.each([
    ["work in progress", "I'm working on the parser now."],
    ["not done", "Not done yet: the lexer still fails."],
    ["done as part of a plan", "Once this is done I will move on."],
    ["completion of a sub-step with more to come", "Step 1 is finished; starting step 2."],
    ["question", "Is everything done on your side?"],
    ["claim six lines up", "All done!\nline 2\nline 3\nline 4\nline 5\nline 6"],
    ["empty", ""],
    ["words far apart", "all" + " ".repeat(50) + "xx done"],
  ])("no claim: %s", (_name, text) => {
    expect(hasDoneClaim(text)).toBe(false)
  })
})

describe("doneClaimPatterns option", () => {
  test("a user list replaces the built-in set, case-insensitive and multi-line", () => {
    const patterns = doneClaimPatterns(["^fertig$"])
    expect(hasDoneClaim("Alles erledigt.\nFERTIG", patterns)).toBe(true)
    expect(hasDoneClaim("All done!", patterns)).toBe(false)
  })

  test("an empty or fully invalid list keeps the built-in set", () => {
    expect(doneClaimPatterns([])).toBe(DEFAULT_DONE_CLAIM_PATTERNS)
    expect(doneClaimPatterns(undefined)).toBe(DEFAULT_DONE_CLAIM_PATTERNS)
    expect(doneClaimPatterns(["(unclosed", "  "])).toBe(DEFAULT_DONE_CLAIM_PATTERNS)
  })

  test("invalid entries are skipped, the rest used", () => {
    const patterns = doneClaimPatterns(["(unclosed", "^shipped$"])
    expect(patterns).toHaveLength(1)
    expect(hasDoneClaim("Shipped", patterns)).toBe(true)
  })
})

describe("done claims in other languages (issue 18)", () => {
  test.each([
    ["Chinese", "实现已完成。"],
    ["Japanese", "すべて完了しました。"],
    ["Spanish", "He terminado la tarea."],
    ["Portuguese", "A implementação está concluída."],
    ["German", "Alle Aufgaben sind erledigt."],
    ["French", "J'ai terminé la tâche."],
    ["Russian", "Реализация завершена."],
  ])("claim: %s", (_name, text) => {
    expect(hasDoneClaim(text)).toBe(true)
  })

  test.each([
    ["Chinese: a build finishing", "构建完成后，产物会放在 dist/ 目录。"],
    ["Spanish: a download finishing", "La descarga terminó en 3 segundos y la suma coincide."],
    ["German: a build being done", "Wenn der Build fertig ist, liegen die Artefakte in dist/."],
    ["French: a build being done", "Quand le build est terminé, les artefacts sont dans dist/."],
    ["Russian: a build finishing", "Когда сборка завершится, артефакты окажутся в dist/."],
    ["Japanese: a build finishing", "ビルドが完了すると、成果物は dist/ に置かれます。"],
  ])("no claim: %s", (_name, text) => {
    expect(hasDoneClaim(text)).toBe(false)
  })
})

describe("a built-in done claim must end its sentence (hard negatives of issue 18)", () => {
  test.each([
    ["English, with an exception", "The implementation is complete except for the Windows path handling."],
    ["Spanish", "La implementación está completa salvo el manejo de rutas en Windows."],
    ["German", "Die Implementierung ist abgeschlossen bis auf die Pfadbehandlung unter Windows."],
    ["French", "L'implémentation est terminée sauf pour les chemins Windows."],
    ["Japanese, 'but'", "実装が完了しましたが、Windows のパス処理がまだ残っています。"],
    ["Russian, half done", "Работа закончена наполовину: осталась обработка путей в Windows."],
  ])("no claim: %s", (_name, text) => {
    expect(hasDoneClaim(text)).toBe(false)
  })

  test("negative control: the same claims ending their sentence are claims", () => {
    expect(hasDoneClaim("The implementation is complete.")).toBe(true)
    expect(hasDoneClaim("L'implémentation est terminée.")).toBe(true)
    expect(hasDoneClaim("実装が完了しました。")).toBe(true)
  })

  test("a user's own patterns are taken as written", () => {
    expect(hasDoneClaim("The implementation is complete except for Windows.", doneClaimPatterns(["implementation is complete"]))).toBe(true)
  })
})
