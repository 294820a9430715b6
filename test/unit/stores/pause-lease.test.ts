/**
 * LeaseKeeper's checks: every one reads the pause file, and only those that must change it
 * write (lock, temp file, fsync, rename). A real file in a temp folder; time is injected.
 */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { PauseState } from "../../../src/core/pause-leases.ts"
import { LeaseKeeper } from "../../../src/stores/pause-lease.ts"
import { PauseMarkerFile } from "../../../src/stores/pause-marker.ts"
import type { StoreFs } from "../../../src/stores/atomic-file.ts"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/** The default check interval; the lease is then valid 20 s and rewritten at 10 s. */
const INTERVAL = 5000

type Checked = { state: PauseState; problem: string | undefined }

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-keeper-"))
  dirs.push(dir)
  const filePath = path.join(dir, "opencode", "auto-resume.paused")
  const clock = { now: Date.UTC(2026, 11, 1, 12) }
  const io = { writes: 0, fsyncs: 0, locks: 0, failReads: false }
  // Our process's fs, counted: a write is a rename onto the marker.
  const counted: StoreFs = {
    ...fs,
    renameSync: ((from: fs.PathLike, to: fs.PathLike) => {
      if (String(to) === filePath) io.writes++
      return fs.renameSync(from, to)
    }) as typeof fs.renameSync,
    fsyncSync: ((fd: number) => {
      io.fsyncs++
      return fs.fsyncSync(fd)
    }) as typeof fs.fsyncSync,
    openSync: ((p: fs.PathLike, flags?: unknown, mode?: unknown) => {
      if (String(p) === `${filePath}.lock` && flags === "wx") io.locks++
      if (io.failReads && String(p) === filePath && flags === "r") throw Object.assign(new Error("EIO"), { code: "EIO", syscall: "open" })
      return fs.openSync(p, flags as never, mode as never)
    }) as typeof fs.openSync,
  }
  const checks: Checked[] = []
  const logs: string[] = []
  const timers: Array<() => void> = []
  const keeper = (id = "iMe", pid = 7, schedule = false) =>
    new LeaseKeeper({
      file: new PauseMarkerFile(filePath, { fs: counted }),
      refreshMs: INTERVAL,
      now: () => clock.now,
      identity: { id, pid },
      schedule: schedule ? (_ms, fn) => (timers.push(fn), () => {}) : undefined,
      checked: (state, problem) => void checks.push({ state, problem }),
      log: (level, text) => void logs.push(`${id} ${level} ${text}`),
    })
  // Another process (the CLI) on the same file, its writes not counted as ours.
  const cli = new PauseMarkerFile(filePath)
  const fileStamp = () => {
    const st = fs.statSync(filePath)
    return { ino: st.ino, mtimeMs: st.mtimeMs, text: fs.readFileSync(filePath, "utf8") }
  }
  const ours = (id = "iMe") => cli.read().state.leases?.find((l) => l.id === id)
  return { filePath, clock, io, checks, logs, timers, keeper, cli, fileStamp, ours, advance: (ms: number) => void (clock.now += ms) }
}

