/**
 * The 🎉 ending: the model considers the task complete. Only the very end counts (a 🎉 in the
 * middle is just enthusiasm), past what models put after it: punctuation, other emoji, closing
 * markup, variation selectors, the `:tada:` code, and one sign-off line ("Happy coding!").
 */
import { lastNonBlankLines, PICTOGRAPH } from "./text.ts"

const PARTY = 0x1f389
const SHORT_CODE = ":tada:"
/** How many trailing characters after the 🎉 are walked over at most. */
const MAX_TRAILING = 24

/** Sign-off lines a 🎉 may stand before, in the languages the detectors cover. */
const SIGN_OFF =
  /^[¡]?(?:happy\s+(?:coding|hacking|shipping)|cheers|enjoy|good\s+luck|祝?[你您]?编码愉快|祝顺利|feliz\s+programación|bon\s+code|bonne\s+continuation|viel\s+spaß|viel\s+erfolg|frohes\s+coden|bom\s+código|boa\s+codificação|удачи|хорошего\s+дня|楽しいコーディングを|ハッピーコーディング)[\s.!！。]*$/iu

/** What models put after the 🎉 besides other emoji: spaces, punctuation, emphasis, closing brackets. */
const TRAILING = " \t.!\uff01\u3002*_~)]\uff09\u300d\ufe0f\u200d"

function lineEndsWithParty(line: string): boolean {
  let end = line.length
  for (let steps = 0; end > 0 && steps <= MAX_TRAILING; steps++) {
    if (line.endsWith(SHORT_CODE, end)) return true
    const code = line.codePointAt(end - 1)!
    let start = end - 1
    // The low half of a surrogate pair: step back to its start.
    if (code >= 0xdc00 && code <= 0xdfff && start > 0) start -= 1
    const ch = line.slice(start, end)
    if (ch.codePointAt(0) === PARTY) return true
    if (!TRAILING.includes(ch) && !PICTOGRAPH.test(ch)) return false
    end = start
  }
  return false
}

export function endsWithCelebration(text: string): boolean {
  const lines = lastNonBlankLines(text, 2)
  const [before, last] = lines.length === 2 ? lines : [undefined, lines[0]]
  if (last === undefined) return false
  return lineEndsWithParty(last) || (before !== undefined && SIGN_OFF.test(last) && lineEndsWithParty(before))
}
