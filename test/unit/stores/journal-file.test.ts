/**
 * The journal file (src/stores/journal-file.ts): append without waiting, rotation at the cap with
 * one previous file kept, 0600, corrupt lines skipped on read with a debug line.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { JournalFile, journalFilePath, journalLine, newestOf, parseJournalLine, previousJournalPath, readJournal } from "../../../src/stores/journal-file.ts"

const dirs: string[] = []
function tempFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "auto-resume-history-"))
  dirs.push(dir)
  return path.join(dir, "state", "auto-resume.history.jsonl")
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const T0 = Date.UTC(2026, 11, 2, 3, 4, 5)
function entry(i: number, extra: Partial<JournalEntry> = {}): JournalEntry {
  return { time: T0 + i * 1000, sessionID: "ses_abcdefghijklmnop12345678", trigger: "stall", evidence: `silent for ${180 + i}s`, action: "continue", outcome: "revived", ...extra }
}

describe("JournalFile", () => {
  test("append returns at once; the lines land in order, in a 0600 file in a 0700 folder", async () => {
    const file = tempFile()
    const writer = new JournalFile({ file })
    writer.append(entry(1))
    writer.append(entry(2, { outcome: "held", note: "paused" }))
    // Nothing is written inside append: the disk is never waited on by the caller.
    expect(existsSync(file)).toBe(false)
    await writer.flushed()
    const lines = readFileSync(file, "utf8").trimEnd().split("\n")
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[1]!)).toEqual({ time: new Date(T0 + 2000).toISOString(), sessionID: "ses_abcdefghijklmnop12345678", trigger: "stall", evidence: "silent for 182s", action: "continue", outcome: "held", note: "paused" })
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
  })

  test("an existing file readable by others is narrowed to 0600", async () => {
    const file = tempFile()
    const writer = new JournalFile({ file })
    writer.append(entry(1))
    await writer.flushed()
    const { chmodSync } = await import("node:fs")
    chmodSync(file, 0o644)
    writer.append(entry(2))
    await writer.flushed()
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  test("past the cap the file becomes <file>.1 (one previous file) and a new one begins", async () => {
    const file = tempFile()
    const writer = new JournalFile({ file, maxBytes: 1000 })
    const lineBytes = journalLine(entry(0)).length + 1
    const perFile = Math.floor(1000 / lineBytes)
    for (let i = 0; i < perFile * 3 + 1; i++) {
      writer.append(entry(i))
      await writer.flushed()
    }
    expect(statSync(file).size).toBeLessThanOrEqual(1000)
    expect(statSync(previousJournalPath(file)).size).toBeLessThanOrEqual(1000)
    expect(existsSync(`${file}.2`)).toBe(false)
    const { entries } = readJournal(file)
    // Only what the two files hold is left, newest last, nothing out of order.
    expect(entries.at(-1)!.time).toBe(entry(perFile * 3).time)
    expect(entries.length).toBeLessThanOrEqual(2 * perFile)
    expect(entries.map((e) => e.time)).toEqual([...entries.map((e) => e.time)].sort((a, b) => a - b))
  })

  test("negative control: under the cap nothing rotates", async () => {
    const file = tempFile()
    const writer = new JournalFile({ file, maxBytes: 100_000 })
    for (let i = 0; i < 20; i++) writer.append(entry(i))
    await writer.flushed()
    expect(existsSync(previousJournalPath(file))).toBe(false)
    expect((readJournal(file)).entries).toHaveLength(20)
  })

  test("flushNow writes what is queued before it returns (an instance that stops)", () => {
    const file = tempFile()
    const writer = new JournalFile({ file })
    writer.append(entry(1))
    writer.flushNow()
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(1)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  test("a queue the disk cannot keep up with drops its oldest lines, and says so once", async () => {
    const file = tempFile()
    const logs: string[] = []
    const writer = new JournalFile({ file, maxQueued: 3, log: (_l, m) => logs.push(m) })
    for (let i = 0; i < 10; i++) writer.append(entry(i))
    await writer.flushed()
    const { entries } = readJournal(file)
    expect(entries.map((e) => e.time)).toEqual([entry(7).time, entry(8).time, entry(9).time])
    expect(logs).toEqual(["history: 7 entries dropped (the disk did not keep up)"])
  })

  test("a folder that cannot be made is one warning, never a throw", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "auto-resume-history-"))
    dirs.push(dir)
    writeFileSync(path.join(dir, "blocker"), "")
    const logs: string[] = []
    const writer = new JournalFile({ file: path.join(dir, "blocker", "x", "h.jsonl"), log: (_l, m) => logs.push(m) })
    writer.append(entry(1))
    writer.append(entry(2))
    await writer.flushed()
    writer.append(entry(3))
    await writer.flushed()
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/history: could not write .*: (ENOTDIR|EEXIST)/)
  })
})

describe("reading the journal", () => {
  test("corrupt lines are skipped, each with a debug line; the good ones survive", async () => {
    const file = tempFile()
    const writer = new JournalFile({ file })
    writer.append(entry(1))
    await writer.flushed()
    appendFileSync(file, "not json\n{\"time\":\"yesterday\"}\n[1,2]\n" + JSON.stringify({ ...JSON.parse(journalLine(entry(2))), outcome: "exploded" }) + "\n\n")
    writer.append(entry(3))
    await writer.flushed()
    const debug: string[] = []
    const read = readJournal(file, { debug: (m) => debug.push(m) })
    expect(read.entries.map((e) => e.time)).toEqual([entry(1).time, entry(3).time])
    expect(read.skipped).toBe(4)
    expect(debug).toHaveLength(4)
    expect(debug[0]).toMatch(/line 2 skipped: not JSON/)
    expect(debug[3]).toMatch(/no known outcome/)
  })

  test("negative control: a clean file skips nothing and says nothing", async () => {
    const file = tempFile()
    const writer = new JournalFile({ file })
    for (let i = 0; i < 3; i++) writer.append(entry(i))
    await writer.flushed()
    const debug: string[] = []
    const read = readJournal(file, { debug: (m) => debug.push(m) })
    expect(read.skipped).toBe(0)
    expect(debug).toEqual([])
  })

  test("no file is an empty history", async () => {
    expect(readJournal(tempFile())).toEqual({ entries: [], skipped: 0 })
  })

  test("a line round-trips; a line too long or with a bad field is refused", () => {
    const e = entry(4, { note: "carried over from a restart" })
    expect(parseJournalLine(journalLine(e))).toEqual({ ok: true, entry: e })
    expect(parseJournalLine("x".repeat(5000))).toMatchObject({ ok: false })
    expect(parseJournalLine(JSON.stringify({ ...JSON.parse(journalLine(e)), sessionID: "" }))).toMatchObject({ ok: false, why: "no sessionID" })
  })

  test("the file lives beside the pause marker", () => {
    expect(journalFilePath({ XDG_CONFIG_HOME: "/x/cfg" })).toBe("/x/cfg/opencode/auto-resume.history.jsonl")
  })

  test("newestOf keeps one session's newest, oldest first", () => {
    const mixed = [entry(3), entry(1, { sessionID: "other" }), entry(2), entry(5)]
    expect(newestOf(mixed, "ses_abcdefghijklmnop12345678", 2).map((e) => e.time)).toEqual([entry(3).time, entry(5).time])
  })
})
