/** auto-resume-toggle: usage, exit codes, and the bin shim under plain Node and Bun. */
import { afterEach, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, parseArgs } from "../../../src/cli/auto-resume-toggle.ts"

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
  const run = (...argv: string[]) => main(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), env })
  const file = path.join(dir, "opencode", "auto-resume.paused")
  return { dir, out, err, run, file, read: () => JSON.parse(fs.readFileSync(file, "utf8")) }
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
    expect(s.read()).toEqual({ version: 1, all: false, sessions: ["ses_a"] })
    expect(fs.statSync(s.file).mode & 0o777).toBe(0o600)
    expect(await s.run("ses_a", "status")).toBe(EXIT_OK)
    expect(await s.run("ses_a", "on")).toBe(EXIT_OK)
    expect(await s.run("ses_a", "status")).toBe(EXIT_OK)
    expect(s.out).toEqual(["ses_a: paused", "ses_a: paused", "ses_a: not paused", "ses_a: not paused"])
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
    expect(s.read()).toEqual({ version: 1, all: false, sessions: ["ses_a"] })
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
