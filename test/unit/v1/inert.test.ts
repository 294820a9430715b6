/** accepted-but-inert on v1: the startup line prints the list, and the options v1 now applies are not in it. */
import { describe, expect, test } from "bun:test"
import { INERT_OPTIONS } from "../../../src/options/inert.ts"
import { FakeV1Host } from "./rig.ts"

const APPLIED_ON_V1 = ["visibleContinue", "quietCorrections", "injectIntervalMs", "shareWatchState", "registryScope", "minActivityGapMs"]

describe("accepted-but-inert on v1", () => {
  test("the startup line prints exactly INERT_OPTIONS.v1, and the instance number", () => {
    const host = new FakeV1Host()
    const plugin = host.start({ chunkTimeoutMs: 60_000 })
    const line = host.logs.find((l) => l.message.includes("host=v1"))!.message
    const inert = /accepted-but-inert=([^;]*)/.exec(line)![1]!
    expect(inert.split(",").filter(Boolean)).toEqual([...INERT_OPTIONS.v1])
    // Every option in the spec is applied on v1: nothing is accepted and ignored.
    expect(inert).toBe("")
    expect(line).toContain(`instance #${plugin.serial}`)
    host.stopAll()
  })

  test("none of the options the v1 adapter and the core apply is listed, on either host", () => {
    for (const name of APPLIED_ON_V1) {
      expect(INERT_OPTIONS.v1).not.toContain(name)
      expect(INERT_OPTIONS.v2).not.toContain(name)
    }
  })
})
