/**
 * Idempotent sends on 2.x, through the default export: each recovery prompt carries an id of
 * our own (send-id.ts), so two live instances that make the same recovery from the same history
 * land it once; the host refuses the second with a ConflictError, read as "already sent".
 */
import { describe, expect, test } from "bun:test"
import { until } from "../../matrix/host-common.ts"
import { entryRig, entryScope } from "../../support/v2-entry.ts"

const SID = "ses_twice"
const STREAM_BROKE = { type: "provider.transport", message: "the response stream ended before the answer was complete" }

async function brokenStream(instances: 1 | 2) {
  const rig = await entryRig()
  if (instances === 2) rig.load(rig.host.anotherCtx({ registryScope: entryScope() }))
  await rig.advance(1_000)
  rig.host.userTurn(SID)
  rig.host.textDelta(SID, "Working ")
  rig.host.failRun(SID, STREAM_BROKE)
  await rig.advance(30_000)
  return rig
}

function sendCalls(rig: Awaited<ReturnType<typeof entryRig>>) {
  return [...rig.host.callsTo("session.prompt"), ...rig.host.callsTo("session.synthetic")].map((c) => c.args[0] as { id?: string; text: string })
}

describe("idempotent sends: two live instances, one prompt", () => {
  test("both instances send the recovery with the same id; the host takes the first and refuses the second; it lands once", async () => {
    const rig = await brokenStream(2)
    try {
      const calls = sendCalls(rig)
      expect(calls).toHaveLength(2)
      expect(calls[0]!.id).toMatch(/^msg_autoresume_/)
      expect(calls[1]!.id).toBe(calls[0]!.id)
      const landed = rig.host.history.get(SID)!.filter((m) => m.type === "user" && m.id === calls[0]!.id)
      expect(landed).toHaveLength(1)
      expect(await until(() => rig.log().some((l) => l.includes("already sent (the host has message")))).toBe(true)
      // Not a failure: no warning about the send, and no retry of it.
      await rig.advance(30_000)
      expect(sendCalls(rig)).toHaveLength(2)
      expect(rig.log().some((l) => /send failure recovery.*failed/.test(l))).toBe(false)
    } finally {
      await rig.close()
    }
  })

  test("negative control: one instance sends once, and nothing is refused", async () => {
    const rig = await brokenStream(1)
    try {
      const calls = sendCalls(rig)
      expect(calls).toHaveLength(1)
      expect(calls[0]!.id).toMatch(/^msg_autoresume_/)
      await until(() => rig.log().some((l) => l.includes("recovery prompt 1/")))
      expect(rig.log().some((l) => l.includes("already sent"))).toBe(false)
    } finally {
      await rig.close()
    }
  })
})
