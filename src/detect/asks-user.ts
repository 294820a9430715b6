/**
 * Does the end of the reply hand the turn to the user? A question, or a request for a decision,
 * an approval or a confirmation, with or without a question mark ("Proceed? (y/n)", "I'll run the
 * migration once you approve the plan."). Answering such a reply in the user's place is the worst
 * thing a nudge can do, so the judge asks this before any nudge that reads the text.
 * A request counts on either of the last two non-blank lines; a question on the last, or on the
 * one before when the last only signs off ("Thanks!"). Deliberately not a hand-off: "Let me know
 * if you need anything else." (a courtesy), "waiting for your next instruction" (a stop
 * statement), the words as subjects of the work ("Added a confirmation dialog").
 * Every pattern starts with a literal word (or a one-character look-behind) and keeps its
 * quantifiers apart with literal text; the lines are capped (text.ts).
 */
import { NL, NR, type Phrase } from "./patterns.ts"
import { endsAsking, lastNonBlankLines, trimEndDecoration } from "./text.ts"

export const ASKS_USER_LINES = 2

/** A phrase between letter boundaries, case-insensitive. */
function word(name: string, body: string): Phrase {
  return { name, pattern: new RegExp(`${NL}(?:${body})${NR}`, "iu") }
}

const REQUESTS: readonly Phrase[] = [
  // Not inside a quotation: '"Proceed? (y/n)" is printed' quotes a program's prompt.
  { name: "yes/no prompt", pattern: /[([](?:y|yes|s|sí|si|sim|j|ja|o|oui|д|да)\s?\/\s?(?:n|no|não|nao|nein|non|н|нет)[)\]](?!\s{0,2}["'\u201d\u00bb\u300d\u300f`])/iu },
  // English.
  { name: "please decide", pattern: /\bplease,?\s+(?:confirm|approve|choose|pick|decide|select|advise|review|reply|respond|let\s+me\s+know|tell\s+me)\b/i },
  { name: "confirm before", pattern: /\b(?:confirm|approve)\s+(?:before|that|whether|if)\b/i },
  { name: "let me know which", pattern: /\blet\s+me\s+know\s+(?:which|what|whether|how|when|if\s+(?:you(?:'d|\u2019d|\s+would)?\s+(?:like|want|prefer|agree|approve)|i\s+should|that|this|it's|it\s+is))\b/i },
  { name: "once you approve", pattern: /\b(?:once|after|when|as\s+soon\s+as|if)\s+you(?:'ve|\u2019ve|\s+have)?\s+(?:approve|approved|confirm|confirmed|agree|decide|decided|choose|chose|pick|picked|sign\s+off|signed\s+off|say\s+(?:so|yes|go)|give\s+(?:me\s+)?the\s+(?:go-ahead|green\s+light))\b/i },
  { name: "waiting for your approval", pattern: /\b(?:wait|waiting|awaiting)\s+(?:for\s+)?(?:your|the\s+user's|an?)\s+(?:approval|confirmation|decision|go-ahead|green\s+light|sign-off|answer|reply|choice|ok)\b/i },
  { name: "need your decision", pattern: /\b(?:need|needs|require|requires)\s+(?:your|a)\s+(?:approval|confirmation|decision|go-ahead|answer|choice)\b/i },
  { name: "your go-ahead", pattern: /\byour\s+(?:go-ahead|approval|confirmation|sign-off|green\s+light|ok|okay)\b/i },
  { name: "which would you prefer", pattern: /\b(?:which|what)\s+(?:one\s+|option\s+|approach\s+)?(?:would|do|should|shall)\s+(?:you|i|we)\b|\bwould\s+you\s+(?:prefer|like)\b/i },
  { name: "your call", pattern: /\b(?:your\s+(?:call|choice)[.!]*$|up\s+to\s+you\b)/i },
  // Addressed to the reader: at the start of the line, or asked for ("please reply with");
  // "the endpoint should reply with a 404" describes code.
  { name: "reply with", pattern: /(?:^|\b(?:please|just|simply|then)\s+)(?:reply|answer|respond)\s+(?:with|yes|no)\b/i },
  { name: "question without a mark", pattern: /^(?:shall|should|may)\s+i\s|^(?:do|would)\s+you\s+(?:want|like|prefer)\b/i },
  // Chinese.
  { name: "请确认", pattern: /请(?:确认|批准|审批|选择|告诉我|回复|决定|指定|审核)/u },
  { name: "是否继续", pattern: /(?:是否(?:需要|继续|要|可以|同意)|要不要|需不需要|要我|需要我)/u },
  { name: "你确认", pattern: /[您你](?:(?:希望|想要|倾向于?|更喜欢)(?!的)|确认|批准|同意)/u },
  { name: "等待您的确认", pattern: /等(?:待)?[您你]的?(?:确认|批准|决定|答复|回复|同意|选择)/u },
  { name: "吗", pattern: /吗[。.!！]*$/u },
  // Japanese.
  { name: "ご確認ください", pattern: /(?:確認|承認|判断|選択|回答|返答)(?:して|を)?(?:ください|下さい|お願い|いただけ)/u },
  { name: "教えてください", pattern: /(?:教えて|お知らせ)(?:ください|下さい)/u },
  { name: "承認をお待ち", pattern: /(?:承認|確認|判断|返答|回答|返事)(?:を)?お待ち/u },
  { name: "承認していただいたら", pattern: /(?:承認|確認)(?:して)?いただ(?:いたら|ければ|き次第)/u },
  { name: "ますか", pattern: /(?:ますか|ですか|でしょうか|ましょうか)[。.]?$/u },
  // Spanish.
  // Only forms that speak to the reader: "confirma" is also "it confirms".
  word("confírmame", "confírmame|confírmalo|confírmeme|dime|dígame|avísame|avíseme|indícame|indíqueme"),
  word("una vez que apruebes", "(?:una\\s+vez\\s+que|cuando|en\\s+cuanto|después\\s+de\\s+que)\\s+(?:apruebes|apruebe|confirmes|confirme|decidas|decida|elijas|elija)"),
  word("a la espera de tu aprobación", "(?:espera|esperando|aguardo)\\s+(?:de\\s+)?(?:tu|su)\\s+(?:aprobación|confirmación|decisión|respuesta|visto\\s+bueno)"),
  word("si me das el visto bueno", "visto\\s+bueno|(?:si|cuando|en\\s+cuanto)\\s+(?:me\\s+)?(?:das|des|confirmas|apruebas)"),
  word("quieres que", "(?:quieres|prefieres|deseas)\\s+que"),
  // Portuguese.
  // "indique" alone is also French "it indicates": only with its pronoun.
  word("confirme", "aprove|escolha|diga-me|me\\s+diga|avise-me|me\\s+avise|me\\s+informe|informe-me|indique-me|me\\s+indique"),
  word("assim que você aprovar", "(?:assim\\s+que|depois\\s+que|quando)\\s+(?:você\\s+)?(?:aprovar|confirmar|decidir|escolher)"),
  word("aguardo sua aprovação", "(?:aguardo|aguardando|espero|esperando)\\s+(?:a\\s+)?(?:sua|tua)\\s+(?:aprovação|confirmação|decisão|resposta)"),
  word("preciso da sua aprovação", "(?:sua|tua)\\s+(?:aprovação|confirmação|decisão|autorização)"),
  word("você quer que", "(?:quer|prefere|deseja)\\s+que|(?:posso|devo)\\s+(?:prosseguir|continuar|seguir)"),
  // German.
  word("bitte bestätigen", "bestätige|bestätigen\\s+sie|gib\\s+mir\\s+bescheid|geben\\s+sie\\s+mir\\s+bescheid|sag\\s+mir|sagen\\s+sie\\s+mir|lass\\s+mich\\s+wissen|lassen\\s+sie\\s+mich\\s+wissen|entscheide|entscheiden\\s+sie|wähle|wählen\\s+sie"),
  word("sobald du freigibst", "(?:sobald|wenn|nachdem)\\s+(?:du|sie)\\s(?:[^.!?\\n]{0,60}\\s)?(?:freigibst|freigeben|bestätigst|bestätigen|zustimmst|zustimmen|entscheidest)"),
  word("warte auf deine Freigabe", "(?:warte|warten)\\s+auf\\s+(?:deine|ihre|eure)\\s+(?:freigabe|bestätigung|entscheidung|zustimmung|antwort|rückmeldung)"),
  word("deine Freigabe", "(?:deine|ihre|eure)\\s+(?:freigabe|zustimmung|bestätigung|entscheidung|erlaubnis)"),
  word("soll ich", "^(?:soll|sollen|darf|möchtest|möchten|willst)\\s+(?:ich|wir|du|sie)"),
  // French.
  word("merci de confirmer", "(?:merci\\s+de|veuillez|pouvez-vous|peux-tu)\\s+(?:me\\s+)?(?:confirmer|valider|approuver|choisir|indiquer|dire|préciser)"),
  word("dites-moi", "confirmez|validez|dites-moi|dis-moi|faites-moi\\s+savoir|fais-moi\\s+savoir|indiquez-moi|choisissez"),
  word("une fois que vous aurez validé", "(?:une\\s+fois\\s+que|dès\\s+que|quand|après\\s+que)\\s+(?:vous|tu)\\s+(?:aurez\\s+|auras\\s+)?(?:validé|approuvé|confirmé|décidé|choisi|validez|approuvez|confirmez|valides|approuves|confirmes)"),
  word("j'attends votre validation", "(?:attends|attente\\s+de)\\s+(?:votre|ta)\\s+(?:validation|approbation|confirmation|décision|réponse|accord|feu\\s+vert)"),
  word("votre accord", "(?:votre|ton|ta)\\s+(?:accord|validation|approbation|confirmation|décision|feu\\s+vert|autorisation)"),
  word("dois-je", "^(?:dois-je|puis-je|voulez-vous|veux-tu|souhaitez-vous|préférez-vous|faut-il)"),
  // Russian.
  word("подтвердите", "подтвердите|подтверди|одобрите|одобри|выберите|выбери|скажите|скажи|сообщите|сообщи|дайте\\s+знать|дай\\s+знать|напишите|решите"),
  word("после вашего одобрения", "(?:после|до)\\s+(?:вашего|твоего)\\s+(?:одобрения|подтверждения|решения|согласия)"),
  { name: "ваше одобрение", pattern: new RegExp(`${NL}(?:ваше|твоё|твое|вашего|твоего)\\s+(?:одобрени|подтверждени|решени|согласи|разрешени)`, "iu") },
  word("жду вашего подтверждения", "жду\\s+(?:вашего|твоего)\\s+(?:подтверждения|одобрения|решения|ответа)"),
]

/** A line that only signs off, after which a question still stands. */
const SIGN_OFF =
  /^(?:thanks|thank\s+you|thx|cheers|best|regards|let\s+me\s+know|谢谢|多谢|感谢|gracias|muchas\s+gracias|obrigad[oa]|danke(?:\s+schön)?|vielen\s+dank|merci(?:\s+beaucoup)?|ありがとうございます|ありがとう|よろしくお願いします|よろしくお願いいたします|спасибо|заранее\s+спасибо)[\s.!,！。¡]*$/iu

function isSignOff(line: string): boolean {
  return SIGN_OFF.test(trimEndDecoration(line.replace(/^[¡]/u, "")))
}

export type AskFinding = { kind: "question" | "request"; detail: string }

export function asksUser(text: string): AskFinding | undefined {
  const lines = lastNonBlankLines(text, ASKS_USER_LINES)
  const last = lines.at(-1)
  if (last === undefined) return undefined
  if (endsAsking(last)) return { kind: "question", detail: "ends with a question" }
  const before = lines.at(-2)
  if (before !== undefined && endsAsking(before) && isSignOff(last)) return { kind: "question", detail: "a question, then a sign-off" }
  for (const line of lines) for (const { name, pattern } of REQUESTS) if (pattern.test(line)) return { kind: "request", detail: name }
  return undefined
}
