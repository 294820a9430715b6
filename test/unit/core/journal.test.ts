/**
 * The history of interventions as the core keeps it (journal-book.ts, journal-effects.ts): one
 * entry per intervention, settled when its outcome is known, handed to HostPort.journal. Each
 * outcome has its negative control: the same timeline minus the trigger records nothing.
 */
import { describe, expect, test } from "bun:test"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { cappedEntry, journalText, MAX_JOURNAL_FIELD } from "../../../src/core/journal.ts"
import { makeHarness, userTurn, type Harness } from "../../support/harness.ts"

const BUDGET = 183_000 // chunkTimeoutMs + gracePeriodMs (defaults)

function journaled(rawOptions: Record<string, unknown> = {}): Harness & { entries: JournalEntry[] } {
  const h = makeHarness(rawOptions)
  const entries: JournalEntry[] = []
  h.port.journal = (entry) => void entries.push(entry)
  return Object.assign(h, { entries })
}

describe("a stall recovery in the history", () => {
  test("a continue the session answers with output is one `revived` stall entry, with the silence as evidence", async () => {
    const h = journaled()
    h.emit(...userTurn)
    await h.advance(BUDGET + 3000, 1000)
    expect(h.port.actions).toEqual(["send"])
    // Recorded only once settled: the action alone is not an entry yet.
    expect(h.entries).toEqual([])
    h.emit({ type: "modelOutput" })
    await h.advance(30_000, 1000)
    expect(h.entries).toHaveLength(1)
    const [e] = h.entries
    expect(e).toMatchObject({ sessionID: "s1", trigger: "stall", action: "continue", outcome: "revived" })
    expect(e!.evidence).toMatch(/^silent for 3m \d+s$/)
    expect(e!.time).toBeGreaterThan(0)
  })

  test("a continue the session never answers settles as `no effect` when the window is over", async () => {
    const h = journaled({ stallEpisodeMaxContinues: 1 })
    h.emit(...userTurn)
    await h.advance(BUDGET + 3000, 1000)
    expect(h.port.actions).toEqual(["send"])
    await h.advance(BUDGET + 10_000, 1000)
    // The ladder's next look finds its budget spent at about the moment the window ends.
    expect(h.entries.find((e) => e.outcome !== "gave up")).toMatchObject({ trigger: "stall", action: "continue", outcome: "no effect" })
  })

  test("negative control: a turn with output and no stall records nothing", async () => {
    const h = journaled()
    h.emit(...userTurn)
    for (let i = 0; i < 6; i++) {
      await h.advance(60_000, 5000)
      h.emit({ type: "modelOutput" })
    }
    h.emit({ type: "idle" })
    await h.advance(10 * 60_000, 10_000)
    h.engine.dispose()
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries).toEqual([])
  })

  test("a stall held by a pause is one `held` entry naming the guard, however often it is checked", async () => {
    const h = journaled()
    h.pauses.pause("s1")
    h.emit(...userTurn)
    await h.advance(3 * BUDGET, 1000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries).toHaveLength(1)
    expect(h.entries[0]).toMatchObject({ trigger: "stall", outcome: "held", note: "paused" })
  })

  test("negative control: the same silence unpaused is no `held` entry", async () => {
    const h = journaled()
    h.emit(...userTurn)
    await h.advance(BUDGET + 3000, 1000)
    h.emit({ type: "modelOutput" })
    await h.advance(30_000, 1000)
    expect(h.entries.map((e) => e.outcome)).toEqual(["revived"])
  })

  test("an open question holds the stall too, as `held`", async () => {
    const h = journaled()
    h.emit(...userTurn, { type: "awaitingUser", key: "q1", open: true })
    await h.advance(2 * BUDGET, 1000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries.map((e) => [e.outcome, e.note])).toEqual([["held", "waiting for the user (question or permission open)"]])
  })

  test("a spent stall budget is one `gave up` entry", async () => {
    const h = journaled({ stallEpisodeMaxContinues: 1 })
    h.emit(...userTurn)
    await h.advance(4 * BUDGET, 1000)
    const outcomes = h.entries.map((e) => e.outcome)
    expect(outcomes.filter((o) => o === "gave up")).toHaveLength(1)
    expect(h.entries.find((e) => e.outcome === "gave up")?.note).toMatch(/retries exhausted/)
  })

  test("the engine stopping settles what is pending, and says it was early", async () => {
    const h = journaled()
    h.emit(...userTurn)
    await h.advance(BUDGET + 3000, 1000)
    h.engine.dispose()
    expect(h.entries).toHaveLength(1)
    expect(h.entries[0]).toMatchObject({ outcome: "no effect", note: "settled early: the plugin stopped" })
  })
})

describe("a live tool loop in the history", () => {
  const loop = (h: Harness, calls: number) => {
    for (let i = 0; i < calls; i++) {
      h.emit({ type: "toolStart", callID: `c${i}`, tool: "bash", args: { command: "ls" } }, { type: "toolEnd", callID: `c${i}` })
    }
  }

  test("the loop's abort + correction names the tool and the count", async () => {
    const h = journaled()
    h.emit(...userTurn)
    loop(h, 8)
    await h.advance(6000, 250)
    expect(h.port.actions).toEqual(["abort", "send"])
    h.emit({ type: "modelOutput" })
    await h.advance(30_000, 1000)
    const entry = h.entries.find((e) => e.trigger === "tool loop")
    expect(entry).toMatchObject({ action: "abort + correction", outcome: "revived" })
    expect(entry!.evidence).toMatch(/^`bash` repeated \d+x$/)
  })

  test("paused, the same loop is `held` and nothing goes out", async () => {
    const h = journaled()
    h.pauses.pause("s1")
    h.emit(...userTurn)
    loop(h, 8)
    await h.advance(5000, 250)
    expect(h.port.calls).toHaveLength(0)
    expect(h.entries.filter((e) => e.trigger === "tool loop").map((e) => e.outcome)).toEqual(["held"])
  })
})

describe("entries stay small", () => {
  test("every field is one printable line, capped", () => {
    const long = "x".repeat(5000)
    const e = cappedEntry({ time: 1, sessionID: "s", trigger: "a\nb\u001b[31m", evidence: long, action: "continue", outcome: "held", note: long })
    expect(e.trigger).toBe("a b [31m")
    expect(e.evidence.length).toBe(MAX_JOURNAL_FIELD)
    expect(e.note!.endsWith("...")).toBe(true)
    expect(journalText(undefined)).toBe("")
  })

  test("a port whose journal throws costs nothing but a log line", async () => {
    const h = makeHarness()
    h.port.journal = () => {
      throw new Error("disk on fire")
    }
    h.emit(...userTurn)
    await h.advance(BUDGET + 3000, 1000)
    h.emit({ type: "modelOutput" })
    await h.advance(30_000, 1000)
    expect(h.port.actions).toEqual(["send"])
    expect(h.port.logged(/history entry .* could not be handed over: Error: disk on fire/)).toBe(true)
  })
})
