/** auto-resume-toggle: usage, exit codes, and the bin shim under plain Node and Bun. */
import { afterEach, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, parseArgs } from "../../../src/cli/auto-resume-toggle.ts"

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0)
const HOUR = 3_600_000
const BIN = path.resolve(import.meta.dir, "../../../bin/auto-resume-toggle.mjs")

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function sandbox() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-cli-"))
  dirs.push(dir)
  const out: string[] = []
  const err: string[] = []
  const env = { XDG_CONFIG_HOME: dir, HOME: dir }
  const clock = { now: NOW }
  const run = (...argv: string[]) => main(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), env, now: () => clock.now })
  const file = path.join(dir, "opencode", "auto-resume.paused")
  return { dir, out, err, run, file, clock, read: () => JSON.parse(fs.readFileSync(file, "utf8")) }
}

describe("argument parsing", () => {
  test.each([
    [[], /missing arguments/],
    [["ses_a"], /missing action/],
    [["ses_a", "maybe"], /unknown action "maybe"/],
    [["ses_a", "off", "extra"], /too many arguments/],
    [["--all"], /missing action after --all/],
    [["--all", "pause"], /unknown action/],
    [["--verbose", "off"], /unknown option/],
    [["ses/a", "off"], /path separator/],
    [["ses\u0007", "off"], /control characters/],
    [["x".repeat(200), "off"], /longer than/],
  ])("%j is bad usage", (argv, reason) => {
    const parsed = parseArgs(argv)
    expect(parsed.kind).toBe("usage")
    expect(parsed.kind === "usage" && parsed.reason).toMatch(reason)
  })

  test("good forms", () => {
    expect(parseArgs(["ses_a", "OFF"])).toEqual({ kind: "run", target: { all: false, sessionID: "ses_a" }, action: "off" })
    expect(parseArgs(["--all", "on"])).toEqual({ kind: "run", target: { all: true }, action: "on" })
    expect(parseArgs(["ses_a", "off", "--help"])).toEqual({ kind: "help" })
    expect(parseArgs(["-h"])).toEqual({ kind: "help" })
  })
})

describe("main", () => {
  test("--help prints usage and the pause file path, exit 0", async () => {
    const s = sandbox()
    expect(await s.run("--help")).toBe(EXIT_OK)
    expect(s.out.join("\n")).toContain("Usage: auto-resume-toggle <sessionID> off|on|status")
    expect(s.out.join("\n")).toContain(s.file)
    expect(s.err).toEqual([])
  })

  test("bad usage: exit 2, one line on stderr, nothing written", async () => {
    const s = sandbox()
    expect(await s.run("ses_a", "sideways")).toBe(EXIT_USAGE)
    expect(s.err).toHaveLength(1)
    expect(s.err[0]).toMatch(/^auto-resume-toggle: unknown action "sideways"/)
    expect(s.err[0]).not.toContain("\n")
    expect(fs.existsSync(s.file)).toBe(false)
  })

  test("off, status, on for one session", async () => {
    const s = sandbox()
    expect(await s.run("ses_a", "off")).toBe(EXIT_OK)
    // Held by nobody yet: the OpenCode that runs ses_a claims it at its next check.
    expect(s.read()).toEqual({ version: 1, all: false, sessions: ["ses_a"], holds: [{ session: "ses_a", at: NOW }] })
    expect(fs.statSync(s.file).mode & 0o777).toBe(0o600)
    s.clock.now += 60_000
    expect(await s.run("ses_a", "status")).toBe(EXIT_OK)
    expect(await s.run("ses_a", "on")).toBe(EXIT_OK)
    expect(await s.run("ses_a", "status")).toBe(EXIT_OK)
    expect(s.out.filter((l) => !l.startsWith("  "))).toEqual(["ses_a: paused", "ses_a: paused", "ses_a: not paused", "ses_a: not paused"])
    // The status says who holds it and since when.
    expect(s.out[2]).toMatch(/^ {2}set since .* \(1m 0s ago\), not claimed by any running OpenCode yet; dropped at .* unless one claims it$/)
    expect(s.out).toHaveLength(5)
  })

  test("--all off and on", async () => {
    const s = sandbox()
    await s.run("ses_a", "off")
    expect(await s.run("--all", "off")).toBe(EXIT_OK)
    expect(await s.run("ses_b", "status")).toBe(EXIT_OK)
    expect(await s.run("--all", "on")).toBe(EXIT_OK)
    expect(s.read()).toEqual({ version: 1, all: false, sessions: [] })
    expect(s.out.slice(1)).toEqual([
      "all sessions: paused; paused one by one: ses_a",
      "ses_b: paused (all sessions are paused; auto-resume-toggle --all on lifts it)",
      expect.stringMatching(/^ {2}all sessions: set since .*not claimed by any running OpenCode yet/),
      "all sessions: not paused (every pause lifted)",
    ])
  })

  test("a corrupted file: one warning, treated as empty, rewritten", async () => {
    const s = sandbox()
    fs.mkdirSync(path.dirname(s.file), { recursive: true })
    fs.writeFileSync(s.file, "\u0000\u0001 not json")
    expect(await s.run("ses_a", "off")).toBe(EXIT_OK)
    expect(s.err).toHaveLength(1)
    expect(s.err[0]).toMatch(/warning: .* was not a usable pause file \(it is not valid JSON\)/)
    expect(s.read()).toMatchObject({ version: 1, all: false, sessions: ["ses_a"] })
  })

  test("status names the running OpenCode that holds a pause; the leases are left alone", async () => {
    const s = sandbox()
    fs.mkdirSync(path.dirname(s.file), { recursive: true })
    const lease = { id: "iLive", pid: 4242, host: "box", since: NOW - HOUR, at: NOW - 1000, ttlMs: 20_000 }
    const file = { version: 1, all: false, sessions: ["ses_a"], holds: [{ session: "ses_a", by: "iLive", at: NOW - 5 * 60_000 }], leases: [lease] }
    fs.writeFileSync(s.file, JSON.stringify(file))
    expect(await s.run("ses_a", "status")).toBe(EXIT_OK)
    expect(s.out).toEqual(["ses_a: paused", expect.stringMatching(/^ {2}held by the OpenCode process pid 4242 on box since .* \(5m 0s ago\); a restart of that process lifts the pause$/)])
    expect(await s.run("--all", "on")).toBe(EXIT_OK)
    expect(s.read()).toEqual({ version: 1, all: false, sessions: [], leases: [lease] })
    expect(s.err).toEqual([])
  })

  test("a run drops, with a note, a pause nobody claimed for 24 hours and one whose holder is gone; not before", async () => {
    const s = sandbox()
    fs.mkdirSync(path.dirname(s.file), { recursive: true })
    const dead = { id: "iDead", pid: 4343, since: NOW - HOUR, at: NOW - 30_000, ttlMs: 20_000 }
    const file = {
      version: 1,
      all: false,
      sessions: ["ses_cli", "ses_dead"],
      holds: [{ session: "ses_cli", at: NOW - 24 * HOUR + 1000 }, { session: "ses_dead", by: "iDead", at: NOW - HOUR }],
      leases: [dead],
    }
    fs.writeFileSync(s.file, JSON.stringify(file))
    expect(await s.run("ses_cli", "status")).toBe(EXIT_OK)
    expect(s.out[0]).toBe("ses_cli: paused") // 1 s short of 24 h: kept
    expect(s.err).toEqual([expect.stringMatching(/note: dropped the pause of session ses_dead .*pid 4343 that held it is no longer running/)])
    s.clock.now += 1000
    expect(await s.run("ses_cli", "status")).toBe(EXIT_OK)
    expect(s.out.at(-1)).toBe("ses_cli: not paused")
    expect(s.err.slice(1)).toEqual([expect.stringMatching(/note: dropped the pause of session ses_cli: it was set at .* and no running OpenCode claimed it within 24 hours/)])
    expect(s.read()).toEqual({ version: 1, all: false, sessions: [] })
  })

  test("an unwritable location: exit 1 with the reason", async () => {
    const s = sandbox()
    fs.writeFileSync(path.join(s.dir, "opencode"), "a file where the folder should be")
    expect(await s.run("ses_a", "off")).toBe(EXIT_FAILED)
    expect(s.err).toHaveLength(1)
    expect(s.err[0]).toMatch(/^auto-resume-toggle: cannot create/)
  })
})

