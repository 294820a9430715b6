/**
 * `/auto-resume goal [<text> | off]` (pause/command.ts, pause/run-command.ts) against a real goal
 * file in a temp folder, and `auto-resume-toggle <sessionID> goal [<text> | off]` (cli/), with the
 * history line each set or clear adds. Each with its negative control.
 */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { EXIT_OK, EXIT_USAGE, main, parseArgs } from "../../../src/cli/auto-resume-toggle.ts"
import type { JournalEntry } from "../../../src/core/journal.ts"
import { parseGoalArguments, parsePauseArguments } from "../../../src/pause/command.ts"
import { runPauseCommand, type PauseCommandDeps } from "../../../src/pause/run-command.ts"
import { FileGoals, goalFilePath } from "../../../src/stores/goal-file.ts"
import { journalFilePath, readJournal } from "../../../src/stores/journal-file.ts"
import { FakePauses, NOW, sampleStatus } from "./helpers.ts"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function sandbox() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-goal-"))
  dirs.push(dir)
  const env = { XDG_CONFIG_HOME: dir, HOME: dir }
  const goals = new FileGoals({ file: goalFilePath(env), recheckMs: 0, time: { now: () => NOW, wall: () => NOW }, log: () => undefined })
  const notes: JournalEntry[] = []
  const deps: PauseCommandDeps = { pauses: new FakePauses(), status: () => undefined, now: () => NOW, goals, note: (e) => notes.push(e), goalLimits: { maxContinues: 25, maxMs: 14_400_000 } }
  const out: string[] = []
  const err: string[] = []
  const cli = (...argv: string[]) => main(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), env, now: () => NOW })
  return { dir, env, goals, notes, deps, out, err, cli }
}

describe("parsing /auto-resume goal", () => {
  test("goal, goal off, goal <text>: the text as typed, whitespace made one space", () => {
    expect(parseGoalArguments("goal")).toEqual({ action: "goal", goal: "show" })
    expect(parseGoalArguments(" GOAL  ")).toEqual({ action: "goal", goal: "show" })
    expect(parseGoalArguments("goal Off")).toEqual({ action: "goal", goal: "off" })
    expect(parsePauseArguments("goal Make `bun test`\n pass on CI")).toEqual({ action: "goal", goal: "set", text: "Make `bun test` pass on CI" })
    // Negative controls: other words are not goals, and the other actions still parse.
    expect(parseGoalArguments("goals are nice")).toBeUndefined()
    expect(parsePauseArguments("goalkeeper").action).toBe("usage")
    expect(parsePauseArguments("off")).toEqual({ action: "off" })
  })
})

describe("/auto-resume goal", () => {
  test("sets the goal in the goal file, says how it is bounded and met, and adds a history line", async () => {
    const s = sandbox()
    const r = await runPauseCommand("ses_a", "goal make the parser tests pass", s.deps)
    expect(r.action).toBe("goal")
    expect(r.text).toContain('auto-resume: goal set for this session: "make the parser tests pass".')
    expect(r.text).toMatch(/at most 25, for up to 4h 0m 0s[\s\S]*task_complete with evidence/)
    expect(new FileGoals({ file: goalFilePath(s.env), recheckMs: 0, time: { now: () => NOW }, log: () => undefined }).goalOf("ses_a")).toMatchObject({ text: "make the parser tests pass", status: "active" })
    expect(s.notes).toEqual([{ time: NOW, sessionID: "ses_a", trigger: "goal", evidence: '"make the parser tests pass"', action: "set by /auto-resume goal", outcome: "active" }])
  })

  test("shows it, replaces it, clears it; a clear with no goal changes nothing and adds no line", async () => {
    const s = sandbox()
    expect((await runPauseCommand("ses_a", "goal", s.deps)).text).toContain("No goal is set for this session")
    await runPauseCommand("ses_a", "goal first goal", s.deps)
    expect((await runPauseCommand("ses_a", "goal", s.deps)).text).toMatch(/^auto-resume goal for this session: "first goal": active since .*; continues 0\/25; 0s of 4h 0m 0s$/)
    expect((await runPauseCommand("ses_a", "goal second goal", s.deps)).text).toContain('It replaces the goal "first goal".')
    expect((await runPauseCommand("ses_a", "goal off", s.deps)).text).toContain('the goal "second goal" is cleared')
    expect((await runPauseCommand("ses_a", "goal", s.deps)).text).toMatch(/"second goal": cleared at .* after 0 continues \(cleared by \/auto-resume goal off\)/)
    const lines = s.notes.length
    expect((await runPauseCommand("ses_a", "goal off", s.deps)).text).toBe("No goal was active for this session; nothing changed.")
    expect(s.notes).toHaveLength(lines)
  })

  test("/auto-resume status shows the goal with the session's own budgets", async () => {
    const s = sandbox()
    expect((await runPauseCommand("ses_a", "status", s.deps)).text).toContain("Goal: none (/auto-resume goal <text> sets one)")
    await runPauseCommand("ses_a", "goal ship it", s.deps)
    const status = (await runPauseCommand("ses_a", "status", { ...s.deps, status: () => sampleStatus({ goalMaxContinues: 7 }) })).text
    expect(status).toMatch(/\nGoal: "ship it": active since .*; continues 0\/7; /)
    // Negative control: where no goals are kept, status has no goal line.
    expect((await runPauseCommand("ses_a", "status", { ...s.deps, goals: undefined })).text).not.toContain("Goal:")
  })
})

