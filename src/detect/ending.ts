/**
 * The end of a reply as a reader sees it: its last few sentences of prose, in any script.
 * Everything that judges how a turn ended (the hand-off check, the ending classifier) reads this
 * one structure, so they agree on where a sentence stops and what is code.
 *
 * - Code is not prose: fenced blocks and inline code spans are removed first (text.ts).
 * - Markdown around a line (headings, bullets, quotes, emphasis) is not part of its sentence.
 * - A sentence ends at a line break, or at a terminator of any script (. ! ? 。 ！ ？ ؟ । ۔ …)
 *   that is followed by a space or the end. A full stop inside a token ("queue.ts", "v2.1",
 *   "e.g.x") ends nothing; the CJK full-width terminators end a sentence with no space after.
 * - Lines with no letters (rules, emoji rows, "---") are skipped.
 * Bounded: only the last ENDING_WINDOW characters of prose are read, and each sentence keeps at
 * most MAX_SENTENCE_CHARS from its end (a cut sentence starts with "…", as lines do in text.ts).
 */
import { proseTail } from "./text.ts"

/** Sentences kept, newest last. */
export const ENDING_SENTENCES = 3
/** Prose read from the end of the reply. */
export const ENDING_WINDOW = 2_048
export const MAX_SENTENCE_CHARS = 300

/** Question marks of the scripts models answer in: Latin/Cyrillic/Devanagari "?", full width, Arabic, Greek, Armenian, Ethiopic, and doubled forms. */
const QUESTION_MARKS = "?\uff1f\u061f\u037e\u055e\u1367\u2047\u2048\u2049\u203d\u2e2e\ufe56\ufe16\u2753\u2754"
/** Terminators that end a sentence when a space or the end follows. */
const TERMINATORS = `.!\u2026\u0964\u0965\u06d4\u203c${QUESTION_MARKS}`
/** Terminators that end a sentence even with no space after (CJK writes none). */
const CJK_TERMINATORS = "\u3002\uff01\uff1f\uff0e"

/** What may close a sentence after its terminator without being part of it. */
const CLOSERS = "\"'\u201d\u2019\u00bb)]\u300d\u300f\uff09*_~`"

const LETTER = /\p{L}/u
const HEADING = /^[ \t]{0,3}#{1,6}[ \t]/

function isSpace(ch: string): boolean {
  return ch === " " || ch === "\t" || ch === "\u00a0" || ch === "\u3000"
}

