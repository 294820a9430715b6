/**
 * `auto-resume-toggle history` run as the user runs it: a subprocess of bin/auto-resume-toggle.mjs
 * on a temporary state folder the plugin's journal file was written to.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { appendFileSync, mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { JournalFile, journalFilePath } from "../../../src/stores/journal-file.ts"

const BIN = path.resolve(import.meta.dir, "../../../bin/auto-resume-toggle.mjs")
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const A = "ses_aaaaaaaaaaaaaaaaaaaa11111111"
const B = "ses_bbbbbbbbbbbbbbbbbbbb22222222"
const T0 = Date.UTC(2026, 11, 2, 1, 0, 0)

async function stateDir(entries: JournalEntry[], junk?: string): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "auto-resume-cli-history-"))
  dirs.push(dir)
  const writer = new JournalFile({ file: journalFilePath({ XDG_CONFIG_HOME: dir }) })
  for (const e of entries) writer.append(e)
  await writer.flushed()
  if (junk) appendFileSync(journalFilePath({ XDG_CONFIG_HOME: dir }), junk)
  return dir
}

function run(dir: string, args: string[]) {
  // TZ fixed so that "local time" is known to the test.
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: dir, HOME: dir, TZ: "UTC" }, timeout: 30_000 })
}

const stall: JournalEntry = { time: T0, sessionID: A, trigger: "stall", evidence: "silent for 3m 2s", action: "continue", outcome: "revived" }
const loop: JournalEntry = { time: T0 + 60_000, sessionID: B, trigger: "tool loop", evidence: "`bash` repeated 6x", action: "abort + correction", outcome: "held", note: "paused" }
const quota: JournalEntry = { time: T0 + 120_000, sessionID: A, trigger: "rate limit", evidence: "hit 1; waited 1h 0m", action: "continue", outcome: "no effect" }

describe("auto-resume-toggle history", () => {
  test("prints a table of every session, local time, newest last", async () => {
    // Written out of order (two processes append to one file): the table sorts by time.
    const dir = await stateDir([quota, stall, loop])
    const r = run(dir, ["history"])
    expect(r.status).toBe(0)
    expect(r.stderr).toBe("")
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(4)
    expect(lines[0]).toMatch(/^TIME\s+SESSION\s+TRIGGER\s+EVIDENCE\s+ACTION\s+OUTCOME$/)
    expect(lines[1]).toMatch(/^2026-12-02 01:00:00\s+ses_…11111111\s+stall\s+silent for 3m 2s\s+continue\s+revived$/)
    expect(lines[2]).toMatch(/^2026-12-02 01:01:00\s+ses_…22222222\s+tool loop\s+`bash` repeated 6x\s+abort \+ correction\s+held \(paused\)$/)
    expect(lines[3]).toMatch(/rate limit\s+hit 1; waited 1h 0m\s+continue\s+no effect$/)
  }, 60_000)

  test("one session by its id or the tail the table shows; --json prints its lines", async () => {
    const dir = await stateDir([stall, loop, quota])
    const one = run(dir, ["history", A])
    expect(one.stdout.trimEnd().split("\n")).toHaveLength(3)
    expect(one.stdout).not.toContain("tool loop")
    const tail = run(dir, ["history", "22222222"])
    expect(tail.stdout).toContain("tool loop")
    expect(tail.stdout).not.toContain("stall")
    const json = run(dir, ["history", A, "--json"])
    expect(json.status).toBe(0)
    const parsed = json.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
    expect(parsed.map((p) => p.trigger)).toEqual(["stall", "rate limit"])
    expect(parsed[0]).toEqual({ time: "2026-12-02T01:00:00.000Z", sessionID: A, trigger: "stall", evidence: "silent for 3m 2s", action: "continue", outcome: "revived" })
  }, 60_000)

  test("corrupt lines are skipped and counted on stderr; an empty history says so", async () => {
    const dir = await stateDir([stall], "garbage\n{}\n")
    const r = run(dir, ["history"])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("stall")
    expect(r.stderr).toMatch(/note: 2 line\(s\) of .* are not history entries and were skipped/)
    const empty = run(await stateDir([]), ["history"])
    expect(empty.status).toBe(0)
    expect(empty.stdout).toMatch(/^No interventions recorded/)
  }, 60_000)

  test("bad usage exits 2 with one line; --help names the history command and its file", async () => {
    const dir = await stateDir([])
    const bad = run(dir, ["history", "--yaml"])
    expect(bad.status).toBe(2)
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    const two = run(dir, ["history", A, B])
    expect(two.status).toBe(2)
    const help = run(dir, ["--help"])
    expect(help.stdout).toContain("history [sessionID] [--json]")
    expect(help.stdout).toContain(`History file: ${journalFilePath({ XDG_CONFIG_HOME: dir })}`)
  }, 60_000)
})
