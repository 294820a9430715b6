/**
 * task_complete on 2.x: the model reads a tool's `content` (not `output`), and a refusal is a
 * result it can read, never an exception thrown into the host.
 */
import { describe, expect, test } from "bun:test"
import { TASK_COMPLETE_REPEAT_ERROR } from "../../../src/prompts/nudges.ts"
import { ToolDefect } from "../../support/fake-v2-host.ts"
import { entryRig } from "../../support/v2-entry.ts"
import { makeV2, SID } from "./harness.ts"

type Result = { content?: unknown; output?: unknown; metadata?: Record<string, unknown> }
type Tool = { name: string; options: unknown; execute: (input: unknown, context: unknown) => Promise<Result> }

async function tool() {
  const r = makeV2()
  await r.instance.registered
  const registered = r.host.registeredTools.find((t) => t.name === "task_complete") as unknown as Tool
  const call = () => registered.execute({ summary: "all done" }, { sessionID: SID, agent: "build", messageID: "m", id: "c", signal: new AbortController().signal, progress() {} })
  return { r, registered, call }
}

describe("task_complete answers in content", () => {
  test("registered as a direct tool (codemode false); the answer is content with metadata", async () => {
    const { r, registered, call } = await tool()
    expect(registered.options).toEqual({ codemode: false })
    r.host.userTurn(SID)
    const result = await call()
    expect(typeof result.content).toBe("string")
    expect((result.content as string).length).toBeGreaterThan(0)
    expect(result.metadata).toEqual({ autoResume: true })
    r.instance.stop()
  })

  test("a repeated call is refused as a readable result, not a thrown exception", async () => {
    const { r, call } = await tool()
    r.host.userTurn(SID)
    const first = await call()
    await call()
    const third = call()
    await expect(third).resolves.toBeDefined()
    const refused = await third
    expect(refused.content).toBe(TASK_COMPLETE_REPEAT_ERROR)
    expect(refused.metadata).toEqual({ autoResume: true, refused: true })
    // Negative control: the first call was accepted, with no refusal marked.
    expect(first.metadata?.refused).toBeUndefined()
    r.instance.stop()
  })

  test("open todos: the refusal naming them is content the model reads", async () => {
    const { r, call } = await tool()
    r.host.userTurn(SID)
    r.host.history.get(SID)!.push({
      id: "msg_todo",
      type: "assistant",
      content: [{ type: "tool", id: "c_todo", name: "todowrite", state: { status: "completed", input: { todos: [{ content: "write the migration", status: "pending" }] }, content: "ok" } }],
      time: { created: 1 },
    })
    const result = await call()
    expect(String(result.content)).toContain("write the migration")
    r.instance.stop()
  })
})

describe("task_complete through the default export, run the way the host's tool runtime runs it", () => {
  test("the call lives: { content, metadata } with no `output` key (the host kills a call whose result has one)", async () => {
    const rig = await entryRig()
    try {
      rig.host.userTurn(SID)
      const answer = await rig.host.runTool("task_complete", { summary: "all done" }, { sessionID: SID })
      expect(answer.failed).toBeUndefined()
      expect(answer.content[0]!.text.length).toBeGreaterThan(0)
      expect(answer.metadata).toEqual({ autoResume: true })
      const raw = (await (rig.host.registeredTools[0] as unknown as Tool).execute({ summary: "again" }, { sessionID: SID })) as object
      expect("output" in raw).toBe(false)
    } finally {
      await rig.close()
    }
  })

  test("negative control: the same call with the old result shape (an `output` beside content) dies on this host", async () => {
    const rig = await entryRig()
    try {
      const registered = rig.host.registeredTools[0] as unknown as Tool
      const execute = registered.execute
      registered.execute = async (input, context) => ({ ...(await execute(input, context)), output: "Noted." })
      rig.host.userTurn(SID)
      await expect(rig.host.runTool("task_complete", { summary: "all done" }, { sessionID: SID })).rejects.toBeInstanceOf(ToolDefect)
    } finally {
      await rig.close()
    }
  })
})