/** A line without its markdown frame: heading marks, list bullets, quote marks, numbering. */
function unframe(line: string): string {
  let s = line.trim()
  // At most a few rounds: "> - **Note:**" is three frames.
  for (let round = 0; round < 4; round++) {
    const before = s
    s = s.replace(/^(?:#{1,6}[ \t]+|>[ \t]?|[-*+•·][ \t]+|\d{1,3}[.)][ \t]+|\[[ xX]\][ \t]+)/u, "")
    if (s === before) break
  }
  return s.trim()
}

/** The next word after `from` starts with a lower-case letter (in a script that has cases). */
function continuesLower(line: string, from: number): boolean {
  let k = from
  while (k < line.length && isSpace(line[k]!)) k++
  const ch = line[k]
  return ch !== undefined && ch !== ch.toUpperCase() && ch === ch.toLowerCase()
}

/** Splits one prose line into its sentences, oldest first. Linear: one pass, no regex. */
function splitLine(line: string): string[] {
  const out: string[] = []
  let start = 0
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    let end = -1
    if (CJK_TERMINATORS.includes(ch)) end = i + 1
    else if (TERMINATORS.includes(ch)) {
      let j = i + 1
      while (j < line.length && TERMINATORS.includes(line[j]!)) j++
      // French sets a space before its closing guillemet: "« Pourquoi ? »" closes after the space.
      while (j + 1 < line.length && isSpace(line[j]!) && CLOSERS.includes(line[j + 1]!)) j++
      while (j < line.length && CLOSERS.includes(line[j]!)) j++
      // A lower-case word after the terminator goes on with the same sentence: a quoted
      // question that is the subject of a clause ('"Proceed?" is printed'), "e.g. this".
      if (j >= line.length || (isSpace(line[j]!) && !continuesLower(line, j))) end = j
      else i = j - 1
    }
    if (end < 0) continue
    while (end < line.length && (CLOSERS.includes(line[end]!) || TERMINATORS.includes(line[end]!) || CJK_TERMINATORS.includes(line[end]!))) end++
    const sentence = line.slice(start, end).trim()
    if (sentence !== "") out.push(sentence)
    start = end
    i = end - 1
  }
  const rest = line.slice(start).trim()
  if (rest !== "") out.push(rest)
  return out
}

/** A sentence the window or the length cap cut: only its end is known. */
export function isCut(sentence: string): boolean {
  return sentence.startsWith("\u2026")
}

function cap(sentence: string): string {
  return sentence.length > MAX_SENTENCE_CHARS ? `\u2026${sentence.slice(sentence.length - MAX_SENTENCE_CHARS)}` : sentence
}

/**
 * The last `count` sentences of the reply's prose, oldest first. Markup-only lines are skipped;
 * an empty array means the reply ends in code or has no prose at all.
 */
export function endingSentences(text: string, count: number = ENDING_SENTENCES): string[] {
  if (typeof text !== "string" || text.length === 0) return []
  return sentencesOfProse(proseTail(text), count)
}

/** endingSentences over prose already taken from the reply (proseTail), so a caller reads the reply once. */
export function sentencesOfProse(prose: string, count: number = ENDING_SENTENCES): string[] {
  const window = prose.length > ENDING_WINDOW ? prose.slice(prose.length - ENDING_WINDOW) : prose
  const lines = window.split("\n")
  // A line the window cut is read as cut (its sentence starts with "…"), as text.ts does.
  if (window.length < prose.length && prose[prose.length - window.length - 1] !== "\n") lines[0] = `\u2026${lines[0]}`
  const out: string[] = []
  for (let l = lines.length - 1; l >= 0 && out.length < count; l--) {
    // A heading titles what follows ("## Why does the build fail?" and then its answer): it is
    // not a sentence of the ending, even when it is a question.
    if (HEADING.test(lines[l]!)) continue
    const line = unframe(lines[l]!)
    if (!LETTER.test(line)) continue
    const sentences = splitLine(line)
    for (let s = sentences.length - 1; s >= 0 && out.length < count; s--) {
      const sentence = sentences[s]!
      if (LETTER.test(sentence)) out.push(cap(sentence))
    }
  }
  return out.reverse()
}

/** The sentence without what trails its last word: closing quotes, emphasis, emoji, spaces. */
function trimTrail(sentence: string): string {
  let end = sentence.length
  while (end > 0) {
    const code = sentence.codePointAt(end - 1)!
    let start = end - 1
    if (code >= 0xdc00 && code <= 0xdfff && start > 0) start -= 1
    const ch = sentence.slice(start, end)
    if (!(isSpace(ch) || CLOSERS.includes(ch) || /[\p{Extended_Pictographic}\u200d\ufe0f.!\u3002\uff01]/u.test(ch))) break
    end = start
  }
  return sentence.slice(0, end)
}

/** Quotation marks that close somebody else's words. */
const CLOSING_QUOTES = "\"'\u201d\u2019\u00bb\u300d\u300f"
const OPENING_QUOTES = "\"'\u201c\u2018\u00ab\u300c\u300e\u201e"

/**
 * True when the question mark that ends `core` closes a quotation inside the sentence
 * (`He asked "why is it slow?"`): the words are somebody else's, not a question to the reader.
 * A sentence that is all quotation ("\"Shall I go on?\"") still asks.
 */
function quotedQuestion(sentence: string, core: string): boolean {
  const after = sentence.slice(core.length)
  if (![...after].some((ch) => CLOSING_QUOTES.includes(ch))) return false
  for (let i = core.length - 2; i > 0; i--) if (OPENING_QUOTES.includes(core[i]!)) return true
  return false
}

/**
 * Question particles that end a question whose mark was left out or written as a full stop
 * (Chinese 吗/呢, Japanese polite か forms, Korean interrogative endings; Korean 니까요 is
 * "because", not a question).
 */
const QUESTION_PARTICLE = /(?:吗|嗎|呢|ですか|ますか|でしょうか|ませんか|ましょうか|(?<!니)까요|나요|습니까|을까|할까)$/u

/**
 * The Turkish interrogative particle (mı, mi, mu, mü, with its person endings) as a word of its
 * own among the last three words: "MIT mi eklensin Apache-2.0 mı" asks without a mark.
 */
const TURKISH_PARTICLE = /(?:^|\s)(?:mı|mi|mu|mü)(?:yım|yim|yum|yüm|sın|sin|sun|sün|yız|yiz|yuz|yüz|sınız|siniz|sunuz|sünüz|dır|dir|dur|dür)?(?:\s+\S+){0,2}$/u

/**
 * The sentence asks: it ends with a question mark of any script (outside a quotation) or a
 * question particle, or it is a Spanish question opened with "¿" whose closing mark was dropped.
 */
export function isQuestion(sentence: string): boolean {
  const core = trimTrail(sentence)
  if (core.length === 0) return false
  const last = core[core.length - 1]!
  // ASCII ";" is a question mark only in Greek text (U+037E is normalised to it by NFKC).
  if (last === ";") return /\p{Script=Greek}/u.test(core)
  if (QUESTION_MARKS.includes(last)) return !quotedQuestion(sentence, core)
  if (QUESTION_PARTICLE.test(core)) return true
  // Only in Turkish text (a letter no other language here writes): "mi" is also Italian "me".
  if (TURKISH_PARTICLE.test(core.slice(-60)) && /[ıİşŞğĞ]/u.test(core)) return true
  const opened = core.lastIndexOf("\u00bf")
  return opened >= 0 && core.indexOf("?", opened) < 0 && core.length - opened > 3
}

/**
 * Words that address the reader: second-person pronouns and possessives, and the words for
 * "please", in the seventeen languages the judge reads. A closed class of words, not phrases:
 * it tells a question put to the user from a question the reply asks itself and answers.
 */
const ADDRESS_WORDS = new Set(
  (
    "you your yours yourself please " +
    // Not "du" (French "of the"), "sie" and "ihnen" (she, they, them): formal "Sie" is read by its capital below.
    "dich dir dein deine deinen deinem deiner euch bitte " +
    // Not "te" (Dutch "to").
    "tu toi tes vous votre vos stp svp " +
    "tú ti usted ustedes tus vosotros favor " +
    "você vocês seu sua seus suas senhor senhora " +
    "voi tuo tua tuoi lei piacere " +
    // Not "je" (French "I").
    "jij jou jouw u uw jullie alsjeblieft alstublieft " +
    "ty ciebie tobie twój twoja twoje pani państwo wy wam proszę " +
    "sen seni sana senin siz sizi sizin lütfen " +
    "bạn quý xin " +
    "kamu anda kau tolong silakan mohon " +
    "ты тебя тебе твой твоя твоё твои вы вас вам ваш ваша ваше ваши пожалуйста " +
    "आप आपको आपका आपकी आपके तुम तुम्हें तुम्हारा कृपया " +
    "أنت أنتم لك لكم منك رجاء يرجى فضلك الرجاء"
  ).split(" "),
)

/** Address forms written inside words, in scripts without spaces or with clitics. */
const ADDRESS_INSIDE = /[你您]|请(?:提供|确认|告诉|回复|选择|决定|检查|把|给)|麻烦(?:提供|帮|给|把|你|您)|发我|发给我|ください|下さい|ませんか|でしょうか|いただけ|あなた|주세요|주시면|주시겠|십시오|실래요|할까요|까요|당신|귀하/u

/** True when the sentence speaks to the reader. */
/** German formal "you", capitalised inside a sentence (sentence-initial "Sie" may be "she" or "they"). */
const GERMAN_FORMAL = /(?<=\S\s+)(?:Sie|Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer)(?![\p{L}])/u

export function addressesUser(sentence: string): boolean {
  if (ADDRESS_INSIDE.test(sentence) || GERMAN_FORMAL.test(sentence)) return true
  for (const word of sentence.toLowerCase().split(/[^\p{L}\p{M}]+/u)) if (word !== "" && ADDRESS_WORDS.has(word)) return true
  return false
}

/** "Yes" and "no" in the seventeen languages: quoted in a sentence, they are the answer the reader is asked to give. */
const YES_NO_WORDS = new Set(
  (
    "yes no y n ok go ja nein nee oui non sí si sim não nao да нет tak nie evet hayır có không ya tidak iya हाँ हां नहीं نعم لا はい いいえ 네 예 아니요 是 否 好 " +
    // The word that confirms: 'reply "proceed"', 回复「确认」.
    "confirm proceed approve continue approved 确认 确定 可以 同意 继续 確認 続行 진행 확인 승인 confirmar confirmo continuar prosseguir bestätigen weiter confirmer continuer confermo procedi procedere подтверждаю продолжай potwierdzam dalej onaylıyorum onay devam tiếp lanjut setuju doorgaan akkoord ठीक جاري موافق تابع"
  ).split(" "),
)
const QUOTED = /["'\u201c\u201d\u00ab\u00bb\u201e\u300c\u300d`]\s*([^"'\u201c\u201d\u00ab\u00bb\u201e\u300c\u300d`\s]{1,8})\s*["'\u201c\u201d\u00ab\u00bb\u300c\u300d`]/gu

/**
 * "The user" in the third person: a sentence that names them describes what a program asks its
 * users ('confirmDeletion() asks the user to answer "yes"'), it does not ask the reader.
 */
const THIRD_PERSON_USER =
  /(?<![\p{L}])(?:the\s+user|users?|l'utilisateur|utilisateurs?|der\s+benutzer|benutzer(?:in)?|nutzer|el\s+usuario|usuarios?|o\s+usuário|usuários?|utenti|utente|пользовател\p{L}*|użytkownik\p{L}*|kullanıcı\p{L}*|người\s+dùng|pengguna|gebruikers?|उपयोगकर्ता|المستخدمين|المستخدم|用户|用戶|ユーザー|사용자|customers?|clients?|klant(?:en)?|cliente|clientes|kunden?|клиент\p{L}*|müşteri\p{L}*|khách\s+hàng|pelanggan|ग्राहक|العميل|العملاء|客户|顧客|고객)(?![\p{L}])/iu

/** The sentence asks the reader to type a yes or a no ('answer "yes" and I will go ahead', «نعم» اكتب). */
export function asksForYesNo(sentence: string): boolean {
  if (THIRD_PERSON_USER.test(sentence)) return false
  // A quoted word alone is often a button or a program's answer ('the „Weiter“ button'): the
  // sentence must also speak to the reader or tell them to reply.
  if (!addressesUser(sentence) && !REPLY_VERB.test(sentence)) return false
  for (const m of sentence.matchAll(QUOTED)) if (YES_NO_WORDS.has(m[1]!.toLowerCase().replace(/[.!,]$/u, ""))) return true
  return false
}

/** "Reply", "answer", "type", "write" as a request, in the seventeen languages. */
const REPLY_VERB =
  /(?<![\p{L}])(?:reply|answer|respond|type|say|write|antworte|antworten\s+sie|schreib|schreiben\s+sie|tippe|réponds|répondez|tape|tapez|écris|écrivez|responde|responda|escribe|escriba|digite|escreva|rispondi|risponda|scrivi|scriva|ответь|ответьте|напиши|напишите|odpowiedz|odpisz|napisz|yanıtla|cevap\s+ver|yaz|yazın|trả\s+lời|gõ|balas|ketik|jawab|antwoord|typ|जवाब\s+दें|लिखें|लिखिए|ردّ|رد|اكتب|أجب)(?![\p{L}])|回复|回答|输入|返信|入力|答えて|답장|입력|답해/iu

/**
 * Things only the user has: secrets, keys, tokens, credentials, certificates, access. A
 * sentence that names one and speaks to the reader asks for it; the names are mostly English
 * technical words in every language, and environment names (`NPM_TOKEN`, `*_API_KEY`) count.
 */
const CREDENTIAL = /(?<![\p{L}])(?:api[ _-]?keys?|access[ _-]?keys?|secret(?:s|\s+keys?)?|(?:access|api|auth|bearer|personal(?:\s+access)?|deploy|github|gitlab|npm|pypi|refresh|oauth|slack|discord|bot)[ _-]?tokens?|passwords?|passphrases?|credentials?|certificates?|private[ _-]keys?|ssh[ _-]keys?|oauth|client[ _-]secret|mobileprovision|keystore|시크릿|비밀번호|密钥|密码|凭据|凭证|パスワード|シークレット|認証情報|пароль|api-ключ\p{L}*|ключ\p{L}*\s+api|токен\p{L}*\s+доступа|كلمة المرور|مفتاح\s+api|पासवर्ड)(?![\p{L}])|\b[A-Z][A-Z0-9]*_(?:KEY|TOKEN|SECRET|PASSWORD)\b/iu

/**
 * The sentence without what it quotes: a request inside quotation marks is somebody else's (a
 * bot's message, a prompt string), not the reply's to the reader. Bounded spans, linear.
 */
export function unquoted(sentence: string): string {
  return sentence.replace(/"[^"\n]{0,300}"|\u201c[^\u201d\n]{0,300}\u201d|\u201e[^\u201c\u201d\n]{0,300}[\u201c\u201d]|\u00ab[^\u00bb\n]{0,300}\u00bb|\u300c[^\u300d\n]{0,300}\u300d|\u300e[^\u300f\n]{0,300}\u300f/gu, " ")
}

/**
 * "Please" in the seventeen languages, and the polite request forms of the languages that write
 * it as an ending: a last sentence that says it is a request to the reader ("कृपया बताएँ ...",
 * "확인 부탁드립니다", "Daj znać ..."). "Please note that ..." is silenced with them: when the user is
 * addressed, a doubt resolves to silence.
 */
const PLEASE =
  /(?<![\p{L}])(?:please|pls|bitte|s'il\s+(?:te|vous)\s+pla[iî]t|svp|stp|por\s+favor|per\s+favore|proszę|daj(?:cie)?\s+znać|lütfen|vui\s+lòng|xin\s+hãy|xin\s+vui\s+lòng|tolong|mohon|silakan|alsjeblieft|alstublieft|graag\s+(?:het|de|een|uw|je|jouw)|कृपया|يرجى|الرجاء|رجاء|رجاءً|من\s+فضلك|пожалуйста|прошу)(?![\p{L}])|请(?!求)|麻烦|ください|下さい|お願いします|お願いいたします|주세요|부탁드립니다|부탁드려요|부탁합니다|바랍니다/iu

/**
 * "Tell me", "let me know" as an imperative, in the seventeen languages ("Подскажи, какой часовой
 * пояс считать эталонным"), except the English courtesy after finished work ("Let me know if you
 * need anything else."), which asks nothing.
 */
const TELL_ME =
  /(?<![\p{L}])(?:let\s+me\s+know|tell\s+me|sag\s+mir|sagen\s+sie\s+mir|gib\s+mir\s+bescheid|geben\s+sie\s+mir\s+bescheid|lass\s+mich\s+wissen|dis-moi|dites-moi|fais-moi\s+savoir|faites-moi\s+savoir|dime|dígame|avísame|avíseme|me\s+diga|me\s+avise|diga-me|dimmi|mi\s+dica|fammi\s+sapere|mi\s+faccia\s+sapere|подскажи|подскажите|скажи|скажите|дай\s+знать|дайте\s+знать|powiedz|daj\s+znać|söyle|söyleyin|haber\s+ver(?:in)?|cho\s+tôi\s+biết|báo\s+(?:cho\s+)?tôi|beri\s+tahu|kabari|laat\s+(?:me|het)\s+(?:even\s+)?weten|zeg\s+het\s+maar|बताएँ|बताएं|बताइए|बताओ|أخبرني|أخبروني|قل\s+لي|بلغني)(?![\p{L}])|告诉我|跟我说|你来定|您来定|你来决定|您来决定|由你决定|由您决定|你定吧|看你的|听你的|お任せします|教えて|알려\s?주/iu
const COURTESY = /\b(?:if\s+you\s+(?:need|have|want|would\s+like)\s+(?:anything|any|more|further|help|changes)|anything\s+else|any\s+(?:other\s+|further\s+|more\s+)?questions)\b/i

/**
 * Words that open a question in the languages that write them first ("Które rozwiązanie
 * wolisz", "تبغى أضيف ... ولا نكتفي بهذا"): a last sentence that starts with one and has no
 * terminator at all is a question whose mark was left out.
 */
const QUESTION_OPENERS = new Set(
  (
    "which what how should shall do does would could can will is are may " +
    "welche welcher welches welchen soll sollen wie was möchtest möchten willst wollen darf " +
    "quel quelle quels quelles est-ce veux-tu voulez-vous dois-je faut-il préfères-tu préférez-vous " +
    "qué cuál cuáles prefieres quieres debo " +
    "qual quais prefere preferes quer queres devo posso podemos " +
    "puedo podemos " +
    "kann darf " +
    "puis-je peux-je " +
    "possiamo " +
    "могу можно " +
    "mogę możemy " +
    "bolehkah bisakah " +
    "mag kan " +
    "quale quali preferisci vuoi devo " +
    "какой какая какое какие как что нужно стоит хочешь хотите " +
    "który która które którą czy jak wolisz " +
    "hangi hangisi nasıl " +
    "apakah mana bagaimana " +
    "welke welk wil wilt moet zal " +
    "क्या कौन कौनसा कौनसी " +
    "هل أي ماذا تبغى تريد تفضل"
  ).split(" "),
)

/**
 * Imperatives that ask the reader to choose, confirm or hand something over, in the seventeen
 * languages: a sentence or its last clause opening with one is a request ("Pick one:",
 * "Before I drop the table, confirm:", "Выберите вариант").
 */
const REQUEST_VERBS = new Set(
  (
    "choose pick select decide confirm approve review advise specify provide share send " +
    "wähle wählen entscheide entscheiden bestätige bestätigen prüfe prüfen nenne nennen schick schicken " +
    "choisis choisissez confirme confirmez décide décidez envoie envoyez précise précisez valide validez " +
    "elige elija escoge escoja confirma decida envía envíe " +
    "escolha escolhe confirme decida envie informe " +
    "scegli scelga conferma confermi decidi invia inviami " +
    "выберите выбери подтвердите подтверди решите реши укажите укажи пришлите пришли отправьте " +
    "wybierz wybierzcie potwierdź zdecyduj podaj wyślij " +
    "seç seçin onayla onaylayın belirtin gönderin " +
    "chọn " +
    "pilih konfirmasi tentukan berikan kirim " +
    "kies bevestig beslis stuur " +
    "चुनें चुनिए भेजें " +
    "اختر اختاري أكد قرر حدد أرسل"
  ).split(" "),
)

function firstWord(text: string): string {
  return text.trim().split(/[\s,]+/u, 1)[0]!.toLowerCase()
}

/**
 * A request to the reader by its form: a "please" word, a "tell me", an imperative that asks
 * (at the start or opening its last clause), or, in the reply's last sentence only
 * (`lastSentence`), a question that lost its mark (opening the sentence or the clause after its
 * last colon). A closing colon does not change that ("Which
 * of these should I implement first:"). Before the last sentence an opener proves nothing: a
 * list item whose subject was code reads "is still flaky ..." once the code is left out.
 */
export function pleadsReader(quoting: string, lastSentence = true): boolean {
  const sentence = unquoted(quoting)
  if (PLEASE.test(sentence)) return true
  if (TELL_ME.test(sentence) && !COURTESY.test(sentence)) return true
  const trimmed = sentence.trim().replace(/[:\uff1a]+$/u, "").trimEnd()
  const last = trimmed[trimmed.length - 1]
  if (last === undefined || !/[\p{L}\p{N}]/u.test(last)) return false
  const lastClause = trimmed.slice(Math.max(trimmed.lastIndexOf(","), trimmed.lastIndexOf(";"), trimmed.lastIndexOf("\u2014")) + 1)
  if (REQUEST_VERBS.has(firstWord(trimmed)) || REQUEST_VERBS.has(firstWord(lastClause))) return true
  if (!lastSentence) return false
  // The question may open the clause after a colon ("One design question: should the player
  // also take damage ...").
  const afterColon = trimmed.slice(Math.max(trimmed.lastIndexOf(":"), trimmed.lastIndexOf("\uff1a")) + 1)
  return QUESTION_OPENERS.has(firstWord(trimmed)) || (afterColon !== trimmed && QUESTION_OPENERS.has(firstWord(afterColon)))
}

/**
 * The reader is addressed and a verb of choosing, confirming or handing over stands anywhere in
 * the sentence ("Trang trọng hay thân thiện — bạn chọn một, mình sẽ sửa theo đó."): not sure
 * enough to be a hand-off (the same words describe a dialog: "the picker lets you choose a
 * file"), but a doubt the judge lets resolve to the user.
 */
export function putsChoiceToReader(quoting: string): boolean {
  const sentence = unquoted(quoting)
  if (!addressesUser(sentence)) return false
  return sentence.split(/[^\p{L}\p{M}'-]+/u).some((word) => REQUEST_VERBS.has(word.toLowerCase()))
}

/** The reader is asked for a decision or an approval ("I need a decision from you on these points"). */
export function asksForDecision(sentence: string): boolean {
  return addressesUser(sentence) && APPROVAL.test(sentence)
}

/**
 * Conditions on an announcement ("I'll continue with the next task once CI is green"): the
 * model does not move on now, so its "ready" is no reason to tell it to go on. Only the words
 * that make the move wait count. "When", "if" and "after" do not: they mostly describe the next
 * task ("Next: invalidate the cache when a product is edited.") or say "after this" ("Setelah
 * ini saya pindah ke README.", "इसके बाद मैं ..."), and in one language they are another's
 * ordinary word (German "als Nächstes" is Dutch "if"); on held-out batches 1 to 8 the wider
 * list refused 39 true readies and kept no false one out.
 */
const CONDITION =
  /(?<![\p{L}])(?:once|until|as\s+soon\s+as|sobald|dès\s+que|une\s+fois\s+que|en\s+cuanto|una\s+vez\s+que|assim\s+que|appena|как\s+только|gdy\s+tylko|zodra|जैसे\s+ही|حالما)(?![\p{L}])|一旦|等到|次第/iu

export function conditional(sentence: string): boolean {
  return CONDITION.test(sentence)
}

/**
 * Waiting on somebody's word, in the seventeen languages: with a word of approval or the reader
 * in the same sentence it is a hand-off ("Жду отмашки", "بانتظار أن تضيف المفتاح").
 */
const WAITING =
  /(?<![\p{L}])(?:wait(?:ing)?\s+(?:for|on)|await(?:ing)?|standing\s+by\s+for|warte\s+auf|warten\s+auf|j'attends|en\s+attente\s+de|attendo|in\s+attesa\s+d|espero|esperando|aguardo|aguardando|жду|ожидаю|в\s+ожидании|czekam\s+na|bekliyorum|chờ|đợi|menunggu|ik\s+wacht|wacht\s+op|प्रतीक्षा|इंतज़ार|इंतजार|بانتظار|أنتظر|ننتظر|في\s+انتظار)(?![\p{L}])|等待|等你|等您|お待ち|待っています|待ちます|기다리겠|기다립니다|기다릴게/iu
const APPROVAL =
  /(?<![\p{L}])(?:approval|approve|confirmation|confirm|go-ahead|green\s+light|decision|answer|reply|feedback|input|ok|okay|freigabe|bestätigung|entscheidung|antwort|validation|accord|feu\s+vert|réponse|décision|aprobación|confirmación|visto\s+bueno|respuesta|decisión|aprovação|confirmação|resposta|decisão|approvazione|conferma|via\s+libera|risposta|decisione|подтвержд\p{L}*|отмашк\p{L}*|одобрени\p{L}*|решени\p{L}*|ответ\p{L}*|zgod\p{L}*|akceptacj\p{L}*|potwierdzeni\p{L}*|decyzj\p{L}*|onay\p{L}*|karar\p{L}*|yanıt\p{L}*|cevab\p{L}*|xác\s+nhận|phê\s+duyệt|đồng\s+ý|quyết\s+định|persetujuan|konfirmasi|keputusan|jawaban|goedkeuring|akkoord|bevestiging|beslissing|antwoord|अनुमति|मंज़ूरी|मंजूरी|पुष्टि|निर्णय|जवाब|موافقت\p{L}*|تأكيد\p{L}*|قرار\p{L}*|رد\p{L}*)(?![\p{L}])|确认|批准|同意|决定|回复|答复|承認|確認|判断|回答|ご指示|승인|확인|결정|답변|지시/iu

/** The sentence waits on the reader's word. */
export function waitsOnReader(quoting: string): boolean {
  const sentence = unquoted(quoting)
  return WAITING.test(sentence) && (APPROVAL.test(sentence) || addressesUser(sentence))
}

/**
 * "I need" in the seventeen languages: a credential the model says it needs is asked of the
 * reader even when the sentence does not name them ("мне нужен доступ к Sentry").
 */
const NEEDS =
  /(?<![\p{L}])(?:i\s+need|i'd\s+need|i\s+would\s+need|requires?\s+your|ich\s+brauche|ich\s+benötige|j'ai\s+besoin|il\s+me\s+faut|necesito|necesitaría|preciso|precisaria|mi\s+serve|mi\s+servono|ho\s+bisogno|potrzebuję|potrzebowałbym|ihtiyacım|gerekiyor|tôi\s+cần|cần\s+có|saya\s+perlu|saya\s+butuh|saya\s+memerlukan|ik\s+heb\s+nodig|heb\s+ik\s+nodig|nodig|мне\s+нуж\p{L}*|нужен|нужна|нужны|मुझे|चाहिए|أحتاج|نحتاج|我需要|需要你|需要您|必要です|必要があります|필요합니다|필요해요|필요한데)(?![\p{L}])/iu

/** Words of the languages for "password" and "access", which CREDENTIAL's technical terms miss. */
const CREDENTIAL_WORDS =
  /(?<![\p{L}])(?:wachtwoord|contraseña|senha|passwort|kennwort|mot\s+de\s+passe|hasło|hasła|şifre\p{L}*|parola|mật\s+khẩu|kata\s+sandi|доступ\p{L}*|zugang|zugriff|accès|acceso|acesso|accesso|dostęp\p{L}*|erişim\p{L}*|quyền\s+truy\s+cập|akses|toegang|पहुंच|पहुँच|صلاحية|صلاحيات|وصول|权限|アクセス権|접근\s*권한|권한)(?![\p{L}])/iu

/**
 * The sentence asks for something only the reader has: it names a secret, a credential or an
 * access, and either speaks to the reader or says the model needs it.
 */
export function asksForCredential(quoting: string): boolean {
  const sentence = unquoted(quoting)
  if (!CREDENTIAL.test(sentence) && !CREDENTIAL_WORDS.test(sentence)) return false
  return addressesUser(sentence) || NEEDS.test(sentence)
}
