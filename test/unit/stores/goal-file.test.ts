/**
 * The goal file (stores/goal-file.ts) on a real temp folder, and the record rules it applies
 * (core/goals.ts): one goal per session, atomic 0600 writes under the shared lock, a bounded
 * read, bad files and entries, a change aimed at an older goal, a restart, a deleted session.
 * Each rule with its negative control.
 */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import {
  boundedGoals,
  ENDED_GOAL_KEPT_MS,
  goalText,
  MAX_GOAL_TEXT,
  MAX_GOALS,
  parseGoals,
  withGoalChange,
  withGoalCleared,
  withGoalSet,
  type GoalRecord,
} from "../../../src/core/goals.ts"
import { FileGoals, GoalFile, goalFilePath, MAX_GOAL_FILE_BYTES } from "../../../src/stores/goal-file.ts"

const WALL = Date.UTC(2026, 11, 7, 19)

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function setup(recheckMs = 0) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "goals-"))
  dirs.push(dir)
  const filePath = goalFilePath({ XDG_CONFIG_HOME: dir })
  const logs: string[] = []
  const clock = { now: 5_000, wall: WALL }
  const store = () => new FileGoals({ file: filePath, recheckMs, time: { now: () => clock.now, wall: () => clock.wall }, log: (level, message) => logs.push(`${level} ${message}`) })
  const write = (data: unknown) => {
    fs.mkdirSync(path.dirname(filePath), { recursive: true })
    fs.writeFileSync(filePath, typeof data === "string" ? data : JSON.stringify(data))
  }
  const read = () => JSON.parse(fs.readFileSync(filePath, "utf8")) as { version: number; goals: GoalRecord[] }
  return { dir, filePath, logs, clock, store, write, read }
}

const record = (sessionID: string, over: Partial<GoalRecord> = {}): GoalRecord => ({ sessionID, id: `g-${sessionID}`, text: "make the tests pass", setAt: WALL, by: "command", continues: 0, status: "active", ...over })

describe("goal records (core/goals.ts)", () => {
  test("a goal is kept on one line, control characters dropped, at most MAX_GOAL_TEXT characters", () => {
    expect(goalText("  fix\nthe\tparser\u0007 now ")).toBe("fix the parser now")
    expect(goalText("x".repeat(MAX_GOAL_TEXT + 50))).toHaveLength(MAX_GOAL_TEXT)
    // Negative control: a plain goal is kept as it is.
    expect(goalText("Make `bun test` pass")).toBe("Make `bun test` pass")
  })

  test("setting a goal replaces the session's old one with a fresh one; other sessions keep theirs", () => {
    const before = [record("a", { continues: 4, status: "met", endedAt: WALL }), record("b")]
    const after = withGoalSet(before, "a", "ship it", "g2", "cli", WALL + 1)
    expect(after.find((g) => g.sessionID === "a")).toEqual({ sessionID: "a", id: "g2", text: "ship it", setAt: WALL + 1, by: "cli", continues: 0, status: "active" })
    expect(after.find((g) => g.sessionID === "b")).toEqual(record("b"))
  })

  test("a change lands only on the goal it names, and only while it is active", () => {
    const goals = [record("a")]
    expect(withGoalChange(goals, "a", { kind: "continued", goalID: "g-a", continues: 3 }, WALL)[0]!.continues).toBe(3)
    // Negative controls: an older goal's id, or a goal that already ended, is left alone.
    expect(withGoalChange(goals, "a", { kind: "continued", goalID: "g-old", continues: 3 }, WALL)[0]!.continues).toBe(0)
    const met = withGoalChange(goals, "a", { kind: "ended", goalID: "g-a", status: "met", why: "task_complete" }, WALL + 5)
    expect(met[0]).toMatchObject({ status: "met", endedAt: WALL + 5, why: "task_complete" })
    expect(withGoalChange(met, "a", { kind: "ended", goalID: "g-a", status: "stood down", why: "late" }, WALL + 9)[0]).toMatchObject({ status: "met" })
  })

  test("clearing ends only an active goal", () => {
    expect(withGoalCleared([record("a")], "a", "by you", WALL)[0]).toMatchObject({ status: "cleared", why: "by you" })
    const met = record("a", { status: "met", endedAt: WALL })
    expect(withGoalCleared([met], "a", "by you", WALL)[0]).toEqual(met)
  })

  test("bounded: ended goals go after a day, and past MAX_GOALS the ended ones go first, oldest first", () => {
    const old = record("old", { status: "met", endedAt: WALL - ENDED_GOAL_KEPT_MS - 1 })
    const fresh = record("fresh", { status: "met", endedAt: WALL - 1000 })
    expect(boundedGoals([old, fresh, record("a")], WALL).map((g) => g.sessionID)).toEqual(["fresh", "a"])
    const many = Array.from({ length: MAX_GOALS }, (_, i) => record(`s${i}`))
    const kept = boundedGoals([fresh, ...many, record("new")], WALL)
    expect(kept).toHaveLength(MAX_GOALS)
    expect(kept.some((g) => g.sessionID === "fresh")).toBe(false)
    expect(kept.some((g) => g.sessionID === "new")).toBe(true)
  })

  test("parsing skips a bad entry and names it; a file of another shape or version is refused", () => {
    const parsed = parseGoals({ version: 1, goals: [record("a"), { sessionID: "b" }, record("a", { id: "dup" }), "x"] })
    expect(parsed.goals.map((g) => g.id)).toEqual(["g-a"])
    expect(parsed.skipped).toHaveLength(3)
    expect(() => parseGoals({ goals: [] })).toThrow(/version/)
    expect(() => parseGoals([])).toThrow(/no list/)
  })
})

