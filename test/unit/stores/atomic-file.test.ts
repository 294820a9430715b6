/**
 * The one write, lock and read every state file goes through (src/stores/atomic-file.ts), each
 * rule with its negative control: content over the bound refused, a writer held back by another's
 * lock, a file that is too large or not a file refused on read; and the history's use of the lock.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { AtomicFile, StateFileError, readBounded } from "../../../src/stores/atomic-file.ts"
import { JournalFile, journalLine, previousJournalPath, readJournal } from "../../../src/stores/journal-file.ts"

const MODULE = path.resolve(import.meta.dir, "../../../src/stores/atomic-file.ts")
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function tempPath(name = "state.json"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-atomic-"))
  dirs.push(dir)
  return path.join(dir, "opencode", name)
}

/** A lock as another live writer leaves it while it works. */
function holdLock(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 4242, host: os.hostname(), token: "theirs", at: Date.now() }))
}

const T0 = Date.UTC(2026, 11, 2, 3, 4, 5)
const entry = (i: number): JournalEntry => ({ time: T0 + i * 1000, sessionID: "ses_abc", trigger: "stall", evidence: `silent for ${i}s`, action: "continue", outcome: "revived" })

describe("the write", () => {
  test("replaces the file through a 0600 temp file in a 0700 folder, leaving nothing else behind", () => {
    const p = tempPath()
    const file = new AtomicFile(p, 100)
    file.replace("one\n")
    file.replace("two\n")
    expect(fs.readFileSync(p, "utf8")).toBe("two\n")
    expect(fs.statSync(p).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(p)).mode & 0o777).toBe(0o700)
    expect(fs.readdirSync(path.dirname(p))).toEqual(["state.json"])
  })

  test("content over the bound is refused and the file left as it was", () => {
    const p = tempPath()
    const file = new AtomicFile(p, 100)
    file.replace("kept\n")
    expect(() => file.replace("x".repeat(101))).toThrow(StateFileError)
    expect(() => file.replace("é".repeat(51))).toThrow(/102 bytes is over its bound of 100/)
    expect(fs.readFileSync(p, "utf8")).toBe("kept\n")
    expect(fs.readdirSync(path.dirname(p))).toEqual(["state.json"])
  })

  test("negative control: content exactly at the bound is written", () => {
    const p = tempPath()
    new AtomicFile(p, 100).replace("x".repeat(100))
    expect(fs.readFileSync(p, "utf8")).toHaveLength(100)
  })
})

describe("the read", () => {
  test("a file over the bound is refused with a problem; one at the bound is read", () => {
    const p = tempPath()
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, "x".repeat(101))
    expect(new AtomicFile(p, 100).read()).toEqual({ problem: "it is larger than 100 bytes" })
    fs.writeFileSync(p, "x".repeat(100))
    expect(new AtomicFile(p, 100).read()).toEqual({ text: "x".repeat(100) })
  })

  test("no file is neither text nor a problem", () => {
    expect(new AtomicFile(tempPath(), 100).read()).toEqual({})
  })

  test("something that is not a regular file is a problem", () => {
    const p = tempPath()
    fs.mkdirSync(p, { recursive: true })
    expect(new AtomicFile(p, 100).read()).toEqual({ problem: "it is not a regular file" })
  })

  test("a FIFO is not opened: the read would block until some writer came", () => {
    const fifo = tempPath("fifo")
    fs.mkdirSync(path.dirname(fifo), { recursive: true })
    if (spawnSync("mkfifo", [fifo]).status !== 0) return
    // In a child, so that a read that does block fails this test instead of hanging the run.
    const script = `import { AtomicFile } from ${JSON.stringify(MODULE)}\nconsole.log(JSON.stringify(new AtomicFile(${JSON.stringify(fifo)}, 100).read()))`
    const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 4_000 })
    expect(child.stdout.trim()).toBe(JSON.stringify({ problem: "it is not a regular file" }))
  })

  test("a tail read takes the newest bytes, from the first whole line", () => {
    const p = tempPath()
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, "aaaa\nbbbb\ncccc\n")
    expect(readBounded(fs, p, 12, true)).toEqual({ text: "bbbb\ncccc\n" })
    // Negative control: a file within the bound is read whole.
    expect(readBounded(fs, p, 15, true)).toEqual({ text: "aaaa\nbbbb\ncccc\n" })
  })
})

