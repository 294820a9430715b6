/** FilePauses: the plugin's view of the marker file. Time is injected; no real sleeps. */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import { FilePauses, isPauseControl } from "../../../src/stores/file-pauses.ts"
import { PauseMarkerFile } from "../../../src/stores/pause-marker.ts"
import type { StoreFs } from "../../../src/stores/atomic-file.ts"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function setup(opts: { fs?: StoreFs; recheckMs?: number } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-pauses-"))
  dirs.push(dir)
  const filePath = path.join(dir, "opencode", "auto-resume.paused")
  let now = 1_000_000
  const logs: string[] = []
  const pauses = new FilePauses({
    file: new PauseMarkerFile(filePath, { fs: opts.fs }),
    recheckMs: opts.recheckMs ?? 500,
    now: () => now,
    log: (level, message) => logs.push(`${level} ${message}`),
    identity: { id: "iA", pid: 101 },
  })
  // Another process (the CLI) writing the same file.
  const cli = new PauseMarkerFile(filePath)
  return { pauses, cli, filePath, logs, advance: (ms: number) => void (now += ms) }
}

describe("FilePauses", () => {
  test("start() keeps the pauses of other running OpenCode processes (their leases are fresh)", async () => {
    const { pauses, cli, filePath } = setup()
    const other = { id: "iB", pid: 202, since: 999_000, at: 999_900, ttlMs: 3000 }
    await cli.update(() => ({ all: false, sessions: ["ses_b"], holds: [{ session: "ses_b", by: "iB", at: 990_000 }], leases: [other] }))
    await pauses.start()
    expect(pauses.isPaused("ses_b")).toBe(true)
    const file = JSON.parse(fs.readFileSync(filePath, "utf8"))
    expect(file.sessions).toEqual(["ses_b"])
    expect(file.leases.map((l: { id: string }) => l.id).sort()).toEqual(["iA", "iB"])
    expect(fs.statSync(filePath).mode & 0o777).toBe(0o600)
  })

  test("start() drops the pauses whose holder's lease lapsed (a restart of the process that held them)", async () => {
    const { pauses, cli, logs } = setup()
    const old = { id: "iOld", pid: 303, since: 900_000, at: 990_000, ttlMs: 3000 } // last refreshed 10 s ago
    await cli.update(() => ({ all: false, sessions: ["ses_old"], holds: [{ session: "ses_old", by: "iOld", at: 950_000 }], leases: [old] }))
    await pauses.start()
    expect(pauses.isPaused("ses_old")).toBe(false)
    expect(cli.read().state.sessions).toEqual([])
    expect(cli.read().state.leases?.map((l) => l.id)).toEqual(["iA"])
    expect(logs.filter((l) => l.includes("dropped the pause of session ses_old"))).toHaveLength(1)
  })

  test("a second instance of the same process keeps the pauses the first holds", async () => {
    const { pauses, filePath } = setup()
    await pauses.start()
    await pauses.pause("ses_kept")
    const second = new FilePauses({ file: filePath, recheckMs: 0, now: () => 1_000_000, log: () => {}, identity: { id: "iA" } })
    await second.start() // another directory in the same server
    expect(second.isPaused("ses_kept")).toBe(true)
  })

  test("a pause written by another process is honoured once the recheck interval has passed", async () => {
    const { pauses, cli, advance } = setup({ recheckMs: 500 })
    await pauses.start()
    expect(pauses.isPaused("ses_a")).toBe(false)
    await cli.update((s) => ({ ...s, sessions: ["ses_a"] }))
    advance(100)
    expect(pauses.isPaused("ses_a")).toBe(false) // not re-checked yet: cheap
    advance(400)
    expect(pauses.isPaused("ses_a")).toBe(true)
    await cli.update(() => ({ all: false, sessions: [] }))
    advance(500)
    expect(pauses.isPaused("ses_a")).toBe(false)
    await cli.update(() => ({ all: true, sessions: [] }))
    advance(500)
    expect(pauses.isPaused("ses_anything")).toBe(true)
    expect(pauses.allPaused()).toBe(true)
  })

  test("pause / resume / pauseAll / resumeAll write the file and answer at once", async () => {
    const { pauses, cli } = setup()
    await pauses.start()
    expect(await pauses.pause("ses_a")).toEqual({ ok: true, paused: true, allPaused: false })
    expect(pauses.isPaused("ses_a")).toBe(true)
    expect(cli.read().state.sessions).toEqual(["ses_a"])
    expect(await pauses.resume("ses_a")).toEqual({ ok: true, paused: false, allPaused: false })
    expect(cli.read().state.sessions).toEqual([])
    await pauses.pause("ses_b")
    expect(await pauses.pauseAll()).toEqual({ ok: true, paused: true, allPaused: true })
    expect(pauses.isPaused("ses_z")).toBe(true)
    // Resuming one session while all are paused: still paused, and said so.
    expect(await pauses.resume("ses_b")).toEqual({ ok: true, paused: true, allPaused: true })
    expect(await pauses.resumeAll()).toEqual({ ok: true, paused: false, allPaused: false })
    const after = cli.read().state
    expect([after.all, after.sessions]).toEqual([false, []])
    expect(after.leases?.map((l) => l.id)).toEqual(["iA"]) // lifting the pauses keeps the lease
  })

  test("a bad session id is refused, not thrown", async () => {
    const { pauses } = setup()
    const r = await pauses.pause("../../x")
    expect(r.ok).toBe(false)
    expect(!r.ok && r.error).toMatch(/path separator/)
  })

  test("a malformed file: one warning, read as empty, rewritten cleanly", async () => {
    const { pauses, filePath, logs, advance } = setup()
    await pauses.start()
    fs.writeFileSync(filePath, "garbage{")
    advance(500)
    expect(pauses.isPaused("ses_a")).toBe(false)
    await pauses.settled()
    expect(JSON.parse(fs.readFileSync(filePath, "utf8"))).toMatchObject({ version: 1, all: false, sessions: [] })
    advance(500)
    pauses.isPaused("ses_a")
    advance(500)
    pauses.isPaused("ses_a")
    expect(logs.filter((l) => l.includes("was not usable"))).toHaveLength(1)
    expect(logs[0]).toMatch(/^warn .*not valid JSON.*rewritten/)
  })

  test("foreign JSON is treated the same way", async () => {
    const { pauses, filePath, logs, advance } = setup()
    await pauses.start()
    fs.writeFileSync(filePath, JSON.stringify({ editor: "vim", sessions: ["ses_a"] }))
    advance(500)
    expect(pauses.isPaused("ses_a")).toBe(false)
    await pauses.settled()
    expect(JSON.parse(fs.readFileSync(filePath, "utf8"))).toMatchObject({ version: 1, all: false, sessions: [] })
    expect(logs).toHaveLength(1)
  })

  test("I/O errors: one warning, sessions read as not paused, recovery when the file works again", async () => {
    let broken = false
    const flaky: StoreFs = {
      ...fs,
      statSync: ((p: fs.PathLike, o?: unknown) => {
        if (broken) throw Object.assign(new Error("EACCES"), { code: "EACCES", syscall: "stat" })
        return fs.statSync(p, o as never)
      }) as typeof fs.statSync,
    }
    const { pauses, cli, logs, advance } = setup({ fs: flaky })
    await pauses.start()
    await cli.update(() => ({ all: false, sessions: ["ses_a"] }))
    advance(500)
    expect(pauses.isPaused("ses_a")).toBe(true)
    broken = true
    for (let i = 0; i < 5; i++) {
      advance(500)
      expect(pauses.isPaused("ses_a")).toBe(false)
    }
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/^warn cannot read the pause file; treating sessions as not paused: .*EACCES/)
    broken = false
    advance(500)
    expect(pauses.isPaused("ses_a")).toBe(true)
  })

  test("when the file cannot be written, a pause still holds for this run", async () => {
    let failWrites = false
    const readOnly: StoreFs = {
      ...fs,
      openSync: ((p: fs.PathLike, flags?: unknown, mode?: unknown) => {
        if (failWrites && flags === "wx") throw Object.assign(new Error("EROFS"), { code: "EROFS", syscall: "open" })
        return fs.openSync(p, flags as never, mode as never)
      }) as typeof fs.openSync,
    }
    const { pauses, logs, advance } = setup({ fs: readOnly })
    await pauses.start()
    failWrites = true
    const r = await pauses.pause("ses_a")
    expect(r.ok && r.paused).toBe(true)
    expect(r.ok && r.memoryOnly).toMatch(/EROFS/)
    advance(500)
    expect(pauses.isPaused("ses_a")).toBe(true)
    expect(logs.filter((l) => l.startsWith("warn"))).toHaveLength(1)
    const back = await pauses.resume("ses_a")
    expect(back.ok && back.paused).toBe(false)
    expect(pauses.isPaused("ses_a")).toBe(false)
  })

  test("a failing log sink never reaches the caller", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-pauses-"))
    dirs.push(dir)
    const p = path.join(dir, "opencode", "auto-resume.paused")
    fs.mkdirSync(path.dirname(p), { recursive: true })
    const pauses = new FilePauses({
      file: p,
      recheckMs: 0,
      now: () => 0,
      log: () => {
        throw new Error("sink down")
      },
      identity: { id: "iA" },
    })
    await pauses.start()
    fs.writeFileSync(p, "junk")
    expect(() => pauses.isPaused("ses_a")).not.toThrow()
    await pauses.settled()
  })
})

