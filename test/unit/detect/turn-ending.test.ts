/**
 * How a finished turn ends (src/detect/turn-ending.ts): the hand-off read first and from the
 * structure of the last sentences, then stop / done / ready. Each positive has a control that
 * differs only in the trigger.
 */
import { describe, expect, test } from "bun:test"
import { decodeModel, ENDING_CLASSES, FEATURE_FORMAT, type EndingClass, type EndingModel, type EndingWeightsFile } from "../../../src/detect/ending-model.ts"
import { endingSentences, isQuestion } from "../../../src/detect/ending.ts"
import { endingModel, readEnding } from "../../../src/detect/turn-ending.ts"

/** A model that answers the same probabilities whatever it reads: a rule is then tested alone. */
function answering(p: Partial<Record<EndingClass, number>>): EndingModel {
  const bias = Float32Array.from(ENDING_CLASSES.map((c) => Math.log(p[c] ?? 1e-6)))
  return { buckets: 1, classes: ENDING_CLASSES, weights: new Float32Array(ENDING_CLASSES.length), bias, thresholds: { none: 0, "hand-off": 0.4, stop: 0.8, done: 0.8, ready: 0.8 } }
}

describe("a question mark of any script ends a question", () => {
  test.each([
    ["Latin", "Soll ich auch die Tests anpassen?"],
    ["full width", "要不要把旧的接口也删掉？"],
    ["Arabic", "هل تريد أن أحذف الملف القديم؟"],
    ["Greek", "Να συνεχίσω με τη μετάβαση;"],
    ["Spanish without its closing mark", "¿Quieres que siga con la migración"],
  ])("%s", (_name, sentence) => {
    expect(isQuestion(sentence)).toBe(true)
    expect(readEnding(`Der Parser ist fertig.\n\n${sentence}`).handOff?.how).toBe("question")
  })

  test("controls: a semicolon in Latin text and a question quoted inside a statement are not questions", () => {
    expect(isQuestion("The loop ends here; the rest is cleanup;")).toBe(false)
    expect(isQuestion('The prompt prints "Continue?" and waits for input.')).toBe(false)
  })
})

describe("a request for something only the user has", () => {
  test("a secret named as inline code is still asked for", () => {
    const text = "The webhook is written, but I cannot test it end to end.\n\nPlease send me `STRIPE_SECRET_KEY` or put it in `.env.local`."
    expect(readEnding(text).handOff?.detail).toBe("asks the reader for a secret or credential")
    // Control: the same key mentioned in a statement about code asks nothing.
    expect(readEnding("The webhook handler reads `STRIPE_SECRET_KEY` from the environment at start-up.").handOff).toBeUndefined()
  })

  test("a needed access in another language, without a second-person word", () => {
    const text = "Ошибка воспроизводится только в проде. Чтобы увидеть полный стек, мне нужен доступ к проекту в Sentry."
    expect(readEnding(text).handOff?.detail).toBe("asks the reader for a secret or credential")
    expect(readEnding("Ошибка воспроизводится только в проде. Доступ к Sentry настроен через SSO.").handOff?.detail).not.toBe("asks the reader for a secret or credential")
  })

  test("a quoted yes asked of the reader is a hand-off; the same words about a program's users are not", () => {
    expect(readEnding('This drops the legacy table. Answer "yes" and I will run the migration.').handOff?.detail).toBe("asks the reader to answer yes or no")
    const aboutCode = "La fonction `confirmDeletion()` demande à l'utilisateur de répondre « oui » avant de supprimer l'espace de travail."
    expect(readEnding(aboutCode).handOff?.detail).not.toBe("asks the reader to answer yes or no")
  })
})

describe("an announced action ending in a colon", () => {
  test("is read as an announcement, not as a family or a hand-off", () => {
    expect(readEnding("I updated the three call sites.\n\nNow I'll run the test suite to confirm nothing else relied on it:")).toEqual({ announcesAction: true })
    // Control: the same report without the announcement is no announcement.
    expect(readEnding("I updated the three call sites.").announcesAction).toBeUndefined()
  })
})

describe("stop, done and ready", () => {
  test("the rules read the phrasings they know, and a bare Done. is a done claim", () => {
    expect(readEnding("The migration is written. Stopping here.").family).toMatchObject({ family: "stop", layer: "rule" })
    expect(readEnding("Done.").family).toMatchObject({ family: "done", layer: "rule" })
    expect(readEnding("The migration is written. Ready to continue with the next step.").family).toMatchObject({ family: "ready", layer: "rule" })
  })

  test("a plain finding is none of them", () => {
    const reading = readEnding("The tokenizer drops the last quote of a line.")
    expect(reading.family).toBeUndefined()
    expect(reading.handOff).toBeUndefined()
  })

  test("the user's own done patterns replace both layers for done", () => {
    // With a pattern list that matches nothing here, a claim the classifier would read is not taken.
    const text = "Alles erledigt, die Pipeline ist grün."
    expect(readEnding(text, { doneClaimPatterns: ["^never-matches$"] }).family?.family).not.toBe("done")
  })
})

