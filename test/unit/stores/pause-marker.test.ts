/** The pause marker store: format, validation, atomic locked writes, stale locks, bad files. */
import { afterEach, describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { StateFileError, type StoreFs } from "../../../src/stores/atomic-file.ts"
import {
  MAX_PAUSED_SESSIONS,
  MAX_PAUSE_FILE_BYTES,
  MAX_SESSION_ID_LENGTH,
  PauseMarkerFile,
  parsePauseFile,
  pauseFilePath,
  serializePauseState,
  sessionIdProblem,
} from "../../../src/stores/pause-marker.ts"

const BUN = process.execPath
const MARKER_MODULE = path.resolve(import.meta.dir, "../../../src/stores/pause-marker.ts")

const dirs: string[] = []
function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-marker-"))
  dirs.push(dir)
  return path.join(dir, "opencode", "auto-resume.paused")
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const add = (id: string) => (s: { all: boolean; sessions: string[] }) => ({ ...s, sessions: [...s.sessions, id] })

describe("location", () => {
  test("XDG_CONFIG_HOME when absolute, else ~/.config", () => {
    expect(pauseFilePath({ XDG_CONFIG_HOME: "/x/cfg", HOME: "/home/u" })).toBe("/x/cfg/opencode/auto-resume.paused")
    expect(pauseFilePath({ XDG_CONFIG_HOME: "relative", HOME: "/home/u" })).toBe("/home/u/.config/opencode/auto-resume.paused")
    expect(pauseFilePath({}, () => "/h")).toBe("/h/.config/opencode/auto-resume.paused")
  })
})

describe("session ids", () => {
  test("accepts OpenCode ids and rejects separators, control characters, length", () => {
    expect(sessionIdProblem("ses_2a0d55f1cffeAbCdEf0123456789")).toBeUndefined()
    expect(sessionIdProblem("../etc/passwd")).toContain("path separator")
    expect(sessionIdProblem("a\\b")).toContain("path separator")
    expect(sessionIdProblem("ses_\u001b[31m")).toContain("control")
    expect(sessionIdProblem("ses x")).toContain("whitespace")
    expect(sessionIdProblem("")).toContain("empty")
    expect(sessionIdProblem("-rf")).toContain("'-'")
    expect(sessionIdProblem("x".repeat(MAX_SESSION_ID_LENGTH + 1))).toContain("longer")
    expect(sessionIdProblem("x".repeat(MAX_SESSION_ID_LENGTH))).toBeUndefined()
    expect(sessionIdProblem(42)).toContain("string")
  })

  test("a write with a bad id is refused with a clear error and leaves the file alone", async () => {
    const file = new PauseMarkerFile(tempFile())
    await file.update(add("ses_ok"))
    await expect(file.update(add("ses/../../x"))).rejects.toThrow(/path separator/)
    expect(file.read().state.sessions).toEqual(["ses_ok"])
  })
})

describe("format", () => {
  test("holders and leases round trip; the file stays a version 1 file an older reader accepts", () => {
    const state = {
      all: true,
      sessions: ["ses_a", "ses_b"],
      allHold: { at: 5 },
      holds: [{ session: "ses_a", by: "iX", at: 1 }, { session: "ses_b", at: 2 }],
      leases: [{ id: "iX", pid: 9, host: "box", since: 1, at: 3, ttlMs: 20_000 }],
    }
    const text = serializePauseState(state)
    expect(parsePauseFile(text)).toEqual({ state, problem: undefined })
    const asOld = JSON.parse(text)
    expect([asOld.version, asOld.all, asOld.sessions]).toEqual([1, true, ["ses_a", "ses_b"]])
  })

  test("a full file (every cap reached, the longest ids and host names) stays readable", () => {
    const id = (i: number) => `s${String(i).padStart(MAX_SESSION_ID_LENGTH - 1, "0")}`
    const holder = "i".repeat(MAX_SESSION_ID_LENGTH)
    const sessions = Array.from({ length: MAX_PAUSED_SESSIONS }, (_, i) => id(i))
    const state = {
      all: true,
      sessions,
      allHold: { by: holder, at: Date.now() },
      holds: sessions.map((session) => ({ session, by: holder, at: Date.now() })),
      leases: Array.from({ length: 64 }, (_, i) => ({ id: `${holder.slice(3)}${String(i).padStart(3, "0")}`, pid: 4_000_000, host: "h".repeat(255), since: Date.now(), at: Date.now(), ttlMs: 3_600_000 })),
    }
    const text = serializePauseState(state)
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_PAUSE_FILE_BYTES)
    expect(parsePauseFile(text).state).toEqual(state)
  })

  test("the older layout (no holders, no leases) is read as it was", () => {
    expect(parsePauseFile('{"version":1,"all":false,"sessions":["ses_a"]}\n')).toEqual({ state: { all: false, sessions: ["ses_a"] }, problem: undefined })
  })

  test("bad holder and lease entries are dropped with a problem; the pauses stay", () => {
    const text = JSON.stringify({
      version: 1,
      all: false,
      sessions: ["ses_a"],
      holds: [{ session: "ses_a", by: "i/x", at: 1 }, { session: "ses_gone", at: 1 }, "junk"],
      leases: [{ id: "iX", since: 1, at: "soon", ttlMs: 1 }, { id: "iY", since: 1, at: 2, ttlMs: 3, host: "h\u001b[31m" }],
    })
    const r = parsePauseFile(text)
    expect(r.state.sessions).toEqual(["ses_a"])
    expect(r.state.holds).toBeUndefined()
    expect(r.state.leases).toEqual([{ id: "iY", since: 1, at: 2, ttlMs: 3, host: "h?[31m" }])
    expect(r.problem).toMatch(/3 malformed holder or lease entries dropped/)
  })

  test("round trip", () => {
    const text = serializePauseState({ all: true, sessions: ["ses_a", "ses_b"] })
    expect(text).toBe('{"version":1,"all":true,"sessions":["ses_a","ses_b"]}\n')
    expect(parsePauseFile(text)).toEqual({ state: { all: true, sessions: ["ses_a", "ses_b"] }, problem: undefined })
  })

  test("an empty file is an empty state without complaint", () => {
    expect(parsePauseFile("  \n")).toEqual({ state: { all: false, sessions: [] } })
  })

  test.each([
    ["not JSON", "{nope", /not valid JSON/],
    ["an array", "[1,2]", /not a JSON object/],
    ["foreign JSON", '{"theme":"dark"}', /version/],
    ["a future version", '{"version":2,"all":true,"sessions":[]}', /version/],
    ["wrong field types", '{"version":1,"all":"yes","sessions":[]}', /boolean/],
  ])("%s reads as empty with a problem", (_name, text, problem) => {
    const r = parsePauseFile(text)
    expect(r.state).toEqual({ all: false, sessions: [] })
    expect(r.problem).toMatch(problem)
  })

  test("invalid ids are dropped, duplicates merged, the list capped", () => {
    const many = Array.from({ length: MAX_PAUSED_SESSIONS + 5 }, (_, i) => `ses_${i}`)
    const r = parsePauseFile(JSON.stringify({ version: 1, all: false, sessions: ["ses_a", "ses_a", "a/b", 7, ...many] }))
    expect(r.state.sessions.length).toBe(MAX_PAUSED_SESSIONS)
    expect(r.state.sessions[0]).toBe("ses_a")
    expect(r.problem).toMatch(/2 invalid/)
    expect(r.problem).toMatch(/beyond the limit/)
  })
})

