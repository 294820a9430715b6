import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import * as nudges from "../../../src/prompts/nudges.ts"

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

const BUILT_IN_TEXTS = Object.entries(nudges).filter((entry): entry is [string, string] => typeof entry[1] === "string")

describe("prompt texts live in one module", () => {
  test("there are built-in texts to check", () => {
    expect(BUILT_IN_TEXTS.map(([name]) => name)).toEqual(
      expect.arrayContaining(["TOOL_TEXT_RECOVERY_PROMPT", "DONE_WITHOUT_DETAILS_PROMPT", "TASK_COMPLETE_ACK"]),
    )
  })

  test("no other source file repeats a built-in prompt sentence", () => {
    const home = join(SRC, "prompts/nudges.ts")
    for (const file of sourceFiles(SRC)) {
      if (file === home) continue
      const source = readFileSync(file, "utf8")
      for (const [name, text] of BUILT_IN_TEXTS) {
        // The opening words of each text are distinctive enough to spot a copy.
        const opening = text.slice(0, 40)
        if (source.includes(opening)) throw new Error(`${relative(SRC, file)} repeats ${name}`)
      }
    }
  })

  test("every built-in text is non-blank and distinct", () => {
    const texts = BUILT_IN_TEXTS.map(([, text]) => text)
    for (const text of texts) expect(text.trim().length).toBeGreaterThan(20)
    expect(new Set(texts).size).toBe(texts.length)
  })

  test("blank overrides are ignored; real ones win verbatim", () => {
    expect(nudges.toolTextPrompt({ toolTextRecoveryPrompt: "   " })).toBe(nudges.TOOL_TEXT_RECOVERY_PROMPT)
    expect(nudges.toolTextPrompt({ toolTextRecoveryPrompt: "x y" })).toBe("x y")
    expect(nudges.deadStreamPrompt({})).toBe(nudges.DEAD_STREAM_PROMPT)
    expect(nudges.plainContinuePrompt({})).toBe("continue")
    expect(nudges.actionIntentPromptText({ actionIntentPrompt: " ", continuePrompt: "c" })).toBe("c")
    expect(nudges.doneWithoutWorkPromptText({}, [])).toBe(nudges.DONE_WITHOUT_WORK_PROMPT)
  })
})
