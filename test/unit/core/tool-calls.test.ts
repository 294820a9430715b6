/**
 * A call of one of our tools (task_complete) through the engine and the runtime: answered by the
 * path that declares the tool, never left hanging, and with the path's counts carried across a
 * plugin reload like the session's other budgets.
 */
import { describe, expect, test } from "bun:test"
import { RecoveryEngine } from "../../../src/core/engine.ts"
import type { Signal } from "../../../src/core/port.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import { recoveryPaths } from "../../../src/paths/index.ts"
import { TASK_COMPLETE_TOOL } from "../../../src/prompts/task-complete-tool.ts"
import type { AnyPath } from "../../../src/runtime/path.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { makeHarness, userTurn } from "../../support/harness.ts"

function engineWith(paths: readonly AnyPath[] = recoveryPaths, options: Record<string, unknown> = {}) {
  const time = new SimulatedTime()
  const port = new RecordingPort(() => time.now())
  const engine = new RecoveryEngine({ paths, port, time, options: resolveOptions(options, {}) })
  const emit = (...signals: Array<Partial<Signal> & { type: Signal["type"] }>) => {
    for (const s of signals) engine.handle({ sessionID: "s1", ...s } as Signal)
  }
  return { engine, port, emit }
}

const OPEN = [{ content: "write the migration", status: "pending" as const }]
const refused = (text: string) => text.includes("write the migration")

describe("calls of our tools", () => {
  test("task_complete reads the todos from the host when the session reported none, and refuses while one is open", async () => {
    const { engine, port } = engineWith()
    port.todos.set("s1", OPEN)
    expect(refused((await engine.callTool("s1", TASK_COMPLETE_TOOL)).text)).toBe(true)
    // Control: with the list closed it is accepted, and the session latched.
    port.todos.set("s1", [])
    expect(refused((await engine.callTool("s1", TASK_COMPLETE_TOOL)).text)).toBe(false)
    expect(engine.status("s1")?.completed).toBe(true)
  })

  test("a tool no path answers is acknowledged plainly", async () => {
    const { engine } = engineWith()
    expect(await engine.callTool("s1", "no_such_tool")).toEqual({ ok: true, text: "Noted." })
  })

  test("a path that fails on the call is a fault, and the call is still answered", async () => {
    const broken: AnyPath = {
      name: "broken",
      tools: ["t"],
      initial: () => 0,
      step() {
        throw new Error("boom")
      },
    }
    const { engine, port } = engineWith([broken])
    expect(await engine.callTool("s1", "t")).toEqual({ ok: true, text: "Noted." })
    expect(port.logged(/broken failed on called: .*boom/)).toBe(true)
  })

  test("its refusals outlive a plugin reload: the next instance goes on counting", async () => {
    const options = { taskCompleteMaxRefusals: 1 }
    const before = engineWith(recoveryPaths, options)
    before.emit({ type: "todos", todos: OPEN })
    expect(refused((await before.engine.callTool("s1", TASK_COMPLETE_TOOL)).text)).toBe(true)
    const snapshots = before.engine.exportSessions()
    expect(snapshots[0]?.paths).toEqual({ "task-complete": { repeatCalls: 0, refusals: 1 } })

    const after = engineWith(recoveryPaths, options)
    after.engine.importSessions(snapshots)
    expect(refused((await after.engine.callTool("s1", TASK_COMPLETE_TOOL)).text)).toBe(false)
    // Control: an instance that took nothing over refuses again.
    const fresh = engineWith(recoveryPaths, options)
    fresh.emit({ type: "todos", todos: OPEN })
    expect(refused((await fresh.engine.callTool("s1", TASK_COMPLETE_TOOL)).text)).toBe(true)
  })
})

describe("task_complete latching a running session", () => {
  test("the paths stand down: its stall deadline is disarmed, so no held recovery is even looked at", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "todos", todos: [] })
    await h.engine.callTool("s1", TASK_COMPLETE_TOOL)
    await h.advance(600_000, 5_000)
    expect(h.port.logged(/stall recovery held/)).toBe(false)
    expect(h.port.calls.filter((c) => c.kind === "send" || c.kind === "abort")).toEqual([])
  })

  test("control: a session held otherwise (paused) keeps its deadline, and the held stall is logged", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    h.pauses.pause("s1")
    await h.advance(600_000, 5_000)
    expect(h.port.logged(/stall recovery held: paused/)).toBe(true)
  })
})