describe("the ending sentences", () => {
  test("code is not prose, and markdown frames are not part of a sentence", () => {
    expect(endingSentences("Ran the suite.\n\n```\nok 12 tests\n```\n\n- All green.")).toEqual(["Ran the suite.", "All green."])
  })

  test("a sentence longer than the cap is kept from its end and marked cut", () => {
    const [only] = endingSentences(`${"word ".repeat(200)}end.`)
    expect(only!.startsWith("\u2026")).toBe(true)
  })
})

describe("the shipped weights", () => {
  test("decode, and weights of another feature format are refused", () => {
    expect(endingModel().buckets).toBeGreaterThan(0)
    const wrong = { format: FEATURE_FORMAT + 1, buckets: 1, classes: [], scales: [], bias: [], thresholds: {}, weights: "" } as EndingWeightsFile
    expect(() => decodeModel(wrong)).toThrow(/train them again/)
  })
})

describe("requests by their form, in the languages without a question mark for them", () => {
  test.each([
    ["Hindi please", "पहला चरण पूरा हो गया है।\nकृपया बताएँ कि TDS calculation को इसी class में रखा जाए या नहीं।"],
    ["Korean please-confirm ending", "Redis 호스트 값이 문서와 다릅니다. 어느 쪽이 맞는 값인지 확인 부탁드립니다."],
    ["Polish let-me-know", "Zrobiłem wstępny podział monolitu. Daj znać, czy taki podział ci odpowiada."],
    ["Chinese quoted confirmation word", "脚本会清空 staging 库。我还没有执行。回复「确认」我就开始跑。"],
    ["Russian waiting for the go-ahead", "terraform plan показывает 3 изменения.\nЖду отмашки, чтобы выполнить terraform apply."],
    ["Turkish question particle without a mark", "Lisans olarak MIT mi eklensin Apache-2.0 mı"],
  ])("%s", (_name, text) => {
    expect(readEnding(text).handOff?.how).toMatch(/request|question/)
  })

  test.each([
    ["a report with no request", "पहला चरण पूरा हो गया है। Salary calculation अब PayrollCalculator class में है।"],
    ["waiting described as the program's", "The worker polls the queue and sleeps while the batch is empty."],
    ["a program's y/n prompt quoted", 'Der Bot fragt "Wirklich löschen? (ja/nein)" und bricht nach 30 s ab.'],
    ["Turkish statement", "Lisans olarak MIT ekledim ve README güncellendi."],
  ])("control: %s", (_name, text) => {
    expect(readEnding(text).handOff?.how ?? "none").not.toMatch(/request|question/)
  })
})

test("control: Italian 'mi' near the end is not the Turkish particle", () => {
  expect(readEnding("Si potrebbe limare ancora, ma per il momento non mi spingo oltre.").handOff).toBeUndefined()
})

test("Korean: 까요 asks, 니까요 ('because') does not", () => {
  expect(isQuestion("이 부분도 같이 수정할까요")).toBe(true)
  expect(isQuestion("모든 줄이 실행됐다는 것일 뿐, 모든 입력 조합이 검증됐다는 의미는 아니니까요.")).toBe(false)
})

describe("requests without a mark, and their controls", () => {
  test.each([
    ["Russian tell-me", "Даты хранятся вперемешку.\n\nПодскажи, какой часовой пояс считать эталонным — UTC или Europe/Moscow"],
    ["Polish choice that lost its mark", "Mogę to naprawić na dwa sposoby. Które rozwiązanie wolisz"],
    ["Arabic offer that lost its mark", "صفحة تسجيل الدخول صارت تدعم OTP.\n\nتبغى أضيف كمان الدخول عن طريق Apple ولا نكتفي بهذا"],
  ])("%s", (_name, text) => {
    expect(readEnding(text).handOff).toBeDefined()
  })

  test.each([
    ["the English courtesy after finished work", "The parser is fixed and the suite passes. Let me know if you need anything else."],
    ["a statement that opens with 'what'", "What changed is the order of the flags."],
    ["a heading question answered below it", "## Why does the build fail on Windows?\n\nThe script joins paths with a slash; `path.join` fixes it."],
    ["a quoted question of the user's, French spacing", "Tu demandais : « Pourquoi le build échoue-t-il seulement en CI ? »\n\nLa CI définit NODE_ENV=production avant npm ci."],
    ["a button label in quotes", "Der „Weiter“-Button bleibt deaktiviert, weil die Adresse nicht validiert wird."],
    ["tokens of a model, not a secret", "Sobre tu duda del formato: los modelos de Mistral emiten un token especial antes de la llamada."],
  ])("control: %s", (_name, text) => {
    // The rules do not read a request here (the classifier may still hear one: a doubt is silence).
    expect(readEnding(text).handOff?.how ?? "none").not.toMatch(/request|question/)
  })
})

