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

/**
 * The parent finishes its turn while its child still runs, the host deletes the parent, the
 * child's run goes on (a late event of it), and a new session under the parent's id holds a
 * subagent call of its own. `deleted: false` is the same timeline minus the delete.
 */
async function childOutlivesItsParent(make: () => NeutralHost, deleted: boolean): Promise<NeutralHost> {
  const h = await parentWaitingOnChild(() => make())
  h.toolEnd(PARENT, "call_sub", h.subagentTool)
  h.finishRun(PARENT)
  if (deleted) h.deleteSession(PARENT)
  h.hostRunStarts(CHILD)
  await h.advance(1_000)
  h.userTurn(PARENT)
  h.toolStart(PARENT, "call_sub_2", h.subagentTool)
  // Past subagentDeadMs: the child has been silent long enough to read as dead.
  await h.advance(150_000, 5_000)
  return h
}

for (const [name, make] of HOSTS) {
  describe(`a parent deleted on ${name}: a new session under its id has no children`, () => {
    const opts = { subagentDeadMs: 120_000 }

    test("its subagent call is not aborted over the old parent's child gone silent", async () => {
      const h = await childOutlivesItsParent(() => make(opts), true)
      expect(h.logged(/orphan parent/)).toBe(false)
      expect(h.logged(/subagent ses_child: subagent quiet/)).toBe(false)
      expect(h.abortsOf(PARENT)).toBe(0)
    })

    test("negative control: without the delete the child is still its parent's, nudged, then the parent aborted as an orphan", async () => {
      const h = await childOutlivesItsParent(() => make(opts), false)
      expect(h.logged(/subagent ses_child: subagent quiet/)).toBe(true)
      expect(h.logged(/orphan parent \(subagent ses_child silent for \d+s \(past subagentDeadMs\)\); abort \+ resume/)).toBe(true)
      expect(h.abortsOf(PARENT)).toBe(1)
    })
  })
}