/** Two OpenCode processes (two stores with their own instance ids) and the CLI on one file, one clock. */
function twoProcesses(recheckMs = 500) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-pauses-"))
  dirs.push(dir)
  const filePath = path.join(dir, "opencode", "auto-resume.paused")
  const clock = { now: Date.UTC(2026, 11, 1, 12) }
  const logs: string[] = []
  const store = (id: string, pid: number) =>
    new FilePauses({ file: filePath, recheckMs, now: () => clock.now, log: (level, m) => logs.push(`${id} ${level} ${m}`), identity: { id, pid } })
  return { filePath, clock, logs, store, cli: new PauseMarkerFile(filePath), advance: (ms: number) => void (clock.now += ms) }
}

describe("FilePauses across processes", () => {
  test("a pause made in one process survives another starting; it is dropped only once its holder's lease lapsed", async () => {
    const t = twoProcesses()
    const first = t.store("iFirst", 11)
    await first.start()
    await first.pause("ses_a")
    const second = t.store("iSecond", 22)
    await second.start()
    t.advance(500)
    expect(second.isPaused("ses_a")).toBe(true)
    expect(second.holdOf("ses_a")).toMatchObject({ kind: "other", lease: { id: "iFirst", pid: 11 } })
    expect(first.holdOf("ses_a")).toMatchObject({ kind: "self" })

    // The first process dies right after a refresh (its lease half way to lapsing, so the check
    // rewrites it); the second keeps checking.
    t.advance(1000)
    await first.tick()
    expect(t.cli.read().state.leases?.find((l) => l.id === "iFirst")?.at).toBe(t.clock.now)
    first.stop()
    for (let i = 0; i < 3000 / 500; i++) {
      t.advance(500)
      await second.tick()
      expect(second.isPaused("ses_a")).toBe(true) // not before the lease lapsed (3 s)
    }
    t.advance(500)
    await second.tick()
    expect(second.isPaused("ses_a")).toBe(false)
    expect(t.logs.filter((l) => /dropped the pause of session ses_a .*pid 11 that held it is no longer running/.test(l))).toHaveLength(1)
  })

  test("after a laptop sleep nobody's pause is dropped before its holder had a chance to refresh", async () => {
    const t = twoProcesses()
    const holder = t.store("iHolder", 11)
    const other = t.store("iOther", 22)
    await holder.start()
    await holder.pause("ses_a")
    await other.start()
    t.advance(3_600_000) // both processes were frozen for an hour
    await other.tick() // back first: it was frozen too, so it judges no one yet
    expect(t.cli.read().state.sessions).toEqual(["ses_a"])
    await holder.tick()
    t.advance(500)
    await other.tick()
    expect(t.cli.read().state.sessions).toEqual(["ses_a"])
    // Negative control: a holder that does not come back is dropped at the next check.
    holder.stop()
    t.advance(3_600_000)
    await other.tick()
    expect(t.cli.read().state.sessions).toEqual(["ses_a"])
    t.advance(500)
    await other.tick()
    expect(t.cli.read().state.sessions).toEqual([])
  })

  test("after a freeze of a few intervals a live holder's pause stays, though its lease, refreshed only half way, looks lapsed", async () => {
    const t = twoProcesses()
    const holder = t.store("iHolder", 11)
    const other = t.store("iOther", 22)
    await holder.start()
    await holder.pause("ses_a")
    await other.start()
    // Both check every 500 ms; the holder's lease (3 s) is rewritten only from 1.5 s of age.
    for (let i = 0; i < 2; i++) {
      t.advance(500)
      await holder.tick()
      await other.tick()
    }
    t.advance(2_500) // the machine froze for 2 s past the next check: the lease is 3.5 s old
    await other.tick() // back first, 2.5 s after its last check: it judges no one yet
    expect(t.cli.read().state.sessions).toEqual(["ses_a"])
    await holder.tick()
    t.advance(500)
    await other.tick()
    expect(t.cli.read().state.sessions).toEqual(["ses_a"])
    expect(holder.isPaused("ses_a")).toBe(true)
    // Negative control: a holder that does not come back is dropped once the other checks on time.
    holder.stop()
    for (let i = 0; i < 3000 / 500; i++) {
      t.advance(500)
      await other.tick()
    }
    expect(t.cli.read().state.sessions).toEqual([])
  })

  test("a restart of the process that runs the session clears its pause; its lease was removed at exit", async () => {
    const t = twoProcesses()
    const before = t.store("iRun1", 11)
    await before.start()
    await before.pause("ses_a")
    expect(before.leave()).toBe(true) // what a normal exit does
    expect(t.cli.read().state.leases ?? []).toEqual([])
    const after = t.store("iRun2", 12) // the restarted process: a new instance id
    await after.start()
    expect(after.isPaused("ses_a")).toBe(false)
  })

  test("negative control: the holder still refreshing keeps its pause through any number of other starts", async () => {
    const t = twoProcesses()
    const first = t.store("iFirst", 11)
    await first.start()
    await first.pause("ses_a")
    for (let i = 0; i < 10; i++) {
      t.advance(1000)
      await first.tick()
      await t.store(`iOther${i}`, 100 + i).start()
    }
    expect(t.cli.read().state.sessions).toEqual(["ses_a"])
  })

  test("a CLI pause is claimed by the process that runs the session, and then follows its lease", async () => {
    const t = twoProcesses()
    const runner = t.store("iRunner", 11)
    const bystander = t.store("iBystander", 22)
    await runner.start()
    await bystander.start()
    runner.isPaused("ses_a") // the engine asks: the runner runs ses_a
    await t.cli.update((s) => ({ ...s, sessions: ["ses_a"], holds: [{ session: "ses_a", at: t.clock.now }] }))
    t.advance(500)
    await bystander.tick()
    expect(t.cli.read().state.holds).toEqual([{ session: "ses_a", at: t.clock.now - 500 }]) // not the bystander's
    await runner.tick()
    expect(t.cli.read().state.holds).toEqual([{ session: "ses_a", by: "iRunner", at: t.clock.now - 500 }])
    expect(runner.isPaused("ses_a")).toBe(true)
  })

  test("an old-format file (no holders) is read: its pauses are unclaimed, kept 24 hours, then dropped with one log line", async () => {
    const quarter = 15 * 60_000
    const t = twoProcesses(quarter)
    fs.mkdirSync(path.dirname(t.filePath), { recursive: true })
    fs.writeFileSync(t.filePath, '{"version":1,"all":false,"sessions":["ses_old"]}\n')
    const p = t.store("iA", 11)
    await p.start() // first read: the pause counts from now
    expect(p.holdOf("ses_old")).toMatchObject({ kind: "unclaimed" })
    for (let i = 1; i < 24 * 4; i++) {
      t.advance(quarter)
      await p.tick()
    }
    t.advance(quarter - 1)
    await p.tick()
    expect(t.cli.read().state.sessions).toEqual(["ses_old"]) // 1 ms short of 24 h
    t.advance(1)
    await p.tick()
    expect(t.cli.read().state.sessions).toEqual([])
    expect(t.logs.filter((l) => l.includes("ses_old"))).toEqual([expect.stringMatching(/^iA info dropped the pause of session ses_old: .*no running OpenCode claimed it within 24 hours/)])
  })

  test("--all off from the CLI survives plugin starts, says who set it, and goes after 24 hours", async () => {
    const t = twoProcesses(15 * 60_000)
    await t.cli.update((s) => ({ ...s, all: true, allHold: { at: t.clock.now } }))
    const p = t.store("iA", 11)
    await p.start()
    await t.store("iB", 22).start()
    expect(p.isPaused("ses_any")).toBe(true)
    expect(p.allHoldOf()).toMatchObject({ kind: "unclaimed", at: t.clock.now })
    for (let i = 1; i <= 24 * 4; i++) {
      t.advance(15 * 60_000)
      await p.tick()
      expect(t.cli.read().state.all).toBe(i < 24 * 4)
    }
    expect(p.allPaused()).toBe(false)
    expect(t.logs.filter((l) => l.includes("dropped the pause of all sessions"))).toHaveLength(1)
  })

  test("the lease is refreshed on the scheduler's beat and not after stop()", async () => {
    const t = twoProcesses()
    const timers: Array<() => void> = []
    const p = new FilePauses({ file: t.filePath, recheckMs: 500, now: () => t.clock.now, log: () => {}, identity: { id: "iS" }, schedule: (_ms, fn) => (timers.push(fn), () => {}) })
    await p.start()
    const at0 = t.cli.read().state.leases?.[0]?.at ?? 0
    // Checks every 500 ms; the lease (valid 3 s) is rewritten once it is half way to lapsing.
    for (let i = 0; i < 3; i++) {
      t.advance(500)
      timers.shift()?.()
      await p.settled()
    }
    expect(timers).toHaveLength(1)
    expect(t.cli.read().state.leases?.[0]?.at).toBe(at0 + 1500)
    p.stop()
    for (let i = 0; i < 3; i++) {
      t.advance(500)
      timers.shift()?.()
      await p.settled()
    }
    expect(timers).toHaveLength(0)
    expect(t.cli.read().state.leases?.[0]?.at).toBe(at0 + 1500)
  })
})

describe("isPauseControl", () => {
  test("tells a drivable store from a bare PauseSource", () => {
    expect(isPauseControl(setup().pauses)).toBe(true)
    expect(isPauseControl(new MemoryPauses())).toBe(false)
    expect(isPauseControl(undefined)).toBe(false)
  })
})
