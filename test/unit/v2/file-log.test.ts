/** The v2 log file: under the state directory, capped and rotated, never throwing. */
import { afterAll, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultLogPath, FileLog, formatLogLine } from "../../../src/host/v2/file-log.ts"

const dir = mkdtempSync(join(tmpdir(), "auto-resume-log-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("log file", () => {
  test("lives under XDG_STATE_HOME, else ~/.local/state", () => {
    expect(defaultLogPath({ XDG_STATE_HOME: "/s" })).toBe("/s/opencode-auto-resume/auto-resume.log")
    expect(defaultLogPath({ HOME: "/home/u" })).toBe("/home/u/.local/state/opencode-auto-resume/auto-resume.log")
  })

  test("one line per entry: time, level, pid, message, extra; newlines escaped", () => {
    const line = formatLogLine(Date.UTC(2026, 0, 1), "warn", "two\nlines", { a: 1 })
    expect(line).toBe(`2026-01-01T00:00:00.000Z WARN pid=${process.pid} two\\nlines {"a":1}\n`)
  })

  test("appends, creating the directory; rotates to .1 when the cap would be passed", async () => {
    const path = join(dir, "nested", "auto-resume.log")
    const log = new FileLog(path, 200)
    for (let i = 0; i < 3; i++) log.write(`${"x".repeat(60)} ${i}\n`)
    await log.flush()
    expect(readFileSync(path, "utf8").split("\n").filter(Boolean)).toHaveLength(3)
    for (let i = 3; i < 10; i++) {
      log.write(`${"y".repeat(60)} ${i}\n`)
      await log.flush()
    }
    expect(statSync(path).size).toBeLessThanOrEqual(200)
    expect(existsSync(`${path}.1`)).toBe(true)
    expect(statSync(`${path}.1`).size).toBeLessThanOrEqual(200)
    expect(readFileSync(path, "utf8")).toContain(" 9\n")
  })

  test("a burst beyond the queue cap is counted, not kept", async () => {
    const path = join(dir, "burst.log")
    const log = new FileLog(path, 10_000_000)
    for (let i = 0; i < 5000; i++) log.write(`line ${i}\n`)
    await log.flush()
    log.write("after\n")
    await log.flush()
    const text = readFileSync(path, "utf8")
    expect(text.split("\n").filter(Boolean).length).toBeLessThan(1100)
    expect(text).toMatch(/\d+ log line\(s\) dropped/)
  })

  test("an unwritable location costs nothing but the log", async () => {
    const blocker = join(dir, "not-a-dir")
    writeFileSync(blocker, "file in the way")
    const log = new FileLog(join(blocker, "sub", "x.log"))
    expect(() => log.write("hello\n")).not.toThrow()
    await log.flush()
    expect(() => log.write("again\n")).not.toThrow()
  })
})