describe("the lock", () => {
  test("a writer waits while another holds the lock, and runs once it is released", async () => {
    const p = tempPath()
    holdLock(p)
    let sleeps = 0
    let ran = false
    const ranWhileHeld: boolean[] = []
    const file = new AtomicFile(p, 100, {
      isAlive: () => true,
      sleep: async () => {
        ranWhileHeld.push(ran)
        if (++sleeps === 3) fs.unlinkSync(`${p}.lock`)
      },
    })
    await file.locked(() => {
      ran = true
      file.replace("ours\n")
    })
    // Held back: nothing of ours ran while the other writer held the lock.
    expect(ranWhileHeld).toEqual([false, false, false])
    expect(fs.readFileSync(p, "utf8")).toBe("ours\n")
    expect(fs.existsSync(`${p}.lock`)).toBe(false)
  })

  test("a lock that never comes free: the writer gives up, its change never made, the other's lock untouched", async () => {
    const p = tempPath()
    holdLock(p)
    let clock = Date.now()
    let ran = false
    const file = new AtomicFile(p, 100, {
      isAlive: () => true,
      now: () => clock,
      lockTimeoutMs: 1000,
      sleep: async (ms) => void (clock += ms),
    })
    await expect(file.locked(() => (ran = true))).rejects.toThrow(/timed out waiting for the lock/)
    expect(ran).toBe(false)
    expect(file.lockedNow(() => (ran = true))).toBeUndefined()
    expect(ran).toBe(false)
    expect(JSON.parse(fs.readFileSync(`${p}.lock`, "utf8")).token).toBe("theirs")
  })

  test("negative control: a free lock is taken at once, with no wait", async () => {
    const p = tempPath()
    let sleeps = 0
    const file = new AtomicFile(p, 100, { sleep: async () => void sleeps++ })
    expect(await file.locked(() => "done")).toBe("done")
    expect(file.lockedNow(() => "now")).toEqual({ value: "now" })
    expect(sleeps).toBe(0)
    expect(fs.readdirSync(path.dirname(p))).toEqual([])
  })
})

describe("the history and the lock", () => {
  test("a batch waits for another writer's lock; the rotation then runs under it", async () => {
    const p = tempPath("h.jsonl")
    const lineBytes = journalLine(entry(1)).length + 1
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, `${journalLine(entry(1))}\n`)
    holdLock(p)
    let sleeps = 0
    const whileHeld: string[] = []
    const writer = new JournalFile({
      file: p,
      maxBytes: lineBytes + 10,
      isAlive: () => true,
      sleep: async () => {
        whileHeld.push(fs.readFileSync(p, "utf8"))
        if (++sleeps === 3) fs.unlinkSync(`${p}.lock`)
      },
    })
    writer.append(entry(2))
    await writer.flushed()
    // Nothing was appended or rotated while the other writer held the lock.
    expect(whileHeld).toEqual(Array(3).fill(`${journalLine(entry(1))}\n`))
    expect(fs.existsSync(`${p}.lock`)).toBe(false)
    expect(fs.readFileSync(previousJournalPath(p), "utf8")).toBe(`${journalLine(entry(1))}\n`)
    expect(fs.readFileSync(p, "utf8")).toBe(`${journalLine(entry(2))}\n`)
  })

  test("a lock that never comes free: the batch is appended all the same, not rotated, with one warning", async () => {
    const p = tempPath("h.jsonl")
    const lineBytes = journalLine(entry(1)).length + 1
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, `${journalLine(entry(1))}\n`)
    holdLock(p)
    let clock = Date.now()
    const logs: string[] = []
    const writer = new JournalFile({
      file: p,
      maxBytes: lineBytes + 10,
      isAlive: () => true,
      now: () => clock,
      lockTimeoutMs: 1000,
      sleep: async (ms) => void (clock += ms),
      log: (_level, message) => logs.push(message),
    })
    writer.append(entry(2))
    await writer.flushed()
    writer.append(entry(3))
    writer.flushNow()
    expect(readJournal(p).entries.map((e) => e.time)).toEqual([entry(1).time, entry(2).time, entry(3).time])
    expect(fs.existsSync(previousJournalPath(p))).toBe(false)
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/appended to without its lock \(timed out waiting for the lock/)
  })

  test("negative control: with the lock free, the same batch rotates the file and nothing is logged", async () => {
    const p = tempPath("h.jsonl")
    const lineBytes = journalLine(entry(1)).length + 1
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, `${journalLine(entry(1))}\n`)
    const logs: string[] = []
    const writer = new JournalFile({ file: p, maxBytes: lineBytes + 10, log: (_level, message) => logs.push(message) })
    writer.append(entry(2))
    await writer.flushed()
    expect(fs.readFileSync(previousJournalPath(p), "utf8")).toBe(`${journalLine(entry(1))}\n`)
    expect(logs).toEqual([])
  })

  test("a history path that is not a file is skipped with a debug line, never a throw", () => {
    const p = tempPath("h.jsonl")
    fs.mkdirSync(p, { recursive: true })
    const debug: string[] = []
    expect(readJournal(p, { debug: (m) => debug.push(m) })).toEqual({ entries: [], skipped: 0 })
    expect(debug).toEqual([`history: ${p} skipped: it is not a regular file`])
  })
})
