import { describe, expect, test } from "bun:test"
import { DEFAULT_READY_TO_CONTINUE_PATTERNS, hasReadyToContinue, readyToContinuePatterns } from "../../../src/detect/ready-to-continue.ts"

describe("ready to continue", () => {
  test.each([
    ["ready to continue with task", "Task 2 is done. Ready to continue with task 3."],
    ["proceeding with task", "Proceeding with task 4."],
    ["proceeding with the next step", "Proceeding with the next step"],
    ["continuing with task", "Continuing with task 5"],
    ["moving on to the next task", "Moving on to the next task."],
    ["I'll continue with task", "I'll continue with task 2 now."],
    ["ready to proceed to the next phase", "Ready to proceed to the next phase."],
    ["within the last three lines", "Ready to continue with task 3.\nSummary line one.\nSummary line two."],
    ["case-insensitive", "READY TO CONTINUE WITH TASK 3"],
  ])("ready: %s", (_name, text) => {
    expect(hasReadyToContinue(text)).toBe(true)
  })

  test.each([
    ["asks the user", "Shall I proceed with task 4?"],
    ["asks after announcing", "Ready to continue with task 3.\nShould I?"],
    ["plain prose", "The parser is fixed."],
    ["ready but no next thing", "Ready to help."],
    ["four lines up", "Ready to continue with task 3.\nline two\nline three\nline four"],
    ["empty", ""],
  ])("not ready: %s", (_name, text) => {
    expect(hasReadyToContinue(text)).toBe(false)
  })

  test("user patterns replace the defaults; empty or invalid lists keep them", () => {
    const patterns = readyToContinuePatterns(["weiter mit aufgabe"])
    expect(hasReadyToContinue("Weiter mit Aufgabe 3.", patterns)).toBe(true)
    expect(hasReadyToContinue("Proceeding with task 4.", patterns)).toBe(false)
    expect(readyToContinuePatterns([])).toBe(DEFAULT_READY_TO_CONTINUE_PATTERNS)
    expect(readyToContinuePatterns(["[bad"])).toBe(DEFAULT_READY_TO_CONTINUE_PATTERNS)
  })
})

describe("ready to continue in other languages (issue 18)", () => {
  test.each([
    ["Chinese", "第 2 步已完成，接下来继续下一个任务。"],
    ["Japanese", "次のタスクに進みます。"],
    ["Spanish", "Continúo con la siguiente tarea."],
    ["Portuguese", "Prosseguindo para a próxima tarefa."],
    ["German", "Ich fahre jetzt mit dem nächsten Schritt fort."],
    ["French", "Je passe à la tâche suivante."],
    ["Russian", "Перехожу к следующей задаче."],
  ])("ready: %s", (_name, text) => {
    expect(hasReadyToContinue(text)).toBe(true)
  })

  test.each([
    ["Chinese: the next task as a subject", "计划中的下一个任务是给解析器补测试。"],
    ["Japanese: asked with a full-width question mark", "次のタスクに進んでもよろしいですか？"],
    ["German: the next task as a subject", "Die nächste Aufgabe im Plan sind Tests für den Parser."],
    ["Russian: the next task as a subject", "Следующая задача в плане: тесты для парсера."],
  ])("not ready: %s", (_name, text) => {
    expect(hasReadyToContinue(text)).toBe(false)
  })
})

describe("a built-in ready claim must end its sentence (hard negatives of issue 18)", () => {
  test.each([
    ["the next task as the subject", "Continuing with the next task requires the API key, which is not in the environment."],
    ["a step that failed", "Proceeding with step 2 failed because the lock file is stale."],
    ["Spanish 'step by step'", "Paso a paso, el parser ahora valida cada token."],
    ["French, conditional on CI", "Je passe à la tâche suivante dès que la CI repasse au vert, ce qui prend dix minutes."],
    ["Chinese, the logic of moving on", "继续下一个任务的逻辑在 queue.ts 的 advance() 里。"],
    ["Russian, only after review", "Перехожу к следующей задаче только после ревью."],
  ])("not ready: %s", (_name, text) => {
    expect(hasReadyToContinue(text)).toBe(false)
  })

  test("negative control: the same claims ending their sentence are ready", () => {
    expect(hasReadyToContinue("Continuing with the next task.")).toBe(true)
    expect(hasReadyToContinue("Proceeding with step 2 now.")).toBe(true)
    expect(hasReadyToContinue("Перехожу к следующей задаче.")).toBe(true)
  })

  test("a user's own patterns are taken as written", () => {
    const own = readyToContinuePatterns(["continuing with the next task"])
    expect(hasReadyToContinue("Continuing with the next task requires the API key.", own)).toBe(true)
  })
})
