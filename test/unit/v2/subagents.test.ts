/**
 * Subagents on 2.x through the adapter: the parent's open `subagent` call is what orphan-parent
 * and stuck-subagent recovery look for (1.x: `task`), and a background call (`background:
 * true`) is not a parent waiting on its child.
 *
 * Whether the orphan parent's abort then passes the open-tool guard is another change; here
 * the decision itself is what is shown (its log line), so these tests hold either way.
 */
import { describe, expect, test } from "bun:test"
import { makeV2 } from "./harness.ts"

const PARENT = "ses_parent"
const CHILD = "ses_child"
const ORPHAN = /session ses_parent: orphan parent/

/** A parent whose child ran and finished, with the parent's call still open. */
async function finishedChild(call: (r: ReturnType<typeof makeV2>) => void) {
  const r = makeV2()
  r.host.userTurn(PARENT)
  call(r)
  r.host.textDelta(CHILD)
  r.host.finishRun(CHILD)
  // subagentWaitMs + gracePeriodMs, and a margin.
  await r.advance(30_000)
  return r
}

describe("orphan parent on 2.x", () => {
  test("a parent still holding its subagent call after the child finished is found as an orphan", async () => {
    const r = await finishedChild((rig) => rig.host.subagentCall(PARENT, "call_sub", CHILD))
    expect(r.logged(ORPHAN)).toBe(true)
    r.instance.stop()
  })

  test("negative control: a background subagent call whose result has not come yet is no wait on the child", async () => {
    const r = await finishedChild((rig) => {
      rig.host.toolStart(PARENT, "call_sub", "subagent", { agent: "general", description: "d", prompt: "p", background: true })
      rig.host.createChild(PARENT, CHILD)
      rig.host.userTurn(CHILD)
    })
    expect(r.logged(ORPHAN)).toBe(false)
    r.instance.stop()
  })

  test("negative control: on 2.x a tool named task is not the subagent call", async () => {
    const r = await finishedChild((rig) => {
      rig.host.toolStart(PARENT, "call_sub", "task", { prompt: "p" })
      rig.host.createChild(PARENT, CHILD)
      rig.host.userTurn(CHILD)
    })
    expect(r.logged(ORPHAN)).toBe(false)
    r.instance.stop()
  })

  test("a background call that returned at once leaves the parent to carry on: never an orphan", async () => {
    const r = await finishedChild((rig) => rig.host.subagentCall(PARENT, "call_sub", CHILD, { background: true }))
    expect(r.logged(ORPHAN)).toBe(false)
    expect(r.instance.engine.status(PARENT)?.openTools).toEqual([])
    r.instance.stop()
  })
})

describe("stuck subagent on 2.x", () => {
  const toChild = (r: ReturnType<typeof makeV2>) =>
    [...r.host.callsTo("session.prompt"), ...r.host.callsTo("session.synthetic")].filter((c) => (c.args[0] as { sessionID: string }).sessionID === CHILD)

  test("a child quiet for a minute under a parent blocked on its subagent call gets one nudge", async () => {
    const r = makeV2()
    r.host.userTurn(PARENT)
    r.host.subagentCall(PARENT, "call_sub", CHILD)
    r.host.textDelta(CHILD)
    await r.advance(65_000)
    expect(toChild(r)).toHaveLength(1)
    r.instance.stop()
  })

  test("negative control: a child that keeps writing is left alone", async () => {
    const r = makeV2()
    r.host.userTurn(PARENT)
    r.host.subagentCall(PARENT, "call_sub", CHILD)
    for (let i = 0; i < 6; i++) {
      r.host.textDelta(CHILD)
      await r.advance(20_000)
    }
    expect(toChild(r)).toHaveLength(0)
    r.instance.stop()
  })
})