describe("file", () => {
  test("missing file reads as empty; writes create it with mode 0600", async () => {
    const p = tempFile()
    const file = new PauseMarkerFile(p)
    expect(file.read()).toEqual({ state: { all: false, sessions: [] } })
    expect(file.signature()).toBe("absent")
    await file.update(add("ses_a"))
    expect(fs.statSync(p).mode & 0o777).toBe(0o600)
    expect(fs.readFileSync(p, "utf8")).toBe('{"version":1,"all":false,"sessions":["ses_a"]}\n')
    // Mode 0600 even when the file it replaces was world-readable.
    fs.chmodSync(p, 0o644)
    await file.update(add("ses_b"))
    expect(fs.statSync(p).mode & 0o777).toBe(0o600)
    // No temp or lock files left behind.
    expect(fs.readdirSync(path.dirname(p))).toEqual(["auto-resume.paused"])
  })

  test("every write changes the signature", async () => {
    const file = new PauseMarkerFile(tempFile())
    await file.update((s) => s)
    const before = file.signature()
    await file.update((s) => s) // same bytes, new inode
    expect(file.signature()).not.toBe(before)
  })

  test("a corrupted file is read as empty, reported, and rewritten cleanly", async () => {
    const p = tempFile()
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, '{"version":1,"sessions":["ses_a"')
    const file = new PauseMarkerFile(p)
    expect(file.read().problem).toMatch(/not valid JSON/)
    const r = await file.update(add("ses_b"))
    expect(r.problem).toMatch(/not valid JSON/)
    expect(fs.readFileSync(p, "utf8")).toBe('{"version":1,"all":false,"sessions":["ses_b"]}\n')
    expect(file.read().problem).toBeUndefined()
  })

  test("an oversized file is not read", async () => {
    const p = tempFile()
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, " ".repeat(MAX_PAUSE_FILE_BYTES + 1))
    expect(new PauseMarkerFile(p).read().problem).toMatch(/larger than/)
  })

  test("a pause beyond the cap is refused", async () => {
    const p = tempFile()
    const file = new PauseMarkerFile(p)
    await file.update(() => ({ all: false, sessions: Array.from({ length: MAX_PAUSED_SESSIONS }, (_, i) => `ses_${i}`) }))
    await expect(file.update(add("ses_one_more"))).rejects.toThrow(/too many paused sessions/)
    expect(file.read().state.sessions.length).toBe(MAX_PAUSED_SESSIONS)
  })

  test("a failed write leaves the previous file intact and no temp file behind (atomic)", async () => {
    const p = tempFile()
    await new PauseMarkerFile(p).update(add("ses_a"))
    const failingRename: StoreFs = {
      ...fs,
      renameSync: ((from: fs.PathLike, to: fs.PathLike) => {
        if (String(to) === p) throw Object.assign(new Error("EIO"), { code: "EIO", syscall: "rename" })
        return fs.renameSync(from, to)
      }) as typeof fs.renameSync,
    }
    const file = new PauseMarkerFile(p, { fs: failingRename })
    await expect(file.update(add("ses_b"))).rejects.toThrow(StateFileError)
    expect(fs.readFileSync(p, "utf8")).toBe('{"version":1,"all":false,"sessions":["ses_a"]}\n')
    expect(fs.readdirSync(path.dirname(p))).toEqual(["auto-resume.paused"])
  })

  test("I/O errors surface as StateFileError", () => {
    const denied: StoreFs = {
      ...fs,
      openSync: (() => {
        throw Object.assign(new Error("denied"), { code: "EACCES", syscall: "open" })
      }) as unknown as typeof fs.openSync,
      statSync: (() => {
        throw Object.assign(new Error("denied"), { code: "EACCES", syscall: "stat" })
      }) as unknown as typeof fs.statSync,
    }
    const file = new PauseMarkerFile(tempFile(), { fs: denied })
    expect(() => file.read()).toThrow(/EACCES/)
    expect(() => file.signature()).toThrow(/EACCES/)
  })
})

