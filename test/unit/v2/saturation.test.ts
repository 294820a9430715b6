/**
 * Context saturation on 2.x: the context a step used (`session.step.ended` tokens) against the
 * model's limits from `ctx.model.list()` / `default()`, so the core's routing fires as on 1.x.
 */
import { describe, expect, test } from "bun:test"
import { makeV2, SID } from "./harness.ts"

const MAGIC = { location: {}, data: [{ id: "magic-context", source: { type: "package", package: "opencode-magic-context" } }] }

/** One turn that ends a step holding `input` tokens of context, then goes idle. */
async function turnWithContext(input: number, setup?: (r: ReturnType<typeof makeV2>) => void) {
  const r = makeV2()
  r.host.pluginList = MAGIC
  setup?.(r)
  r.host.userTurn(SID)
  r.host.textDelta(SID, "Finished the refactor of the parser and its tests.")
  r.host.endStep(SID, { input, output: 1_500, reasoning: 500, cache: { read: 0, write: 0 } })
  r.host.finishRun(SID)
  await r.advance(10_000)
  return r
}

const wrapups = (r: ReturnType<typeof makeV2>) => r.host.callsTo("session.command").filter((c) => (c.args[0] as { name: string }).name === "ctx-wrapup")

describe("context saturation on 2.x", () => {
  test("a step that filled 90% of the usable window routes the parent to ctx-wrapup", async () => {
    // usable = 200 000 - min(20 000, 32 000) = 180 000; 160 000 + 2 000 is past 0.85 of it.
    const r = await turnWithContext(160_000)
    expect(wrapups(r)).toHaveLength(1)
    r.instance.stop()
  })

  test("negative control: the same turn with a half-empty window gets nothing", async () => {
    const r = await turnWithContext(60_000)
    expect(wrapups(r)).toHaveLength(0)
    r.instance.stop()
  })

  test("a model's input cap (limit.input) is the tighter window", async () => {
    const capped = { location: {}, data: [{ id: "gpt-x", providerID: "openai", limit: { context: 400_000, input: 100_000, output: 32_000 } }] }
    const r = await turnWithContext(90_000, (rig) => (rig.host.modelList = capped))
    expect(wrapups(r)).toHaveLength(1)
    r.instance.stop()
    // Negative control: without the cap, 92 000 of 380 000 usable is far from full.
    const open = { location: {}, data: [{ id: "gpt-x", providerID: "openai", limit: { context: 400_000, output: 32_000 } }] }
    const q = await turnWithContext(90_000, (rig) => (rig.host.modelList = open))
    expect(wrapups(q)).toHaveLength(0)
    q.instance.stop()
  })

  test("a model the listing leaves out is read from model.default()", async () => {
    const r = await turnWithContext(160_000, (rig) => {
      rig.host.modelList = { location: {}, data: [{ id: "other", providerID: "openai", limit: { context: 1_000_000, output: 32_000 } }] }
      ;(rig.host.ctx.model as Record<string, unknown>).default = async () => ({ location: {}, data: { id: "gpt-x", providerID: "openai", limit: { context: 200_000, output: 32_000 } } })
    })
    expect(wrapups(r)).toHaveLength(1)
    r.instance.stop()
  })

  test("a model whose limit cannot be known: no intervention, and the log says so once", async () => {
    const r = await turnWithContext(160_000, (rig) => (rig.host.modelList = { location: {}, data: [] }))
    expect(wrapups(r)).toHaveLength(0)
    r.host.userTurn(SID, "again")
    r.host.endStep(SID, { input: 170_000, output: 100 })
    r.host.finishRun(SID)
    await r.advance(10_000)
    expect(r.logs.filter((l) => /no context limit for model openai\/gpt-x/.test(l.message))).toHaveLength(1)
    r.instance.stop()
  })
})
