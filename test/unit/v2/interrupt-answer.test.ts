/**
 * `session.interrupt` answers `{ interrupted: boolean }`. `false` means there was no run to
 * stop (the user's ESC ended it a moment before ours, or it had finished): the port reports the
 * abort as failed, so the core does not take the interruption it just saw for its own.
 */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { createV2Port } from "../../../src/host/v2/port.ts"
import { SendLog } from "../../../src/host/send-log.ts"
import { OwnSends } from "../../../src/host/v2/user-turns.ts"
import { resolveOptions } from "../../../src/options/index.ts"

function portAnswering(answer: unknown) {
  const ctx = { session: { interrupt: async () => answer } }
  return createV2Port({
    ctx,
    resolved: resolveOptions({}, {}),
    time: new SimulatedTime(),
    shared: { own: new OwnSends(), sendLog: new SendLog(), syntheticRefused: new Set() },
    writeLog: () => undefined,
  })
}

describe("2.x abort: what session.interrupt answered", () => {
  test("interrupted: true is a carried-out abort", async () => {
    await expect(portAnswering({ interrupted: true }).abort("ses_1")).resolves.toBeUndefined()
  })

  test("interrupted: false is an abort that stopped nothing", async () => {
    await expect(portAnswering({ interrupted: false }).abort("ses_1")).rejects.toThrow(/found no run to stop/)
  })

  test("negative control: no answer, or one of another shape (older releases), is taken as carried out", async () => {
    for (const answer of [undefined, null, {}, "ok", { interrupted: "no" }]) {
      await expect(portAnswering(answer).abort("ses_1")).resolves.toBeUndefined()
    }
  })
})