describe("bin/auto-resume-toggle.mjs", () => {
  const run = (runtime: string, args: string[], dir: string) =>
    spawnSync(runtime, [BIN, ...args], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", XDG_CONFIG_HOME: dir, HOME: dir }, timeout: 30_000 })

  test.each([
    ["node", "node"],
    ["bun", process.execPath],
  ])("runs from this checkout under %s", (_name, runtime) => {
    const s = sandbox()
    const off = run(runtime, ["ses_shim", "off"], s.dir)
    expect(off.stderr).toBe("")
    expect(off.stdout).toBe("ses_shim: paused\n")
    expect(off.status).toBe(0)
    expect(s.read().sessions).toEqual(["ses_shim"])
    const bad = run(runtime, ["ses_shim"], s.dir)
    expect(bad.status).toBe(2)
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    const help = run(runtime, ["--help"], s.dir)
    expect(help.status).toBe(0)
    expect(help.stdout).toContain("--all off|on|status")
  }, 60_000)
})

describe("rate-limit waits in the CLI", () => {
  const writeWaits = (dir: string, waits: unknown[]) => {
    const file = path.join(dir, "opencode", "auto-resume.rate-waits.json")
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, JSON.stringify({ waits }))
    return () => JSON.parse(fs.readFileSync(file, "utf8")).waits as { sessionID: string }[]
  }
  const owner = { pid: 4_000_001, startedAt: 1, host: "h" }

  test("status names a session's wait and says when it was carried over from a restart", async () => {
    const s = sandbox()
    writeWaits(s.dir, [{ sessionID: "ses_a", rung: 2, until: NOW + HOUR, owner, carriedOver: true }, { sessionID: "ses_b", rung: 1, until: NOW + HOUR, owner }])
    expect(await s.run("ses_a", "status")).toBe(EXIT_OK)
    const text = s.out.join("\n")
    expect(text).toMatch(/waiting for the rate limit \(carried over from a restart\) until .*, hit 2, held by pid 4000001/)
    // Negative control: another session's wait is not shown.
    expect(text).not.toContain("hit 1")
  })

  test("a pause takes the session's wait out of the file; negative control: status leaves it", async () => {
    const s = sandbox()
    const read = writeWaits(s.dir, [{ sessionID: "ses_a", rung: 1, until: NOW + HOUR, owner }, { sessionID: "ses_b", rung: 1, until: NOW + HOUR, owner }])
    await s.run("ses_a", "status")
    expect(read().map((w) => w.sessionID)).toEqual(["ses_a", "ses_b"])
    expect(await s.run("ses_a", "off")).toBe(EXIT_OK)
    expect(read().map((w) => w.sessionID)).toEqual(["ses_b"])
    expect(s.out.join("\n")).toContain("the pause ended 1 rate-limit wait(s)")
  })
})