describe("auto-resume-toggle <sessionID> goal", () => {
  test("parses the goal's words; --all has no goal", () => {
    expect(parseArgs(["ses_a", "goal", "make", "it", "pass"])).toEqual({ kind: "goal", sessionID: "ses_a", goal: { goal: "set", text: "make it pass" } })
    expect(parseArgs(["ses_a", "GOAL"])).toEqual({ kind: "goal", sessionID: "ses_a", goal: { goal: "show" } })
    expect(parseArgs(["ses_a", "goal", "off"])).toEqual({ kind: "goal", sessionID: "ses_a", goal: { goal: "off" } })
    expect(parseArgs(["--all", "goal", "x"])).toMatchObject({ kind: "usage", reason: expect.stringMatching(/one session/) })
    expect(parseArgs(["ses/a", "goal", "x"])).toMatchObject({ kind: "usage", reason: expect.stringMatching(/path separator/) })
  })

  test("sets, shows and clears the goal in the file the plugin reads, each set or clear one history line", async () => {
    const s = sandbox()
    expect(await s.cli("ses_a", "goal", "make", "the", "tests", "pass")).toBe(EXIT_OK)
    expect(s.out.pop()).toBe('ses_a: goal set: "make the tests pass"')
    expect(s.goals.goalOf("ses_a")).toMatchObject({ text: "make the tests pass", status: "active" })
    expect(await s.cli("ses_a", "goal")).toBe(EXIT_OK)
    expect(s.out.pop()).toMatch(/^ses_a: goal "make the tests pass": active since .*, 0 continues so far$/)
    expect(await s.cli("ses_a", "status")).toBe(EXIT_OK)
    expect(s.out.at(-1)).toMatch(/^ {2}goal "make the tests pass": active/)
    expect(await s.cli("ses_a", "goal", "off")).toBe(EXIT_OK)
    expect(s.out.pop()).toBe('ses_a: goal cleared: "make the tests pass"')
    expect(await s.cli("ses_a", "goal", "off")).toBe(EXIT_OK)
    expect(s.out.pop()).toBe("ses_a: no goal was active; nothing changed")
    const history = readJournal(journalFilePath(s.env)).entries.map((e) => `${e.action}: ${e.outcome}`)
    expect(history).toEqual(["set by auto-resume-toggle: active", "cleared by auto-resume-toggle: cleared"])
    expect(fs.statSync(goalFilePath(s.env)).mode & 0o777).toBe(0o600)
    expect(s.err).toEqual([])
  })

  test("negative control: a pause command leaves the goal file alone; bad usage exits 2", async () => {
    const s = sandbox()
    expect(await s.cli("ses_a", "off")).toBe(EXIT_OK)
    expect(fs.existsSync(goalFilePath(s.env))).toBe(false)
    expect(await s.cli("--all", "goal", "x")).toBe(EXIT_USAGE)
  })
})
