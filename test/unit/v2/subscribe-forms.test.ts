/**
 * The subscription through the default export on the three forms of `event.subscribe` builds
 * have taken: `{ signal, types }` (the host sends only what we read), `subscribe(types)` (an
 * options object refused), and a build that ignores the filter. On each, a broken stream is
 * recovered; the control (the same timeline, the run ending normally) gets nothing.
 */
import { describe, expect, test } from "bun:test"
import type { FakeV2Options } from "../../support/fake-v2-host.ts"
import { entryRig } from "../../support/v2-entry.ts"

const SID = "ses_sub"

async function play(form: NonNullable<FakeV2Options["subscribeForm"]>, broken: boolean) {
  const rig = await entryRig({}, { subscribeForm: form })
  rig.host.userTurn(SID)
  rig.host.textDelta(SID, "Working ")
  if (broken) rig.host.failRun(SID, { type: "provider.transport", message: "the response stream ended early" })
  else {
    rig.host.textDelta(SID, "and done.")
    rig.host.finishRun(SID)
  }
  await rig.advance(30_000)
  const sends = rig.host.callsTo("session.prompt").length + rig.host.callsTo("session.synthetic").length
  const subscribeArgs = rig.host.callsTo("event.subscribe").map((c) => c.args[0])
  await rig.close()
  return { sends, subscribeArgs }
}

describe("subscribe to what we read, on every form of subscribe", () => {
  test("newest build: subscribe({ signal, types }) with the types the adapter maps; a broken stream is recovered", async () => {
    const { sends, subscribeArgs } = await play("options", true)
    expect(subscribeArgs).toHaveLength(1)
    const arg = subscribeArgs[0] as { signal?: unknown; types?: string[] }
    expect(arg.signal).toBeInstanceOf(AbortSignal)
    expect(arg.types).toEqual(expect.arrayContaining(["session.execution.started", "session.execution.failed", "session.tool.success", "session.tool.failed", "form.created", "session.inbox.enqueued"]))
    expect(arg.types).not.toContain("session.status")
    expect(sends).toBe(1)
  })

  test("an intermediate build taking subscribe(types): refused once, then the array form; recovered", async () => {
    const { sends, subscribeArgs } = await play("types", true)
    expect(Array.isArray(subscribeArgs[0])).toBe(false)
    expect(Array.isArray(subscribeArgs[1])).toBe(true)
    expect(sends).toBe(1)
  })

  test("a build that ignores the filter: every event arrives, and the recovery is the same", async () => {
    expect((await play("unfiltered", true)).sends).toBe(1)
  })

  for (const form of ["options", "types", "unfiltered"] as const) {
    test(`control (${form}): the same timeline with the run ending normally gets nothing`, async () => {
      expect((await play(form, false)).sends).toBe(0)
    })
  }
})
