import { describe, expect, test } from "bun:test"
import { asksUser } from "../../../src/detect/asks-user.ts"

describe("the reply hands the turn to the user", () => {
  test.each([
    ["approval pending, no question mark", "I'll run the migration once you approve the plan."],
    ["confirmation asked with a colon", "Before I delete anything, please confirm:"],
    ["a preference asked without ?", "Let me know which option you prefer."],
    ["a y/n prompt", "Proceed? (y/n)"],
    ["a question, then thanks", "Which schema should I use?\nThanks!"],
    ["Chinese, no question mark", "请确认是否继续。"],
    ["Spanish", "Avísame qué opción prefieres."],
    ["Portuguese", "Aguardo sua aprovação para fazer o push."],
    ["German", "Ich führe die Migration aus, sobald du den Plan freigibst."],
    ["French", "J'attends votre validation avant de pousser sur main."],
    ["Japanese, no question mark", "ドキュメントも更新しますか"],
    ["Russian", "Жду вашего подтверждения, прежде чем пушить в main."],
    ["a plain question", "Which database should I use?"],
  ])("%s", (_name, text) => {
    expect(asksUser(text)).toBeDefined()
  })

  test.each([
    ["approval as the subject of the work", "The approval workflow now records who approved each deploy."],
    ["confirmation done by the model", "I confirmed that the fix works on Node 20 and 22."],
    ["a confirmation dialog", "Added a confirmation dialog before the account is deleted."],
    ["a courtesy sign-off", "Fixed the import.\nLet me know if you need anything else."],
    ["a question earlier, a statement last", "Why did it fail? The import was wrong. Fixed."],
    ["Chinese statement", "我已确认修复在 Node 20 上有效。"],
    ["German past participle", "Ich habe bestätigt, dass der Fix unter Node 20 funktioniert."],
    ["Russian statement", "Перед удалением аккаунта теперь показывается диалог подтверждения."],
    ["a stop statement waiting for instructions", "Standing by for your next instruction."],
    ["empty", ""],
  ])("not a hand-off: %s", (_name, text) => {
    expect(asksUser(text)).toBeUndefined()
  })
})