describe("the goal file (stores/goal-file.ts)", () => {
  test("lives beside the pause marker; a goal set is written atomically, 0600, and survives a new store (a restart)", async () => {
    const g = setup()
    expect(g.filePath).toBe(path.join(g.dir, "opencode", "auto-resume.goals.json"))
    const first = g.store()
    const outcome = await first.set("ses_a", "make the tests pass", "command")
    expect(outcome).toMatchObject({ ok: true, after: { sessionID: "ses_a", text: "make the tests pass", status: "active", by: "command" } })
    expect(g.read().version).toBe(1)
    expect(fs.statSync(g.filePath).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(path.dirname(g.filePath)).filter((n) => n.endsWith(".tmp") || n.endsWith(".lock"))).toEqual([])
    // A restart: a fresh store reads it back, times on the engine's clock.
    const second = g.store()
    expect(second.goalOf("ses_a")).toMatchObject({ text: "make the tests pass", status: "active", continues: 0, startedAt: 5_000 })
    expect(second.goalOf("ses_other")).toBeUndefined()
  })

  test("the engine's changes show at once and reach the file in order; a change for an older goal does not", async () => {
    const g = setup()
    const s = g.store()
    await s.set("ses_a", "goal one", "command")
    const one = s.goalOf("ses_a")!
    s.change("ses_a", { kind: "continued", goalID: one.id, continues: 1 })
    expect(s.goalOf("ses_a")!.continues).toBe(1)
    await s.settled()
    expect(g.read().goals[0]!.continues).toBe(1)
    await s.set("ses_a", "goal two", "command")
    s.change("ses_a", { kind: "ended", goalID: one.id, status: "stood down", why: "late news of goal one" })
    await s.settled()
    expect(g.read().goals[0]).toMatchObject({ text: "goal two", status: "active", continues: 0 })
  })

  test("a goal set from outside (another process) is picked up at the next check", async () => {
    const g = setup(1000)
    const s = g.store()
    expect(s.goalOf("ses_a")).toBeUndefined()
    await new GoalFile(g.filePath, { now: () => WALL }).update((goals) => withGoalSet(goals, "ses_a", "from the CLI", "gx", "cli", WALL))
    // Within the recheck interval the memory stands; after it the file is read again.
    expect(s.goalOf("ses_a")).toBeUndefined()
    g.clock.now += 1000
    expect(s.goalOf("ses_a")).toMatchObject({ id: "gx", text: "from the CLI" })
  })

  test("clearing, and a deleted session's goal leaving the file", async () => {
    const g = setup()
    const s = g.store()
    await s.set("ses_a", "goal a", "command")
    await s.set("ses_b", "goal b", "command")
    const cleared = await s.clear("ses_a", "command")
    expect(cleared).toMatchObject({ ok: true, before: { status: "active" }, after: { status: "cleared", why: "cleared by /auto-resume goal off" } })
    s.forget("ses_b")
    await s.settled()
    expect(g.read().goals.map((x) => x.sessionID)).toEqual(["ses_a"])
    // Negative control: forgetting a session with no goal writes nothing.
    const before = fs.statSync(g.filePath).mtimeMs
    s.forget("ses_none")
    await s.settled()
    expect(fs.statSync(g.filePath).mtimeMs).toBe(before)
  })

  test("a corrupt or oversized file is read as empty with one warning; the next change rewrites it", async () => {
    const g = setup()
    g.write("{ not json")
    const s = g.store()
    expect(s.goalOf("ses_a")).toBeUndefined()
    expect(s.goalOf("ses_b")).toBeUndefined()
    expect(g.logs.filter((l) => l.startsWith("warn"))).toHaveLength(1)
    await s.set("ses_a", "goal a", "command")
    expect(g.read().goals).toHaveLength(1)
    g.write("x".repeat(MAX_GOAL_FILE_BYTES + 1))
    expect(new GoalFile(g.filePath).read().problem).toMatch(/larger than/)
  })

  test("a file that cannot be written keeps the user's goal for this run and says so", async () => {
    const g = setup()
    fs.mkdirSync(path.dirname(g.filePath), { recursive: true })
    fs.mkdirSync(g.filePath) // a folder where the file should be: every write fails
    const s = g.store()
    const outcome = await s.set("ses_a", "goal a", "command")
    expect(outcome).toMatchObject({ ok: true, after: { text: "goal a" } })
    expect(outcome.ok && outcome.memoryOnly).toBeTruthy()
    expect(s.goalOf("ses_a")).toMatchObject({ text: "goal a", status: "active" })
  })
})
