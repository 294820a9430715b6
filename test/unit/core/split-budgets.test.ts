/**
 * The four budgets the old `maxRetries` set at once each bound only their own path: set one
 * alone and the others keep the default (3), seen through the engine.
 */
import { describe, expect, test } from "bun:test"
import { deadEndpoint, makeHarness, streamFailure, userTurn } from "../../support/harness.ts"
import { TASK_COMPLETE_TOOL } from "../../../src/prompts/task-complete-tool.ts"

const attempts = (texts: string[]) => texts.map((text) => /Attempt \d+\/\d+/.exec(text)?.[0])

describe("streamingFailureMaxPrompts", () => {
  const run = async (options: Record<string, unknown>) => {
    const h = makeHarness(options)
    const host = deadEndpoint(h)
    h.emit(...userTurn, streamFailure, { type: "idle" })
    await h.advance(600_000, 250)
    return { h, taken: host.taken.map((t) => t.text) }
  }

  test("bounds the recovery prompts of a failure incident and is the count they quote", async () => {
    const { h, taken } = await run({ streamingFailureMaxPrompts: 1 })
    // One prompt, then abort + resume: the dead endpoint fails both.
    expect(h.port.actions).toEqual(["send", "abort", "send"])
    expect(attempts(taken)[0]).toBe("Attempt 1/1")
  })

  test("control: the stall budget does not bound the failure chain", async () => {
    const { h, taken } = await run({ stallEpisodeMaxContinues: 1 })
    expect(h.port.actions).toEqual(["send", "send", "abort", "send"])
    expect(attempts(taken).slice(0, 2)).toEqual(["Attempt 1/3", "Attempt 2/3"])
  })
})

describe("taskCompleteMaxRefusals", () => {
  const refusalsBeforeAccept = async (options: Record<string, unknown>) => {
    const h = makeHarness(options)
    h.emit(...userTurn, { type: "todos", todos: [{ content: "write the migration", status: "pending" }] })
    let refusals = 0
    for (let call = 0; call < 10; call++) {
      const result = await h.engine.callTool("s1", TASK_COMPLETE_TOOL)
      if (!result.text.includes("write the migration")) break
      refusals++
    }
    return refusals
  }

  test("bounds the refusals of task_complete while todos are open", async () => {
    expect(await refusalsBeforeAccept({ taskCompleteMaxRefusals: 1 })).toBe(1)
    expect(await refusalsBeforeAccept({ maxRetries: 2 })).toBe(2)
  })

  test("control: the other budgets leave it at 3", async () => {
    expect(await refusalsBeforeAccept({ stallEpisodeMaxContinues: 1, streamingFailureMaxPrompts: 1, finishedTurnMaxNudges: 1 })).toBe(3)
  })
})

test("the status quotes the stall episode budget, not the others", () => {
  const h = makeHarness({ stallEpisodeMaxContinues: 7, finishedTurnMaxNudges: 2, taskCompleteMaxRefusals: 1 })
  h.emit(...userTurn)
  expect(h.engine.status("s1")?.stallEpisodeMaxContinues).toBe(7)
})
