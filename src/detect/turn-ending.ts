/**
 * How a finished turn ends, read once per judgement: does it hand the turn to the user, and if
 * not, does the model say it stops, that it is done, or that it moves on? Two layers:
 *
 * 1. Rules of high precision: the structure of the last sentences (a question mark of any
 *    script, a question addressed to the reader), the request phrases (asks-user.ts), and the
 *    stop / done / ready phrase tables.
 * 2. The ending classifier (ending-model.ts), for the phrasings and languages no table has.
 *
 * The hand-off is decided first and from both layers, and a doubt resolves to it: answering
 * a question in the user's place is the worst thing a nudge can do, and a missed stop only
 * leaves a session as it is. The user's own pattern lists replace both layers for their family
 * (a `doneClaimPatterns` list alone decides what a done claim is).
 */
import { hasActionIntent } from "./action-intent.ts"
import { asksUser } from "./asks-user.ts"
import { DEFAULT_DONE_CLAIM_PATTERNS, hasDoneClaim } from "./done-claim.ts"
import { addressesUser, asksForCredential, asksForDecision, asksForYesNo, conditional, endingSentences, isCut, isQuestion, pleadsReader, putsChoiceToReader, sentencesOfProse, waitsOnReader } from "./ending.ts"
import { classify, decodeModel, endingFeatures, ENDING_CLASSES, type EndingModel, type EndingWeightsFile } from "./ending-model.ts"
import WEIGHTS from "./ending-weights.json" with { type: "json" }
import { compilePatterns } from "./patterns.ts"
import { proseTail } from "./text.ts"
import { DEFAULT_READY_TO_CONTINUE_PATTERNS, hasReadyToContinue } from "./ready-to-continue.ts"
import { stopStatement } from "./stop-statement.ts"

export type EndingFamily = "stop" | "done" | "ready"

export type HandOffReading = { how: "question" | "request" | "model"; detail: string }

export type EndingReading = {
  /** The turn ends by asking the user for something: nothing may answer it for them. */
  handOff?: HandOffReading
  /** The last line announces an action and ends with a colon (action-intent.ts); no family then. */
  announcesAction?: true
  /** Stop, done or ready, and which layer said so. */
  family?: { family: EndingFamily; layer: "rule" | "model"; detail: string }
  /**
   * No layer is sure the user is asked, but the classifier does not rule it out (why, with its
   * probability): the ending may be the user's to answer, so nothing that only the classifier
   * or the absence of a signal would send goes out (the open-todo reminder).
   */
  mayAsk?: string
}

export type EndingPatterns = {
  doneClaimPatterns?: readonly string[]
  readyToContinuePatterns?: readonly string[]
}

/** How sure the classifier must be that a line ending in a colon asks the reader, not announces an action. */
const ANNOUNCED_HAND_OFF = 0.75

/**
 * Below the hand-off threshold, the probability from which the classifier's doubt still holds a
 * nudge that no rule asked for. Chosen on held-out batch 6, before it was folded into training:
 * the three hand-offs no layer caught (a request in the imperative, "Выбирайте: A или B.", a
 * credential said to be missing) read 0.19 to 0.40; from 0.15 the doubt held all three and
 * took no stop, done or ready the judge had right. Raised to 0.18 on batches 11 to 13, each
 * read after it was scored: every hand-off the doubt held there read 0.20 or more, while five
 * plain endings ("I am reading the tokenizer code now." after batch 13 was folded in) read 0.15
 * to 0.17 and held a reminder or a goal continue that nothing asked to hold.
 */
const HAND_OFF_DOUBT = 0.18

/** How sure the classifier must be to read a family from a last sentence of one word ("Gotowe.", "تم."). */
const ONE_WORD = 0.9

let model: EndingModel | undefined
/** The shipped weights, decoded on first use (a few milliseconds, once per process). */
export function endingModel(): EndingModel {
  return (model ??= decodeModel(WEIGHTS as EndingWeightsFile))
}

/**
 * A bare "Done." is a claim that the work is finished, judged as one (a report is asked for when
 * the turn shows no work). TASK COMPLETE and "task completed" stay stops: they are the literal
 * a system prompt asks the model to end with, and latch whatever the turn shows.
 */
function claimsDone(clause: string): boolean {
  return clause === "done"
}

/** A sentence that only thanks or signs off, after which a question still stands. */
const THANKS =
  /^(?:thanks|thank\s+you|thx|cheers|danke|vielen\s+dank|merci|gracias|grazie|obrigad[oa]|bedankt|dank\s+je|dzięki|dziękuję|teşekkürler|teşekkür\s+ederim|cảm\s+ơn|terima\s+kasih|धन्यवाद|شكرا|شكراً|谢谢|多谢|感谢|ありがとう(?:ございます)?|감사합니다|고맙습니다|спасибо)\b/iu

/**
 * The reply with short inline code spans unwrapped: a secret is usually named as code
 * ("send me `STRIPE_SECRET_KEY`"), and the sentences proper read code as a blank.
 */
