/**
 * Streamed text for the repetition detector (src/detect/repetition.ts), written for this
 * project: output that repeats itself in a loop (positives), and output that is legitimately
 * repetitive and must never be taken for one (negative controls). Unlike the rest of this
 * folder these are streams, not finished turns: the test feeds each one in small deltas.
 */

export type StreamSample = {
  name: string
  kind: "text" | "reasoning"
  text: string
  /** True when the detector must report a repetition by the end of the stream. */
  loops: boolean
  /** For a loop: what the model goes on writing after the sample (a loop does not stop by itself). */
  unit?: string
}

const repeat = (unit: string, times: number) => unit.repeat(times)
const lines = (count: number, line: (i: number) => string) => Array.from({ length: count }, (_, i) => line(i)).join("\n") + "\n"

const INTRO = "I looked at the failing test and the stack trace points at the session table. "
const PARAGRAPH =
  "The watchdog reads the session as alive because every delta stamps it, so the stall deadline never fires. " +
  "To confirm this I should look at how the stamps are written, and then check whether the idle sweep keeps the entry.\n\n"

const TABLE_ROW = (i: number) => `| ${String(i).padStart(3, " ")} | option-${i % 7} | default | enabled | see the docs |`
const CODE_BLOCK = [
  "```ts",
  "export function add(a: number, b: number): number {",
  "  return a + b",
  "}",
  "```",
  "",
].join("\n")
const BASE64_LINE = "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB"

export const REPETITION_NEGATIVES: readonly StreamSample[] = [
  {
    name: "a long markdown table",
    kind: "text",
    text: "| # | name | value | state | note |\n|---|---|---|---|---|\n" + lines(200, TABLE_ROW),
    loops: false,
  },
  {
    name: "a table whose rows are all the same placeholder",
    kind: "text",
    text: "| a | b | c |\n|---|---|---|\n" + lines(120, () => "| - | - | - |"),
    loops: false,
  },
  {
    name: "many similar import lines",
    kind: "text",
    text: lines(150, (i) => `import { handler${i} } from "./handlers/handler-${i}.ts"`),
    loops: false,
  },
  {
    name: "log lines with incrementing counters and timestamps",
    kind: "reasoning",
    text: lines(200, (i) => `2026-12-02T01:${String(10 + (i % 50)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z INFO request ${1000 + i} served in ${12 + (i % 9)} ms.`),
    loops: false,
  },
  {
    name: "a list of similar items",
    kind: "text",
    text: lines(120, (i) => `- Update the test for module ${i} so that it uses the simulated clock.`),
    loops: false,
  },
  {
    name: "a progress bar redrawn",
    kind: "text",
    text: lines(150, (i) => `[${"#".repeat(i % 40).padEnd(40, " ")}] ${Math.round((i / 150) * 100)}% downloading`),
    loops: false,
  },
  {
    name: "a progress bar at a steady rate, the same line many times",
    kind: "text",
    text: lines(100, () => "[########################################] 100%"),
    loops: false,
  },
  {
    name: "base64 of repetitive data",
    kind: "text",
    text: "Here is the payload:\n\n" + lines(120, () => BASE64_LINE),
    loops: false,
  },
  {
    name: "a rule line of equals signs",
    kind: "text",
    text: lines(200, () => "========================================"),
    loops: false,
  },
  {
    name: "a code block legitimately repeated three times",
    kind: "text",
    text: "First the original:\n\n" + CODE_BLOCK + "\nThen the copy in the v1 adapter:\n\n" + CODE_BLOCK + "\nAnd the one in the v2 adapter:\n\n" + CODE_BLOCK + "\nAll three are the same, so they can be merged into one helper.\n",
    loops: false,
  },
  {
    name: "the same sentence five times (below the rule)",
    kind: "reasoning",
    text: INTRO + repeat("Let me check the config file again. ", 5) + "Found it: the key is misspelled.",
    loops: false,
  },
  {
    name: "a numbered step list with repeated wording",
    kind: "reasoning",
    text: lines(80, (i) => `Step ${i + 1}: run the tests again and read the output.`),
    loops: false,
  },
  {
    name: "ordinary prose of several paragraphs",
    kind: "text",
    text: Array.from({ length: 30 }, (_, i) => `Paragraph ${i}: the change in file ${i} keeps the behaviour and moves the helper next to its only caller.\n`).join("\n"),
    loops: false,
  },
  {
    name: "a short word repeated (too short to be a sentence)",
    kind: "text",
    text: "Thinking" + repeat(".", 400) + "\n" + repeat("ok ", 500),
    loops: false,
  },
]

export const REPETITION_POSITIVES: readonly StreamSample[] = [
  { name: "a sentence repeated 20 times in reasoning", kind: "reasoning", text: INTRO + repeat("I need to verify the session table before I change it. ", 20), loops: true, unit: "I need to verify the session table before I change it. " },
  { name: "a sentence repeated 20 times in text", kind: "text", text: INTRO + repeat("Now I will run the test suite again.\n", 20), loops: true, unit: "Now I will run the test suite again.\n" },
  { name: "a paragraph repeated 8 times in reasoning", kind: "reasoning", text: INTRO + repeat(PARAGRAPH, 8), loops: true, unit: PARAGRAPH },
  { name: "a paragraph repeated 8 times in text", kind: "text", text: "## Findings\n\n" + repeat(PARAGRAPH, 8), loops: true, unit: PARAGRAPH },
  { name: "a Chinese sentence repeated 30 times", kind: "reasoning", text: repeat("我需要再检查一下配置文件里的这个键是否正确。", 30), loops: true, unit: "我需要再检查一下配置文件里的这个键是否正确。" },
  { name: "a loop that goes on after a long honest start", kind: "text", text: lines(60, TABLE_ROW) + "\n" + repeat("Wait, I should double-check the table above first. ", 40), loops: true, unit: "Wait, I should double-check the table above first. " },
]

export const REPETITION_CORPUS: readonly StreamSample[] = [...REPETITION_NEGATIVES, ...REPETITION_POSITIVES]
