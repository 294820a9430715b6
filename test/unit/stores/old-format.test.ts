/**
 * Files written by the version before stores/ (commit ee9c405: src/pause/marker-file.ts,
 * src/pause/rate-wait-file.ts, src/history/journal-file.ts), captured byte for byte: the stores
 * read them, and a rewrite gives the bytes that version's rewrite gave (its parser orders the
 * keys its own way), so an older plugin or CLI running beside this one and this one read each
 * other's files.
 */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { JournalFile, journalFilePath, previousJournalPath, readJournal } from "../../../src/stores/journal-file.ts"
import { PauseMarkerFile, pauseFilePath } from "../../../src/stores/pause-marker.ts"
import { RateWaitFile, rateWaitFilePath } from "../../../src/stores/wait-file.ts"

const NOW = Date.UTC(2026, 11, 1, 12)

const OLD_MARKER =
  '{"version":1,"all":true,"sessions":["ses_2a0d55f1cffeAbCdEf0123456789","ses_b"],"holds":[{"session":"ses_2a0d55f1cffeAbCdEf0123456789","by":"i0123456789abcdef","at":1796126340000},{"session":"ses_b","at":1796126399000}],"allHold":{"at":1796126395000},"leases":[{"id":"i0123456789abcdef","pid":4242,"host":"box","since":1796122800000,"at":1796126398000,"ttlMs":20000}]}\n'

/** What that version's `update((s) => s)` made of OLD_MARKER: a lease's keys in the parser's order. */
const REWRITTEN_MARKER =
  '{"version":1,"all":true,"sessions":["ses_2a0d55f1cffeAbCdEf0123456789","ses_b"],"holds":[{"session":"ses_2a0d55f1cffeAbCdEf0123456789","by":"i0123456789abcdef","at":1796126340000},{"session":"ses_b","at":1796126399000}],"allHold":{"at":1796126395000},"leases":[{"id":"i0123456789abcdef","since":1796122800000,"at":1796126398000,"ttlMs":20000,"pid":4242,"host":"box"}]}\n'

const OLD_WAITS =
  '{\n "waits": [\n  {\n   "sessionID": "ses_w1",\n   "rung": 2,\n   "until": 1796130000000,\n   "since": 1796126340000,\n   "directory": "/home/me/project",\n   "agent": "build",\n   "model": {\n    "providerID": "myprovider",\n    "modelID": "my-model"\n   },\n   "owner": {\n    "pid": 4242,\n    "startedAt": 1796119200000,\n    "host": "box"\n   }\n  },\n  {\n   "sessionID": "ses_w2",\n   "rung": 1,\n   "until": 1796126460000,\n   "owner": {\n    "pid": 4343,\n    "startedAt": 1796126399900,\n    "host": "box"\n   },\n   "carriedOver": true\n  }\n ]\n}\n'

/** What that version's `update((w) => w)` made of OLD_WAITS: `owner` right after `until`. */
const REWRITTEN_WAITS =
  '{\n "waits": [\n  {\n   "sessionID": "ses_w1",\n   "rung": 2,\n   "until": 1796130000000,\n   "owner": {\n    "pid": 4242,\n    "startedAt": 1796119200000,\n    "host": "box"\n   },\n   "since": 1796126340000,\n   "directory": "/home/me/project",\n   "agent": "build",\n   "model": {\n    "providerID": "myprovider",\n    "modelID": "my-model"\n   }\n  },\n  {\n   "sessionID": "ses_w2",\n   "rung": 1,\n   "until": 1796126460000,\n   "owner": {\n    "pid": 4343,\n    "startedAt": 1796126399900,\n    "host": "box"\n   },\n   "carriedOver": true\n  }\n ]\n}\n'

/** Written with maxBytes 400: the first two entries were rotated to `.1` by the third. */
const OLD_HISTORY_PREVIOUS =
  '{"time":"2026-12-01T11:58:00.000Z","sessionID":"ses_h1","trigger":"stall","evidence":"silent for 3m 2s","action":"abort + continue","outcome":"revived"}\n' +
  '{"time":"2026-12-01T11:59:00.000Z","sessionID":"ses_h1","trigger":"tool loop","evidence":"`bash` repeated 6x","action":"abort + correction","outcome":"held","note":"paused"}\n'
