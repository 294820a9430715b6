/**
 * The orphan parent through each adapter, in the host's own event shapes: a parent whose
 * subagent call still waits on children that have all finished is aborted and resumed, and
 * nothing else open in the parent, and no child still working or asking its user, lets that
 * abort through.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { HOSTS, type NeutralHost } from "../../support/neutral-hosts.ts"

const PARENT = "ses_parent"
const CHILD = "ses_child"
/** subagentWaitMs + gracePeriodMs at the defaults, and a margin past the abort's pause. */
const ORPHAN_WAIT_MS = 15_000 + 3_000
const PAST_RECOVERY_MS = ORPHAN_WAIT_MS + 10_000

let running: NeutralHost | undefined
afterEach(() => running?.stop())

/** The user's turn on the parent, which calls its subagent; the child starts and writes. */
async function parentWaitingOnChild(make: () => NeutralHost): Promise<NeutralHost> {
  const h = (running = make())
  h.userTurn(PARENT)
  h.delta(PARENT)
  h.toolStart(PARENT, "call_sub", h.subagentTool)
  h.childStarts(CHILD, PARENT)
  await h.advance(1_000)
  h.delta(CHILD)
  await h.advance(2_000)
  return h
}

for (const [name, make] of HOSTS) {
  describe(`orphan parent on ${name}`, () => {
    test("every child finished, the parent still holds its subagent call: aborted, then the continue goes out", async () => {
      const h = await parentWaitingOnChild(make)
      h.finishRun(CHILD)
      await h.advance(PAST_RECOVERY_MS)
      expect(h.logged(/orphan parent \(parent still waiting \d+s after its subagents finished\); abort \+ resume/)).toBe(true)
      expect(h.abortsOf(PARENT)).toBe(1)
      expect(h.promptsTo(PARENT)).toBe(1)
      expect(h.promptTexts(PARENT)[0]).toMatch(/subagent/i)
      // The finished child is left alone.
      expect(h.promptsTo(CHILD)).toBe(0)
      expect(h.abortsOf(CHILD)).toBe(0)
    })

    test("a child silent past subagentDeadMs reads as dead: nudged once, then the parent is aborted and resumed", async () => {
      const h = await parentWaitingOnChild(() => make({ subagentDeadMs: 120_000 }))
      await h.advance(70_000)
      expect(h.promptsTo(CHILD)).toBe(1) // the stuck child's one nudge
      expect(h.abortsOf(PARENT)).toBe(0) // quiet, not dead yet
      await h.advance(60_000)
      expect(h.logged(/orphan parent \(subagent \S+ silent for \d+s \(past subagentDeadMs\)\); abort \+ resume/)).toBe(true)
      expect(h.abortsOf(PARENT)).toBe(1)
      expect(h.promptsTo(PARENT)).toBe(1)
    })

    test("control: another tool open beside the subagent call: no abort", async () => {
      const h = await parentWaitingOnChild(make)
      h.toolStart(PARENT, "call_bash", "bash")
      h.finishRun(CHILD)
      await h.advance(PAST_RECOVERY_MS)
      expect(h.abortsOf(PARENT)).toBe(0)
      expect(h.promptsTo(PARENT)).toBe(0)
    })

    test("control: another tool open instead of the subagent call: no abort", async () => {
      const h = await parentWaitingOnChild(make)
      h.toolEnd(PARENT, "call_sub", h.subagentTool)
      h.toolStart(PARENT, "call_bash", "bash")
      h.finishRun(CHILD)
      await h.advance(PAST_RECOVERY_MS)
      expect(h.abortsOf(PARENT)).toBe(0)
      expect(h.promptsTo(PARENT)).toBe(0)
    })

    test("control: a child still streaming: no abort", async () => {
      const h = await parentWaitingOnChild(make)
      for (let i = 0; i < 6; i++) {
        h.delta(CHILD)
        await h.advance(10_000)
      }
      expect(h.abortsOf(PARENT)).toBe(0)
      expect(h.promptsTo(PARENT)).toBe(0)
      expect(h.logged(/orphan parent/)).toBe(false)
    })

    test("control: a child waiting on a permission: no abort, and the child is not nudged", async () => {
      const h = await parentWaitingOnChild(make)
      h.askPermission(CHILD, "per_1")
      await h.advance(5 * 60_000, 5_000)
      expect(h.abortsOf(PARENT)).toBe(0)
      expect(h.promptsTo(PARENT)).toBe(0)
      expect(h.promptsTo(CHILD)).toBe(0)
    })
  })
}
