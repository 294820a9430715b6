/**
 * The instance's goal wiring (src/host/instance.ts): the goal file the engine and the command
 * share, a goal that survives a restart (a new instance on the same file), and a goal removed
 * when the host deletes its session. On a real temp folder and a simulated clock.
 */
import { afterEach, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import { startInstance } from "../../../src/host/instance.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { FileGoals, goalFilePath } from "../../../src/stores/goal-file.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "instance-goals-"))
  dirs.push(dir)
  const env = { XDG_CONFIG_HOME: dir }
  const time = new SimulatedTime()
  const start = () => {
    const goals = new FileGoals({ file: goalFilePath(env), recheckMs: 0, time, log: () => undefined })
    const instance = startInstance({ host: "v1", slot: { key: `goals-${Math.random()}` }, resolved: resolveOptions({}, {}), time, port: new RecordingPort(() => time.now()), env, pauses: new MemoryPauses(), goals })
    return { instance, goals }
  }
  const onFile = () => JSON.parse(fs.readFileSync(goalFilePath(env), "utf8")).goals as { sessionID: string; status: string }[]
  return { start, onFile }
}

describe("the instance's goals", () => {
  test("a goal survives a restart: the next instance reads it from the file", async () => {
    const s = setup()
    const first = s.start()
    await first.goals.set("s1", "ship the parser", "command")
    first.instance.stop()
    const second = s.start()
    expect(second.instance.goals?.goalOf("s1")).toMatchObject({ text: "ship the parser", status: "active" })
    second.instance.stop()
  })

  test("the host deleting the session removes its goal from the file; another session's stays", async () => {
    const s = setup()
    const { instance, goals } = s.start()
    await goals.set("s1", "ship the parser", "command")
    await goals.set("s2", "write the docs", "command")
    instance.engine.handle({ type: "busy", sessionID: "s1" })
    instance.engine.handle({ type: "sessionDeleted", sessionID: "s1" })
    await goals.settled()
    expect(s.onFile().map((g) => g.sessionID)).toEqual(["s2"])
    // Negative control: a session that only goes idle keeps its goal.
    instance.engine.handle({ type: "idle", sessionID: "s2" })
    await goals.settled()
    expect(s.onFile().map((g) => g.sessionID)).toEqual(["s2"])
    instance.stop()
  })
})