describe("LeaseKeeper checks", () => {
  test("a check with a fresh lease and nothing to tidy reads the file and writes nothing", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    expect(t.io.writes).toBe(1) // the first check puts the lease in
    const before = t.fileStamp()
    const io = { ...t.io }
    t.advance(INTERVAL)
    await k.tick()
    expect(t.fileStamp()).toEqual(before) // same inode, mtime and content
    expect(t.io).toEqual(io) // no lock, no fsync, no rename
    expect(t.checks).toHaveLength(2) // the check still reported the file
    expect(t.checks[1]).toEqual({ state: t.cli.read().state, problem: undefined })
  })

  test("negative control: a lease half way to lapsing is rewritten, one ms younger is not", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    const at0 = t.ours()!.at
    t.advance(10_000 - 1)
    await k.tick()
    expect([t.io.writes, t.ours()!.at]).toEqual([1, at0])
    t.advance(1)
    await k.tick()
    expect([t.io.writes, t.io.fsyncs, t.io.locks, t.ours()!.at]).toEqual([2, 2, 2, at0 + 10_000])
  })

  test("a CLI pause appearing between checks is seen at the next check without a write by us; a claim due writes", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    await t.cli.update((s) => ({ ...s, sessions: ["ses_c"], holds: [{ session: "ses_c", at: t.clock.now }] }))
    const cliWrote = t.fileStamp()
    t.advance(INTERVAL)
    await k.tick()
    expect(t.checks.at(-1)?.state.sessions).toEqual(["ses_c"])
    expect(t.io.writes).toBe(1)
    expect(t.fileStamp()).toEqual(cliWrote)
    // The engine asks about ses_c: this process runs it, so the next check claims it (a write).
    k.noteRun("ses_c")
    t.advance(INTERVAL)
    await k.tick()
    expect(t.io.writes).toBe(2)
    expect(t.cli.read().state.holds).toEqual([{ session: "ses_c", by: "iMe", at: t.clock.now - 2 * INTERVAL }]) // claimed, keeping when it was made
    expect(t.checks.at(-1)?.state.holds?.[0]?.by).toBe("iMe")
  })

  test("a lapsed holder's pause is dropped at the next check, with a write and one log line", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    const gone = { id: "iGone", pid: 9, since: t.clock.now - 60_000, at: t.clock.now - 15_000, ttlMs: 20_000 }
    await t.cli.update((s) => ({ ...s, sessions: ["ses_g"], holds: [{ session: "ses_g", by: "iGone", at: t.clock.now - 30_000 }], leases: [...(s.leases ?? []), gone] }))
    t.advance(INTERVAL)
    await k.tick()
    expect([t.io.writes, t.cli.read().state.sessions.length]).toEqual([1, 1]) // not lapsed yet (15 s + 5 s)
    t.advance(1)
    await k.tick()
    expect(t.io.writes).toBe(2)
    expect(t.cli.read().state.sessions).toEqual([])
    expect(t.cli.read().state.leases?.map((l) => l.id)).toEqual(["iMe"])
    expect(t.logs.filter((l) => l.includes("dropped the pause of session ses_g"))).toHaveLength(1)
  })

  test("our lease taken out of the file (or the file deleted) is put back at the next check", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    fs.rmSync(t.filePath)
    t.advance(INTERVAL)
    await k.tick()
    expect([t.io.writes, t.ours()?.at]).toEqual([2, t.clock.now])
  })

  test("a malformed file takes the locked rewrite, as before, and the check reports the problem", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    fs.writeFileSync(t.filePath, "junk")
    t.advance(INTERVAL)
    await k.tick()
    expect(t.io.writes).toBe(2)
    expect(t.checks.at(-1)?.problem).toMatch(/not valid JSON/)
    expect(t.ours()?.at).toBe(t.clock.now)
    // A problem that leaves our lease readable and fresh (one bad entry beside it) is rewritten too.
    const good = JSON.parse(fs.readFileSync(t.filePath, "utf8"))
    fs.writeFileSync(t.filePath, JSON.stringify({ ...good, leases: [...good.leases, { id: "iBad" }] }))
    t.advance(INTERVAL)
    await k.tick()
    expect(t.io.writes).toBe(3)
    expect(t.checks.at(-1)?.problem).toMatch(/1 malformed holder or lease entry dropped/)
    expect(t.cli.read().problem).toBeUndefined()
  })

  test("a read that fails takes the locked update, as before: it fails there too and says so once per check", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    t.io.failReads = true
    t.advance(INTERVAL)
    await k.tick()
    expect(t.io.locks).toBe(2) // the update was tried
    expect(t.checks).toHaveLength(1)
    expect(t.logs).toEqual([expect.stringMatching(/^iMe warn cannot refresh this OpenCode's lease in the pause file: .*EIO/)])
    t.io.failReads = false
    t.advance(INTERVAL)
    await k.tick()
    expect(t.checks).toHaveLength(2)
  })

  test("leaving still takes the lease out of the file after quiet checks", async () => {
    const t = setup()
    const k = t.keeper()
    await k.start()
    t.advance(INTERVAL)
    await k.tick()
    expect(k.leave()).toBe(true)
    expect(t.cli.read().state.leases ?? []).toEqual([])
  })

  test("two processes on one file do not take each other's writes for changes", async () => {
    const t = setup()
    const a = t.keeper("iA", 11)
    const b = t.keeper("iB", 22)
    await a.start()
    t.advance(INTERVAL / 2)
    await b.start()
    for (let i = 0; i < 12; i++) {
      t.advance(INTERVAL / 2)
      await a.tick()
      t.advance(INTERVAL / 2)
      await b.tick()
    }
    // 60 s each: the first check, then a rewrite every 10 s (at 10, 20, ... 60 s).
    expect(t.io.writes).toBe(2 * 7)
  })

  test("writes of the pause file over 60 simulated seconds at the default interval: 7 (the start, then every 10 s)", async () => {
    const t = setup()
    const k = t.keeper("iMe", 7, true)
    await k.start()
    for (let s = INTERVAL; s <= 60_000; s += INTERVAL) {
      t.advance(INTERVAL)
      t.timers.shift()?.()
      await k.settled()
    }
    expect(t.checks).toHaveLength(13) // every check still ran and reported the file
    expect([t.io.writes, t.io.fsyncs, t.io.locks]).toEqual([7, 7, 7])
    k.stop()
  })
})