describe("found in review: requests before a list, requests ending in a colon, and what a ready is not", () => {
  test.each([
    ["a please before options", "Please choose one of the following:\n\n1. Keep the cache\n2. Drop the cache"],
    ["a bare 'Should I:' before options", "Should I:\n\n- Migrate the data now\n- Migrate the data later"],
    ["a decision asked before points", "Before continuing I need a decision from you on these points:\n\n1. The database engine\n2. The auth provider"],
    ["a question before three options", "Which approach do you prefer?\n\n1. Cache\n2. Queue\n3. Both"],
    ["a request clause ending in a colon", "Before I drop the table, confirm:"],
    ["a question that ends in a colon", "Which of these should I implement first:"],
    ["an imperative choice", "Here are the options. Pick one:"],
  ])("%s is a hand-off, never an announced action or a ready", (_name, text) => {
    expect(readEnding(text).handOff).toBeDefined()
  })

  test.each([
    ["a summary list", "Summary:\n- fixed the parser\n- added two tests"],
    ["an announced action", "Next I will update the schema:"],
  ])("control: %s is no hand-off", (_name, text) => {
    expect(readEnding(text).handOff).toBeUndefined()
  })

  test("a move that waits on a condition, or a list of follow-ups, is not a ready the classifier may send a continue for", () => {
    expect(readEnding("I'll continue with the next task once CI is green.").family?.family).not.toBe("ready")
    expect(readEnding("The fix is in place.\n\nRecommended follow-ups:\n- Add monitoring for the queue\n- Consider moving to Postgres").family?.family).not.toBe("ready")
  })

  test("a done claim taken back in the sentences after it is no claim; control: the same claim last is one", () => {
    expect(readEnding("All tasks are complete.\n\nActually, wait: the lint step failed. Fixing it now.").family?.family).not.toBe("done")
    expect(readEnding("The lint step passes now.\n\nAll tasks are complete.").family?.family).toBe("done")
  })
})

describe("found on batch 5: words of one language that are another's 'you', and requests inside quotes", () => {
  test.each([
    ["French 'du' is not German 'du'", "Voilà, tout fonctionne : le lien de réinitialisation du mot de passe expire au bout de 30 minutes."],
    ["French 'je' is not Dutch 'je'", "Les tests dépendent du conteneur kafka, qui ne démarre pas ici faute d'accès au daemon Docker. Je n'irai pas plus loin pour le moment."],
    ["a bot's request quoted", 'الرسالة "يرجى الرد بنعم لتأكيد الحجز" تُرسل إلى العميل عبر واتساب فقط.'],
    ["a customer asked to reply", 'In de flow vraagt de bot de klant om met "JA" te antwoorden voordat het label wordt aangemaakt.'],
  ])("control: %s", (_name, text) => {
    expect(readEnding(text).handOff?.how ?? "none").not.toMatch(/request|question/)
  })

  test.each([
    ["German formal 'Sie' mid-sentence", "Der Export ist fertig. Sobald Sie mir den API-Schlüssel schicken, teste ich den Upload."],
    ["a Portuguese 'may I' without its mark", "posso apagar a pasta old_scripts, ninguém importa nada de lá"],
  ])("%s", (_name, text) => {
    expect(readEnding(text).handOff).toBeDefined()
  })
})

test("one word is too little for the classifier: 'Hmm.' reads as nothing; control: a short stop with two words is read", () => {
  expect(readEnding("Hmm.")).toEqual({})
  expect(readEnding("Pausing here for today.").family?.family).toBe("stop")
})

test("a question, then a short sign-off in any language, is still a question; control: a short exclamation after a statement is not", () => {
  expect(readEnding("O módulo está pronto.\n\nOs usuários com CPF inválido devem ser bloqueados ou só avisados?\n\nValeu!").handOff?.how).toBe("question")
  expect(readEnding("O módulo está pronto e os testes passam.\n\nValeu!").handOff?.how ?? "none").not.toBe("question")
})

