/** Dead streams: the turn finished with real token spend but showed nothing. */
import type { Sample } from "./types.ts"

function dead(text: string, reasoning?: string): Sample {
  return reasoning === undefined ? { family: "dead-stream", lang: "any", text } : { family: "dead-stream", lang: "any", text, reasoning }
}

export const DEAD_STREAM: Sample[] = [
  dead(""),
  dead("", "The user wants the parser fixed. Let me look at"),
  dead("   \n\n  \t"),
  dead("\u200b"),
  dead("\u200b\u200c\u200d\u2060\n"),
  dead(" \u00a0\ufeff "),
  dead("."),
  dead(" .\n"),
  dead("。"),
  dead("…"),
  dead("<think>\nThe user wants the parser fixed. I should read src/parser.ts first and then"),
  dead("<think>Let me check the failing test"),
  dead("\n<think>\n需要先读取文件"),
  dead("<think>plan the change</think>\n\n"),
  dead("<think>\nПроверю тесты</think>"),
  dead("\u200b\u200b.", "thinking"),
]

/** Near misses: short but real answers, a closed thought followed by an answer, low spend. */
export const DEAD_STREAM_NEAR_MISSES: Sample[] = [
  { family: "none", lang: "en", text: "Yes." },
  { family: "none", lang: "en", text: "No." },
  { family: "none", lang: "en", text: "42" },
  { family: "none", lang: "zh", text: "好的。" },
  { family: "none", lang: "ja", text: "はい。" },
  { family: "none", lang: "ru", text: "Да." },
  { family: "none", lang: "en", text: "<think>plan</think>\nThe bug was an off-by-one in the loop; fixed in `src/a.ts`." },
  { family: "none", lang: "en", text: "I looked at <think> tags: the parser now strips them from the output." },
  { family: "none", lang: "any", text: "", tokens: 40 },
  { family: "none", lang: "any", text: "   ", tokens: 10 },
]