describe("locking", () => {
  function writeLock(p: string, info: Record<string, unknown>) {
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(`${p}.lock`, JSON.stringify(info))
  }

  test("a lock left by a dead process on this host is broken", async () => {
    const p = tempFile()
    const dead = spawnSync(BUN, ["-e", "0"]).pid!
    writeLock(p, { pid: dead, host: os.hostname(), token: "old", at: 0 })
    const file = new PauseMarkerFile(p, { isAlive: (pid) => pid !== dead })
    await file.update(add("ses_a"))
    expect(file.read().state.sessions).toEqual(["ses_a"])
    expect(fs.existsSync(`${p}.lock`)).toBe(false)
    expect(fs.readdirSync(path.dirname(p))).toEqual(["auto-resume.paused"])
  })

  test("a lock older than the stale limit is broken even if its owner is elsewhere", async () => {
    const p = tempFile()
    writeLock(p, { pid: 1, host: "another-host", token: "old", at: 0 })
    const file = new PauseMarkerFile(p, { now: () => Date.now() + 60_000 })
    await file.update(add("ses_a"))
    expect(file.read().state.sessions).toEqual(["ses_a"])
  })

  test("a fresh lock held by a live process makes the writer wait, then give up", async () => {
    const p = tempFile()
    writeLock(p, { pid: 4242, host: os.hostname(), token: "theirs", at: Date.now() })
    let clock = Date.now()
    const waits: number[] = []
    const file = new PauseMarkerFile(p, {
      isAlive: () => true,
      now: () => clock,
      lockTimeoutMs: 1000,
      sleep: async (ms) => {
        waits.push(ms)
        clock += ms
      },
    })
    await expect(file.update(add("ses_a"))).rejects.toThrow(/timed out waiting for the lock.*pid 4242/)
    expect(waits.length).toBeGreaterThan(3)
    // The other writer's lock is untouched.
    expect(JSON.parse(fs.readFileSync(`${p}.lock`, "utf8")).token).toBe("theirs")
  })

  test("a writer proceeds as soon as the holder releases", async () => {
    const p = tempFile()
    writeLock(p, { pid: 4242, host: os.hostname(), token: "theirs", at: Date.now() })
    let sleeps = 0
    const file = new PauseMarkerFile(p, {
      isAlive: () => true,
      sleep: async () => {
        if (++sleeps === 3) fs.unlinkSync(`${p}.lock`)
      },
    })
    await file.update(add("ses_a"))
    expect(sleeps).toBe(3)
    expect(file.read().state.sessions).toEqual(["ses_a"])
  })

  test(
    "two writer processes running at once never lose each other's entries; readers never see a torn file",
    async () => {
      const p = tempFile()
      const dir = path.dirname(path.dirname(p))
      const go = path.join(dir, "go")
      const N = 60
      const worker = path.join(dir, "worker.ts")
      fs.writeFileSync(
        worker,
        `import fs from "node:fs"
import { PauseMarkerFile } from ${JSON.stringify(MARKER_MODULE)}
const [role, file, go, n] = process.argv.slice(2)
const store = new PauseMarkerFile(file)
console.log("ready")
while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 2))
if (role === "reader") {
  let bad = 0, reads = 0
  const until = Date.now() + 1500
  while (Date.now() < until) { reads++; if (store.read().problem) bad++; await new Promise((r) => setImmediate(r)) }
  console.log(JSON.stringify({ bad, reads }))
} else {
  for (let i = 0; i < Number(n); i++) await store.update((s) => ({ ...s, sessions: [...s.sessions, role + "_" + i] }))
  console.log("done")
}
`,
      )
      const run = (role: string) => {
        const child = spawn(BUN, [worker, role, p, go, String(N)], { stdio: ["ignore", "pipe", "pipe"] })
        let out = ""
        let err = ""
        child.stdout.on("data", (d) => (out += d))
        child.stderr.on("data", (d) => (err += d))
        const ready = new Promise<void>((resolve) => child.stdout.on("data", () => out.includes("ready") && resolve()))
        const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on("exit", (code) => resolve({ code, out, err })))
        return { ready, exited }
      }
      const a = run("wa")
      const b = run("wb")
      const reader = run("reader")
      await Promise.all([a.ready, b.ready, reader.ready])
      fs.writeFileSync(go, "")
      const [ra, rb, rr] = await Promise.all([a.exited, b.exited, reader.exited])
      expect(ra.code).toBe(0)
      expect(rb.code).toBe(0)
      expect(rr.code).toBe(0)
      const sessions = new PauseMarkerFile(p).read().state.sessions
      expect(sessions.length).toBe(2 * N)
      for (let i = 0; i < N; i++) {
        expect(sessions).toContain(`wa_${i}`)
        expect(sessions).toContain(`wb_${i}`)
      }
      const stats = JSON.parse(rr.out.trim().split("\n").at(-1)!)
      expect(stats.reads).toBeGreaterThan(0)
      expect(stats.bad).toBe(0)
      expect(fs.existsSync(`${p}.lock`)).toBe(false)
    },
    30_000,
  )
})
