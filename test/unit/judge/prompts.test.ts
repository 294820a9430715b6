import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import * as nudges from "../../../src/prompts/nudges.ts"
import * as judgePrompts from "../../../src/paths/judge/prompts.ts"

const SRC = join(import.meta.dir, "../../../src")

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (path.endsWith(".ts")) out.push(path)
  }
  return out
}

/** Each built-in text with its one home: the judge's texts are its path's, the others shared. */
const HOMES = [
  { home: join(SRC, "prompts/nudges.ts"), texts: nudges },
  { home: join(SRC, "paths/judge/prompts.ts"), texts: judgePrompts },
]
const BUILT_IN_TEXTS = HOMES.flatMap(({ home, texts }) =>
  Object.entries(texts).flatMap(([name, text]) => (typeof text === "string" ? [{ name, text, home }] : [])),
)

describe("each prompt text lives in one module", () => {
  test("there are built-in texts to check", () => {
    expect(BUILT_IN_TEXTS.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["TOOL_TEXT_RECOVERY_PROMPT", "DONE_WITHOUT_DETAILS_PROMPT", "TASK_COMPLETE_ACK"]),
    )
  })

  test("no other source file repeats a built-in prompt sentence", () => {
    for (const file of sourceFiles(SRC)) {
      const source = readFileSync(file, "utf8")
      for (const { name, text, home } of BUILT_IN_TEXTS) {
        if (file === home) continue
        // The opening words of each text are distinctive enough to spot a copy.
        const opening = text.slice(0, 40)
        if (source.includes(opening)) throw new Error(`${relative(SRC, file)} repeats ${name}`)
      }
    }
  })

  test("every built-in text is non-blank and distinct", () => {
    const texts = BUILT_IN_TEXTS.map(({ text }) => text)
    for (const text of texts) expect(text.trim().length).toBeGreaterThan(20)
    expect(new Set(texts).size).toBe(texts.length)
  })

  test("blank overrides are ignored; real ones win verbatim", () => {
    expect(judgePrompts.toolTextPrompt({ toolTextRecoveryPrompt: "   " })).toBe(judgePrompts.TOOL_TEXT_RECOVERY_PROMPT)
    expect(judgePrompts.toolTextPrompt({ toolTextRecoveryPrompt: "x y" })).toBe("x y")
    expect(judgePrompts.deadStreamPrompt({})).toBe(judgePrompts.DEAD_STREAM_PROMPT)
    expect(judgePrompts.plainContinuePrompt({})).toBe("continue")
    expect(judgePrompts.actionIntentPromptText({ actionIntentPrompt: " ", continuePrompt: "c" })).toBe("c")
    expect(judgePrompts.doneWithoutWorkPromptText({}, [])).toBe(judgePrompts.DONE_WITHOUT_WORK_PROMPT)
  })
})
