/** The wait file and its store on a real temp folder: atomic 0600 writes, bad files, the claim between two processes. */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { CarriedWait, RestoredWait, WaitOwner } from "../../../src/core/carried-waits.ts"
import { FileRateWaitStore, RateWaitFile, ownerAlive, rateWaitFilePath, selfOwner } from "../../../src/stores/wait-file.ts"

const NOW = Date.UTC(2026, 0, 1, 12)
const dead: WaitOwner = { pid: 100, startedAt: 1, host: "h" }
const a: WaitOwner = { pid: 200, startedAt: 2, host: "h" }
const b: WaitOwner = { pid: 300, startedAt: 3, host: "h" }
const alive = (o: WaitOwner) => o.pid !== dead.pid

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rate-waits-"))
  dirs.push(dir)
  const filePath = rateWaitFilePath({ XDG_CONFIG_HOME: dir })
  const logs: { level: string; message: string }[] = []
  const store = (self: WaitOwner, directory = "/p") =>
    new FileRateWaitStore({ file: new RateWaitFile(filePath, { now: () => NOW }), directory, self, alive, wallNow: () => NOW, log: (level, message) => logs.push({ level, message }) })
  const write = (data: unknown) => {
    fs.mkdirSync(path.dirname(filePath), { recursive: true })
    fs.writeFileSync(filePath, typeof data === "string" ? data : JSON.stringify(data))
  }
  const read = () => JSON.parse(fs.readFileSync(filePath, "utf8")).waits as CarriedWait[]
  return { dir, filePath, logs, store, write, read }
}

const entry = (sessionID: string, owner: WaitOwner, until = NOW + 60_000): CarriedWait => ({ sessionID, rung: 1, until, owner, directory: "/p" })
const adoptInto = (into: RestoredWait[]) => (waits: RestoredWait[]) => void into.push(...waits)

describe("the wait file", () => {
  test("lives beside the pause marker; a save writes it atomically with mode 0600 and leaves no temp file", async () => {
    const w = setup()
    expect(w.filePath).toBe(path.join(w.dir, "opencode", "auto-resume.rate-waits.json"))
    const s = w.store(a)
    s.save({ sessionID: "s1", rung: 2, until: NOW + 1000, agent: "build" })
    await s.settled()
    expect(w.read()).toEqual([{ sessionID: "s1", rung: 2, until: NOW + 1000, agent: "build", owner: a, directory: "/p" }])
    expect(fs.statSync(w.filePath).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(path.dirname(w.filePath)).filter((n) => n.endsWith(".tmp") || n.endsWith(".lock"))).toEqual([])
    s.end("s1")
    await s.settled()
    expect(w.read()).toEqual([])
  })

  test("a corrupt file is read as empty with one warning, however often it is read; the next write replaces it", async () => {
    const w = setup()
    w.write("{ not json")
    const s = w.store(a)
    const got: RestoredWait[] = []
    await s.restore(async () => [], adoptInto(got))
    s.save({ sessionID: "s1", rung: 1, until: NOW + 1000 })
    await s.settled()
    expect(got).toEqual([])
    expect(w.logs.filter((l) => l.level === "warn")).toHaveLength(1)
    expect(w.logs.find((l) => l.level === "warn")?.message).toContain("was read as empty")
    expect(w.read().map((e) => e.sessionID)).toEqual(["s1"])
  })

  test("negative control: a missing file is no problem: no warning", async () => {
    const w = setup()
    await w.store(a).restore(async () => [], () => {})
    expect(w.logs.filter((l) => l.level === "warn")).toEqual([])
  })

  test("a malformed entry is skipped with a debug line; the good ones are taken over", async () => {
    const w = setup()
    w.write({ waits: [{ sessionID: "bad", rung: "x", until: NOW, owner: dead }, entry("s1", dead)] })
    const got: RestoredWait[] = []
    await w.store(a).restore(async () => [], adoptInto(got))
    expect(got.map((g) => g.sessionID)).toEqual(["s1"])
    expect(w.logs.filter((l) => l.level === "warn")).toEqual([])
    expect(w.logs.some((l) => l.level === "debug" && /skipped an entry .*session bad: no rung/.test(l.message))).toBe(true)
  })
})

describe("taking waits over", () => {
  test("two processes starting at once on one file: exactly one takes the dead owner's wait", async () => {
    const w = setup()
    w.write({ waits: [entry("s1", dead)] })
    const gotA: RestoredWait[] = []
    const gotB: RestoredWait[] = []
    await Promise.all([w.store(a).restore(async () => [], adoptInto(gotA)), w.store(b).restore(async () => [], adoptInto(gotB))])
    expect(gotA.length + gotB.length).toBe(1)
    const owner = w.read()[0]!.owner
    expect(owner).toEqual(gotA.length ? a : b)
    expect(w.read()[0]!.carriedOver).toBe(true)
  })

  test("negative control: a live process's wait is left to it", async () => {
    const w = setup()
    w.write({ waits: [entry("s1", b)] })
    const got: RestoredWait[] = []
    await w.store(a).restore(async () => [], adoptInto(got))
    expect(got).toEqual([])
    expect(w.read()[0]!.owner).toEqual(b)
  })

  test("a session the host lists as running is handed over as busy", async () => {
    const w = setup()
    w.write({ waits: [entry("s1", dead), entry("s2", dead)] })
    const got: RestoredWait[] = []
    await w.store(a).restore(async () => ["s2"], adoptInto(got))
    expect(got.map((g) => [g.sessionID, g.busy])).toEqual([["s1", false], ["s2", true]])
  })

  test("a clean stop removes this process's waits for its folder at once, and nobody else's", async () => {
    const w = setup()
    w.write({ waits: [entry("s1", a), entry("s2", b), { ...entry("s3", a), directory: "/q" }] })
    const s = w.store(a)
    s.endAll()
    expect(w.read().map((e) => e.sessionID)).toEqual(["s2", "s3"])
    // Nothing is written for it after that.
    s.save({ sessionID: "s4", rung: 1, until: NOW + 1000 })
    await s.settled()
    expect(w.read().map((e) => e.sessionID)).toEqual(["s2", "s3"])
  })
})

describe("process identity", () => {
  test("this process is alive as itself; the same pid with another start is not", () => {
    const me = selfOwner()
    expect(ownerAlive(me)).toBe(true)
    expect(ownerAlive({ ...me, startedAt: me.startedAt - 10_000 })).toBe(false)
    expect(ownerAlive({ ...me, pid: 2 ** 22 + 7 })).toBe(false)
    // Another host's process cannot be checked: it keeps its waits.
    expect(ownerAlive({ ...me, host: "elsewhere" })).toBe(true)
  })
})