describe("what the classifier reads around the ending", () => {
  test("a closing courtesy after a claim: the claim is the ending", () => {
    expect(readEnding("The bug is fixed and the full suite passes.\n\nCheers!").family?.family).toBe("done")
    expect(readEnding("Die Migration ist geschrieben, die Tests laufen grün.\n\nViele Grüße!").family?.family).toBe("done")
    expect(readEnding("Il refactoring è concluso, tutto compila.\n\nCiao!").family?.family).toBe("done")
    expect(readEnding("Next I'll wire the retry queue into the worker.\n\nThanks!").family?.family).toBe("ready")
  })

  test("control: the courtesy alone is no claim", () => {
    expect(readEnding("Cheers!").family).toBeUndefined()
    expect(readEnding("Thanks.").family).toBeUndefined()
  })

  test("a claim of one word is read when the classifier is sure", () => {
    for (const word of ["Gotowe.", "Erledigt.", "Tamamlandı."]) expect(readEnding(word).family?.family).toBe("done")
  })

  test("control: one word that claims nothing", () => {
    for (const word of ["OK.", "Hmm.", "Yes."]) expect(readEnding(word)).toEqual({})
  })

  const finding = "The importer keeps the first row of every sheet as the header."

  test("a hand-off the classifier doubts but does not believe: read as a doubt, and the family it reads is dropped", () => {
    const reading = readEnding(finding, {}, answering({ "hand-off": 0.2, done: 0.8 }))
    expect(reading.handOff).toBeUndefined()
    expect(reading.family).toBeUndefined()
    expect(reading.mayAsk).toBe("the ending may ask the user (p=0.20)")
  })

  test("control: below the doubt, the family stands", () => {
    const reading = readEnding(finding, {}, answering({ "hand-off": 0.16, done: 0.84 }))
    expect(reading.mayAsk).toBeUndefined()
    expect(reading.family).toMatchObject({ family: "done", layer: "model" })
  })

  test("control: a finding about code raises no doubt", () => {
    expect(readEnding("The cache is keyed by the request path, so query strings share an entry.")).toEqual({})
  })
})

describe("requests by form, where they stand", () => {
  test("an opener left at the head of a list item whose code subject was left out is no question", () => {
    const text = "Status:\n- `search.spec.ts` is still flaky (~1 in 6 runs) and I haven't found the cause yet\n\nI'll leave it there for today."
    expect(readEnding(text).handOff).toBeUndefined()
  })

  test("control: the same opener in the last sentence is a question that lost its mark", () => {
    expect(readEnding("The parser is done.\n\nShould I also port the lexer").handOff?.how).toBe("request")
  })

  test("a question that lost its mark after a colon", () => {
    const quiet = answering({ none: 0.95, "hand-off": 0.05 })
    expect(readEnding("Valschade is toegevoegd.\n\nNog één ontwerpvraag: moet de speler ook schade krijgen als hij op een vijand landt", {}, quiet).handOff?.how).toBe("request")
    // Control: a statement after the colon.
    expect(readEnding("Valschade is toegevoegd.\n\nNog één opmerking: de speler krijgt ook schade als hij op een vijand landt", {}, quiet).handOff).toBeUndefined()
  })

  test("a choice put to the reader mid-sentence is a doubt", () => {
    // The classifier sure it is none: the rule alone raises the doubt.
    const reading = readEnding("Trang trọng hay thân thiện — bạn chọn một, mình sẽ sửa toàn bộ theo đó.", {}, answering({ none: 0.95, "hand-off": 0.05 }))
    expect(reading.mayAsk).toBe("the last sentence may put a choice to the user")
    expect(reading.family).toBeUndefined()
  })

  test("control: the reader addressed with no verb of choosing raises no doubt from the rule", () => {
    expect(readEnding("Bản hiện tại dùng giọng thân thiện cho bạn đọc.", {}, answering({ none: 0.95, "hand-off": 0.05 })).mayAsk).toBeUndefined()
  })
})

describe("a ready that waits on a condition sends nothing", () => {
  const sureReady = answering({ ready: 0.9, none: 0.1 })
  test("the move waits: no family", () => {
    expect(readEnding("The migration is written. I'll continue with the next task once CI is green.", {}, sureReady).family).toBeUndefined()
    expect(readEnding("Die Migration steht. Sobald die Pipeline grün ist, mache ich mit dem Import weiter.", {}, sureReady).family).toBeUndefined()
  })
  test("control: 'after this', 'when' inside the next task, another language's 'if' are no condition", () => {
    for (const text of ["Als Nächstes kommt die REST-API dran.", "Setelah ini saya pindah ke README dan panduan kontribusi.", "Siguiente tarea: invalidar el caché cuando se edita un producto.", "इसके बाद मैं documentation पर काम करूँगा।"])
      expect(readEnding(text, {}, sureReady).family?.family).toBe("ready")
  })
})
