/**
 * 2.x forms through the adapter (startV2 on the fake host): `form.created` names its session
 * inside the form, its reply names only the form id, and the event has no `durable`. An open
 * form holds every recovery of its session, and of the parent a subagent works for.
 */
import { describe, expect, test } from "bun:test"
import { BUDGET, RECOVERED, makeV2, SID, sends } from "./harness.ts"

const PARENT = "ses_parent"
const CHILD = "ses_child"

describe("a form holds its session", () => {
  test("an open form holds stall recovery however long it waits; its reply releases it", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    r.host.askForm(SID, "frm_1")
    await r.advance(40 * 60_000, 5_000)
    expect(sends(r.host)).toBe(0)
    expect(r.instance.engine.status(SID)?.awaitingUser).toBe(true)
    r.host.replyForm("frm_1")
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("negative control: the same silence with no form gets its continue at the budget", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("a cancelled form releases the session too", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    r.host.askForm(SID, "frm_1")
    await r.advance(10 * 60_000, 5_000)
    r.host.cancelForm("frm_1")
    await r.advance(0)
    expect(r.instance.engine.status(SID)?.awaitingUser).toBe(false)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("a reply names its form: answering another form keeps this one holding", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    r.host.askForm(SID, "frm_1")
    r.host.askForm(SID, "frm_2")
    r.host.replyForm("frm_2")
    await r.advance(20 * 60_000, 5_000)
    expect(sends(r.host)).toBe(0)
    r.instance.stop()
  })

  test("the run's end closes its forms: the next run is not held by a form of the last one", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    r.host.askForm(SID, "frm_1")
    r.host.failRun(SID, { type: "provider.invalid-request", message: "bad request" })
    await r.advance(0)
    expect(r.instance.engine.status(SID)?.awaitingUser).toBe(false)
    r.host.userTurn(SID, "try again")
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })
})

describe("a subagent's form, as its parent sees it", () => {
  /** A parent blocked on its subagent call; the child runs and asks the user something. */
  async function parentWithAskingChild(ask: boolean) {
    const r = makeV2()
    r.host.userTurn(PARENT)
    r.host.subagentCall(PARENT, "call_sub", CHILD)
    r.host.textDelta(CHILD)
    if (ask) r.host.askForm(CHILD, "frm_child")
    await r.advance(45 * 60_000, 5_000)
    return r
  }

  test("a child waiting on a form is waiting on the user: neither it nor its parent is touched", async () => {
    const r = await parentWithAskingChild(true)
    expect(sends(r.host)).toBe(0)
    expect(r.host.callsTo("session.interrupt")).toHaveLength(0)
    expect(r.logged(/subagent ses_child is waiting for the user/)).toBe(true)
    r.instance.stop()
  })

  test("negative control: the same quiet child without a form is nudged as stuck", async () => {
    const r = await parentWithAskingChild(false)
    const toChild = [...r.host.callsTo("session.prompt"), ...r.host.callsTo("session.synthetic")].filter((c) => (c.args[0] as { sessionID: string }).sessionID === CHILD)
    expect(toChild.length).toBeGreaterThan(0)
    r.instance.stop()
  })
})
