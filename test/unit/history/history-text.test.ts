/** The history as a person reads it (src/prompts/history-text.ts): the CLI's table, the chat's lines, and `/auto-resume history`. */
import { describe, expect, test } from "bun:test"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import { runPauseCommand } from "../../../src/pause/run-command.ts"
import { journalTable, sessionHistoryText, shortSessionID } from "../../../src/prompts/history-text.ts"

const T0 = Date.UTC(2026, 11, 2, 3, 4, 5)
function entry(i: number, extra: Partial<JournalEntry> = {}): JournalEntry {
  return { time: T0 + i * 1000, sessionID: "ses_abcdefghijklmnop12345678", trigger: "stall", evidence: `silent for ${180 + i}s`, action: "continue", outcome: "revived", ...extra }
}

describe("the readable views", () => {
  test("the table has a header, local times, short ids and the note beside the outcome", () => {
    const table = journalTable([entry(1), entry(2, { trigger: "tool loop", evidence: "`bash` repeated 6x", action: "abort + correction", outcome: "held", note: "paused" })])
    const lines = table.split("\n")
    expect(lines[0]).toMatch(/^TIME\s+SESSION\s+TRIGGER\s+EVIDENCE\s+ACTION\s+OUTCOME$/)
    expect(lines[1]).toContain(shortSessionID("ses_abcdefghijklmnop12345678"))
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d /)
    expect(lines[2]).toMatch(/tool loop\s+`bash` repeated 6x\s+abort \+ correction\s+held \(paused\)$/)
    expect(shortSessionID("ses_abcdefghijklmnop12345678")).toBe("ses_…12345678")
  })

  test("the chat view is one line per intervention, and says when it shows only the last ones", () => {
    const text = sessionHistoryText([entry(1), entry(2)], 12)
    expect(text.split("\n")).toHaveLength(3)
    expect(text).toContain("last 2 of 12")
    expect(text).toMatch(/stall \(silent for 181s\) -> continue: revived/)
    expect(sessionHistoryText([], 0)).toMatch(/no interventions recorded/)
  })

  test("/auto-resume history answers from the history it is given; without one it says so", async () => {
    const pauses = new MemoryPauses()
    const asked: [string, number][] = []
    const history = async (id: string, limit: number) => {
      asked.push([id, limit])
      return { entries: [entry(1)], total: 1 }
    }
    const withHistory = await runPauseCommand("ses_abcdefghijklmnop12345678", " History ", { pauses: pauses as never, status: () => undefined, now: () => T0, history })
    expect(withHistory.action).toBe("history")
    expect(withHistory.text).toMatch(/stall \(silent for 181s\) -> continue: revived/)
    expect(asked).toEqual([["ses_abcdefghijklmnop12345678", 10]])
    const without = await runPauseCommand("s", "history", { pauses: pauses as never, status: () => undefined, now: () => T0 })
    expect(without.text).toMatch(/keeps no history/)
  })
})