function inlineCodeKept(text: string): string {
  const prose = proseTail(text, undefined, true)
  return prose.indexOf("`") < 0 ? prose : prose.replace(/`([^`\s]{1,64})`/g, "$1")
}

const LIST_ITEM = /^[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+\S/
/** Lines of a list looked through, at most, to find the line that introduces it. */
const MAX_LIST_LINES = 40

/**
 * The line that introduces a list the reply's prose (proseTail) ends on, when the list has two items or more
 * ("Which approach do you prefer?" then "1. …", "2. …", "3. …"): each item reads as a sentence
 * of its own, so the request before them falls out of the last sentences.
 */
export function listLead(prose: string): string | undefined {
  const lines = prose.split("\n")
  let k = lines.length - 1
  while (k >= 0 && lines[k]!.trim() === "") k--
  let items = 0
  const stop = Math.max(0, k - MAX_LIST_LINES)
  for (; k >= stop; k--) {
    const line = lines[k]!
    if (LIST_ITEM.test(line)) items++
    // Blank lines between items and an item's indented continuation belong to the list.
    else if (line.trim() !== "" && !/^[ \t]{2,}\S/.test(line)) break
  }
  if (items < 2 || k < stop) return undefined
  const lead = lines[k]!.trim()
  return lead === "" ? undefined : lead
}

/**
 * A sentence that only thanks or signs off: a thanks word of the seventeen languages, or a short
 * exclamation ("Valeu!", "شكرًا لك!", "Cheers!") of three words at most.
 */
function signsOff(sentence: string): boolean {
  if (THANKS.test(sentence)) return true
  const core = sentence.trim()
  return core.endsWith("!") && core.split(/\s+/u).length <= 3
}

function structuralHandOff(text: string, prose: string, sentences: readonly string[]): HandOffReading | undefined {
  const n = sentences.length
  if (n === 0) return undefined
  const lead = listLead(prose)
  if (lead !== undefined) {
    const [leadSentence] = endingSentences(lead, 1)
    if (leadSentence !== undefined && (isQuestion(leadSentence) || pleadsReader(leadSentence) || asksForDecision(leadSentence)))
      return { how: "request", detail: "a choice put to the reader before the list it ends on" }
  }
  if (isQuestion(sentences[n - 1]!)) return { how: "question", detail: "the last sentence is a question" }
  // Something only the user can give: a typed yes/no, their word, a secret or a credential.
  for (const sentence of sentences.slice(-2)) {
    if (asksForYesNo(sentence)) return { how: "request", detail: "asks the reader to answer yes or no" }
    if (waitsOnReader(sentence)) return { how: "request", detail: "waits on the reader's word" }
  }
  for (const sentence of sentencesOfProse(inlineCodeKept(text), 2)) {
    if (asksForCredential(sentence)) return { how: "request", detail: "asks the reader for a secret or credential" }
  }
  // One of the last two sentences asks as a request ("please ...", "확인 부탁드립니다. 승인해
  //주시기 전까지는 실행하지 않겠습니다."); a sentence after a request rarely takes it back.
  for (const sentence of sentences.slice(-2)) if (pleadsReader(sentence, sentence === sentences[n - 1])) return { how: "request", detail: "a request to the reader" }
  for (let i = n - 2; i >= 0; i--) {
    const sentence = sentences[i]!
    if (!isQuestion(sentence)) continue
    if (addressesUser(sentence)) return { how: "question", detail: "a question to the reader among the last sentences" }
    if (i === n - 2 && signsOff(sentences[n - 1]!)) return { how: "question", detail: "a question, then thanks" }
  }
  return undefined
}

/**
 * Whether the model may read the ending at all: the last sentence must be whole (a cut one is
 * only the tail of something longer, as the phrase rules also refuse) and hold a word.
 */
function readable(sentences: readonly string[]): boolean {
  const last = sentences[sentences.length - 1]
  // A sentence with no word of two letters ("<a", "- x") is markup or noise, not an ending.
  return last !== undefined && !isCut(last) && /\p{L}{2}/u.test(last)
}

/**
 * A last sentence of one word ("Hmm.", "OK.", "Erledigt.") says little: the model's family is
 * believed from it only when it is sure.
 */
function oneWord(sentence: string): boolean {
  return !/\p{L}{2,}[^\p{L}]+\p{L}{2,}/u.test(sentence) && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{3}/u.test(sentence)
}

/**
 * The sentences before a closing courtesy ("All green.\n\nCheers!", "… يعمل الآن.\n\nتحياتي!"),
 * which may say nothing of the work, so the claim before it can be the ending; undefined when
 * the reply does not close on one. A short exclamation can also be the claim itself ("All done!"),
 * so both readings are weighed (readFamily).
 */
export function beforeSignOff(sentences: readonly string[]): readonly string[] | undefined {
  let n = sentences.length
  while (n > 1 && signsOff(sentences[n - 1]!)) n--
  return n === sentences.length ? undefined : sentences.slice(0, n)
}

/** The classifier's surest stop, done or ready: its index in ENDING_CLASSES and its probability. */
function bestFamily(p: Float64Array): { index: number; p: number } {
  let index = 2
  for (let k = 3; k < ENDING_CLASSES.length; k++) if (p[k]! > p[index]!) index = k
  return { index, p: p[index]! }
}

type ClassifierReading = { p: Float64Array; sentences: readonly string[] }

/**
 * The classifier's reading of the ending, and of the ending before a closing courtesy when there
 * is one: the family read surer wins, and the hand-off's probability is the higher of the two
 * (a doubt resolves to the user).
 */
function readFamily(model: EndingModel, sentences: readonly string[]): ClassifierReading | undefined {
  const whole = readable(sentences) ? { p: classify(model, endingFeatures(sentences)), sentences } : undefined
  const before = beforeSignOff(sentences)
  const trimmed = before && readable(before) ? { p: classify(model, endingFeatures(before)), sentences: before } : undefined
  if (!trimmed) return whole
  if (!whole) return trimmed
  const winner = bestFamily(trimmed.p).p > bestFamily(whole.p).p ? trimmed : whole
  const hand = ENDING_CLASSES.indexOf("hand-off")
  const p = Float64Array.from(winner.p)
  p[hand] = Math.max(whole.p[hand]!, trimmed.p[hand]!)
  return { p, sentences: winner.sentences }
}

/** `model`: the shipped weights unless a trainer measures its own. */
export function readEnding(text: string, patterns: EndingPatterns = {}, model: EndingModel = endingModel()): EndingReading {
  // The reply's prose is read once, for every check below that reads prose.
  const prose = proseTail(text)
  const sentences = sentencesOfProse(prose)
  const structural = structuralHandOff(text, prose, sentences)
  if (structural) return { handOff: structural }
  const asked = asksUser(prose)
  if (asked) return { handOff: { how: asked.kind === "question" ? "question" : "request", detail: asked.detail } }
  const read = readFamily(model, sentences)
  const p = read?.p
  const body = read?.sentences ?? sentences
  const thresholds = model.thresholds
  const handIndex = ENDING_CLASSES.indexOf("hand-off")
  // A last line that announces an action with a colon is that, whatever family it reads as: the
  // classifier was never taught those endings. Only a clear request to the reader ("Before I
  // delete anything, confirm:") outweighs it.
  if (hasActionIntent(text)) {
    if (p && p[handIndex]! >= ANNOUNCED_HAND_OFF) return { handOff: { how: "model", detail: `the announcement asks the reader (p=${p[handIndex]!.toFixed(2)})` } }
    return { announcesAction: true }
  }
  if (p && p[handIndex]! >= thresholds["hand-off"]) return { handOff: { how: "model", detail: `the ending reads as a request to the user (p=${p[handIndex]!.toFixed(2)})` } }
  const last = sentences[sentences.length - 1]
  const mayAsk =
    p && p[handIndex]! >= HAND_OFF_DOUBT
      ? `the ending may ask the user (p=${p[handIndex]!.toFixed(2)})`
      : last !== undefined && putsChoiceToReader(last)
        ? "the last sentence may put a choice to the user"
        : undefined

  const done = compilePatterns(patterns.doneClaimPatterns, "im")
  const ready = compilePatterns(patterns.readyToContinuePatterns, "i")
  const stop = stopStatement(text)
  if (stop) return { family: { family: claimsDone(stop.clause) ? "done" : "stop", layer: "rule", detail: stop.clause } }
  if (hasReadyToContinue(text, ready ?? DEFAULT_READY_TO_CONTINUE_PATTERNS)) return { family: { family: "ready", layer: "rule", detail: ready ? "your readyToContinuePatterns" : "ready to continue" } }
  // The built-in claim counts in the last two sentences only: a claim taken back after it ("All
  // tasks are complete. Actually, the lint step failed. Fixing it now.") is no claim.
  if (hasDoneClaim(done ? text : sentences.slice(-2).join("\n"), done ?? DEFAULT_DONE_CLAIM_PATTERNS) || (!done && hasDoneClaim((beforeSignOff(sentences) ?? []).slice(-2).join("\n"), DEFAULT_DONE_CLAIM_PATTERNS))) return { family: { family: "done", layer: "rule", detail: done ? "your doneClaimPatterns" : "done claim" } }
  // A doubt that the user is asked outweighs whatever family only the classifier reads.
  if (mayAsk) return { mayAsk }
  if (!p) return {}
  const family = bestFamily(p)
  if (p[0]! > family.p) return {}
  const guess = ENDING_CLASSES[family.index] as EndingFamily
  if (family.p < thresholds[guess]) return {}
  if (oneWord(body[body.length - 1]!) && family.p < ONE_WORD) return {}
  // A family whose patterns the user wrote is theirs alone.
  if ((guess === "done" && done) || (guess === "ready" && ready)) return {}
  // A "ready" the classifier heard sends a continue: not when the move waits on a condition
  // ("once CI is green") or when the reply ends on a list (options or follow-ups, not a step).
  if (guess === "ready" && (conditional(body[body.length - 1]!) || listLead(prose) !== undefined)) return {}
  return { family: { family: guess, layer: "model", detail: `the ending reads as ${guess} (p=${family.p.toFixed(2)})` } }
}
