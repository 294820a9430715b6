import { describe, expect, test } from "bun:test"
import { stopStatement } from "../../../src/detect/stop-statement.ts"

const stops: Array<[string, string]> = [
  ["TASK COMPLETE, byte-exact", "All four files are updated.\n\nTASK COMPLETE"],
  ["TASK COMPLETE with surrounding spaces", "  TASK COMPLETE  \n"],
  ["task completed, lower case", "Everything is merged. task completed."],
  ["Task Completed, title case", "Task Completed"],
  ["TASK COMPLETED, upper case", "TASK COMPLETED!"],
  ["no action needed", "The config was already correct. No action needed."],
  ["no further action required", "No further action is required."],
  ["no further work", "No further work."],
  ["stopping here", "I have pushed the branch. Stopping here."],
  ["stopping there", "Stopping there."],
  ["stopping now", "I'm stopping now."],
  ["I'll stop here", "That covers the request; I'll stop here."],
  ["pausing for now", "Pausing for now."],
  ["halted", "Halted."],
  ["nothing further", "Nothing further."],
  ["nothing else to do", "Nothing else to do."],
  ["nothing pending", "There is nothing pending."],
  ["nothing further pending", "Nothing further pending."],
  ["nothing in progress", "Nothing in progress."],
  ["nothing is currently in progress", "Nothing is currently in progress."],
  ["none pending", "Open items: none pending."],
  ["standing by", "Standing by."],
  ["standing by for instructions", "Standing by for your next instructions."],
  ["awaiting instructions", "Awaiting further instructions."],
  ["ready when you have the next task", "Ready when you have the next task."],
  ["ready for your next instruction", "Ready for your next instruction."],
  ["ready whenever you are", "I'm ready whenever you are."],
  ["bare Done.", "Done."],
  ["bare done, lower case", "done"],
  ["bare Done!", "Done!"],
  ["that's all", "That's all for now."],
  ["markdown emphasis", "**Stopping here.**"],
  ["a trailing emoji", "Standing by 👍"],
  ["decoration lines after the stop", "Standing by.\n---\n✅"],
  ["the stop on the second of three lines, then decoration", "Summary above.\nNo action needed.\n***"],
  ["trailing blank lines", "Stopping here.\n\n\n"],
  // The system's literal as models print it (issue 18).
  ["Task complete, title case", "Task complete."],
  ["TASK COMPLETE with a full stop", "TASK COMPLETE."],
  ["TASK COMPLETE in bold", "**TASK COMPLETE**"],
  ["Task complete with a check mark", "Task complete ✅"],
  ["German", "Ich höre hier auf."],
  ["Chinese", "修复已合并。\n无需进一步操作。"],
  ["Japanese", "次の指示をお待ちしています。"],
  ["French", "Je m'arrête ici."],
  ["Spanish, in bold", "**Tarea completada**"],
]

const notStops: Array<[string, string]> = [
  ["task complete, lower case (model prose)", "task complete"],
  ["the dev server stopped (a thing, not the speaker)", "The dev server is stopped now."],
  ["a Russian stop, negated", "Я не останавливаюсь здесь"],
  ["a Portuguese stop, negated", "Não vou parar por aqui."],
  ["TASK COMPLETE inside a sentence", "I will write TASK COMPLETE when done"],
  ["connective after the stop", "Stopping here for a moment, then continuing with the tests."],
  ["connective clause after no action needed", "No action needed, but I will refactor the loader next."],
  ["question mark", "Ready for the next task?"],
  ["question after standing by", "Standing by?"],
  ["work still in progress", "The migration work is still in progress."],
  ["bare in progress", "Task 3: in progress"],
  ["future report", "I'll report the numbers when it lands."],
  ["negated stop", "I'm not stopping here."],
  ["negated with an apostrophe", "I won't be stopping here"],
  ["conditional", "Let me know if there's nothing further."],
  ["conditional with unless", "I keep going unless no action needed"],
  ["a real sentence after the stop", "Stopping here.\nNext I will update the docs and run the suite."],
  ["done inside a sentence", "Done with the parser; moving to the lexer"],
  ["done as a label", "Done: parser, lexer"],
  ["stop words mid-line", "Nothing further was found in the logs, so I kept digging"],
  ["ends with a code fence", "Stopping here.\n```\ncode\n```"],
  ["empty", ""],
  ["only decoration", "---\n***\n🎉"],
  ["stop four lines up", "Stopping here.\nLine two of more text.\nLine three of more text.\nLine four of more text."],
  ["stop four lines up behind decoration (outside the three-line window)", "Stopping here.\n---\n***\n___"],
  ["question after a stop phrase", "Nothing further?"],
  ["bare done as a question", "Done?"],
]

describe("stop statements", () => {
  test.each(stops)("stop: %s", (_name, text) => {
    expect(stopStatement(text)).toBeDefined()
  })

  test.each(notStops)("not a stop: %s", (_name, text) => {
    expect(stopStatement(text)).toBeUndefined()
  })

  test("TASK COMPLETE is the only case-sensitive rule (also as \"Task complete\")", () => {
    expect(stopStatement("TASK COMPLETE")?.clause).toBe("TASK COMPLETE")
    for (const variant of ["Task Complete", "task complete", "TASK complete", "Task COMPLETE"]) {
      expect(stopStatement(variant)).toBeUndefined()
    }
    // Every other rule ignores case.
    expect(stopStatement("STOPPING HERE.")?.clause).toBe("stopping here")
    expect(stopStatement("sTaNdInG bY")?.clause).toBe("standing by")
  })

  test("names the clause that matched", () => {
    expect(stopStatement("No action needed.")?.clause).toBe("no action needed")
    expect(stopStatement("Done.")?.clause).toBe("done")
    expect(stopStatement("Ready for your next instruction.")?.clause).toBe("ready and waiting")
  })

  test("a very long last line is judged by its end", () => {
    expect(stopStatement("word ".repeat(10_000) + "Stopping here.")).toBeDefined()
  })
})