const OLD_HISTORY =
  '{"time":"2026-12-01T12:00:00.000Z","sessionID":"ses_h2","trigger":"rate limit","evidence":"hit 1; waited 1h 0m","action":"continue","outcome":"no effect","note":"carried over from a restart"}\n'

const HISTORY: JournalEntry[] = [
  { time: NOW - 120_000, sessionID: "ses_h1", trigger: "stall", evidence: "silent for 3m 2s", action: "abort + continue", outcome: "revived" },
  { time: NOW - 60_000, sessionID: "ses_h1", trigger: "tool loop", evidence: "`bash` repeated 6x", action: "abort + correction", outcome: "held", note: "paused" },
  { time: NOW, sessionID: "ses_h2", trigger: "rate limit", evidence: "hit 1; waited 1h 0m", action: "continue", outcome: "no effect", note: "carried over from a restart" },
]

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function stateFolder(): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-old-format-"))
  dirs.push(dir)
  fs.mkdirSync(path.join(dir, "opencode"), { mode: 0o700 })
  return { XDG_CONFIG_HOME: dir }
}

describe("files the previous version wrote", () => {
  test("the pause marker is read whole, without a problem, and rewritten as that version rewrote it", async () => {
    const env = stateFolder()
    fs.writeFileSync(pauseFilePath(env), OLD_MARKER)
    const file = new PauseMarkerFile(pauseFilePath(env))
    const { state, problem } = file.read()
    expect(problem).toBeUndefined()
    expect(state).toEqual({
      all: true,
      sessions: ["ses_2a0d55f1cffeAbCdEf0123456789", "ses_b"],
      allHold: { at: NOW - 5000 },
      holds: [
        { session: "ses_2a0d55f1cffeAbCdEf0123456789", by: "i0123456789abcdef", at: NOW - 60_000 },
        { session: "ses_b", at: NOW - 1000 },
      ],
      leases: [{ id: "i0123456789abcdef", pid: 4242, host: "box", since: NOW - 3_600_000, at: NOW - 2000, ttlMs: 20_000 }],
    })
    await file.update((s) => s)
    expect(fs.readFileSync(pauseFilePath(env), "utf8")).toBe(REWRITTEN_MARKER)
  })

  test("the wait file is read whole, without a problem, and rewritten as that version rewrote it", async () => {
    const env = stateFolder()
    fs.writeFileSync(rateWaitFilePath(env), OLD_WAITS)
    const file = new RateWaitFile(rateWaitFilePath(env), { now: () => NOW })
    const read = file.read()
    expect(read.problem).toBeUndefined()
    expect(read.skipped).toEqual([])
    expect(read.waits.map((w) => [w.sessionID, w.rung, w.until, w.directory, w.model?.modelID, w.owner.pid, w.carriedOver])).toEqual([
      ["ses_w1", 2, NOW + 3_600_000, "/home/me/project", "my-model", 4242, undefined],
      ["ses_w2", 1, NOW + 60_000, undefined, undefined, 4343, true],
    ])
    await file.update((w) => w)
    expect(fs.readFileSync(rateWaitFilePath(env), "utf8")).toBe(REWRITTEN_WAITS)
  })

  test("the history and its rotated file are read in order, and the same entries are written as the same lines", async () => {
    const env = stateFolder()
    const file = journalFilePath(env)
    fs.writeFileSync(previousJournalPath(file), OLD_HISTORY_PREVIOUS)
    fs.writeFileSync(file, OLD_HISTORY)
    const debug: string[] = []
    const read = readJournal(file, { debug: (m) => debug.push(m) })
    expect(read).toEqual({ entries: HISTORY, skipped: 0 })
    expect(debug).toEqual([])

    const fresh = journalFilePath(stateFolder())
    const writer = new JournalFile({ file: fresh, maxBytes: 400 })
    for (const entry of HISTORY) {
      writer.append(entry)
      await writer.flushed()
    }
    expect(fs.readFileSync(previousJournalPath(fresh), "utf8")).toBe(OLD_HISTORY_PREVIOUS)
    expect(fs.readFileSync(fresh, "utf8")).toBe(OLD_HISTORY)
  })
})
