/**
 * The history through the default export of src/index.ts on both hosts (the matrix's drivers,
 * fake timers, a temporary XDG_CONFIG_HOME): a stall the plugin recovers ends up in the journal
 * file as one `revived` entry, and `/auto-resume history` in the session shows it. Negative
 * control: the same time with a live stream leaves no entry. A rate-limit wait whose continue an
 * open question holds is one `held` entry; without the question it is the continue's own.
 */
import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync, statSync } from "node:fs"
import { Sandbox, until, type HostFactory, type MatrixHost } from "../../matrix/host-common.ts"
import type { Step } from "../../matrix/steps.ts"
import { startV1Host } from "../../matrix/v1-host.ts"
import { startV2Host } from "../../matrix/v2-host.ts"
import { journalFilePath } from "../../../src/stores/journal-file.ts"

const STALL = 190_000
const HOSTS: [string, HostFactory][] = [
  ["v1", startV1Host],
  ["v2", startV2Host],
]

async function played(factory: HostFactory, steps: Step[], look: (driver: MatrixHost, file: string) => Promise<void>, options: Record<string, unknown> = {}): Promise<void> {
  const sandbox = new Sandbox()
  let driver: MatrixHost | undefined
  try {
    driver = await factory(options)
    for (const step of steps) await driver.play(step)
    await look(driver, journalFilePath(process.env))
  } finally {
    try {
      await driver?.stop()
    } finally {
      sandbox.close()
    }
  }
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trimEnd().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [])

describe.each(HOSTS)("history on %s", (_name, factory) => {
  test("a recovered stall is one `revived` stall entry in a 0600 file, and /auto-resume history shows it", async () => {
    const steps: Step[] = [{ do: "user" }, { do: "text", text: "Looking at the code " }, { do: "wait", ms: STALL }, { do: "text", text: "Back at it. " }, { do: "wait", ms: 20_000 }]
    await played(factory, steps, async (driver, file) => {
      expect(driver.acts.some((a) => a.act === "send")).toBe(true)
      expect(await until(() => lines(file).length > 0)).toBe(true)
      const entries = lines(file)
      expect(entries).toHaveLength(1)
      expect(entries[0]).toMatchObject({ sessionID: "ses_matrix_main", trigger: "stall", outcome: "revived" })
      expect(entries[0].evidence).toMatch(/^silent for 3m/)
      expect(entries[0].action).toMatch(/continue/)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      await driver.play({ do: "pauseCommand", arg: "history" })
      const reply = [...driver.acts].reverse().find((a) => a.act === "reply")
      expect(reply && "text" in reply ? reply.text : "").toMatch(/stall \(silent for 3m \d+s\) -> .*continue: revived/)
    })
  }, 30_000)

  test("a recovery still pending when the plugin stops is written as it stops, marked as settled early", async () => {
    const sandbox = new Sandbox()
    try {
      // The matrix knob: the model hangs after the plugin's prompt too, so the outcome is still open.
      const driver = await factory({ __modelHangsAfterPrompt: true })
      for (const step of [{ do: "user" }, { do: "text", text: "Looking at the code " }, { do: "wait", ms: STALL }] as Step[]) await driver.play(step)
      expect(driver.acts.some((a) => a.act === "send")).toBe(true)
      const file = journalFilePath(process.env)
      expect(lines(file)).toEqual([])
      await driver.stop()
      // No turn of the event loop in between: the stop itself wrote it.
      expect(lines(file).map((e) => [e.trigger, e.outcome, e.note])).toEqual([["stall", "no effect", "settled early: the plugin stopped"]])
    } finally {
      sandbox.close()
    }
  }, 30_000)

  test("negative control: the same time with a live stream records nothing, and /auto-resume history says so", async () => {
    const steps: Step[] = [{ do: "user" }, { do: "text", text: "Looking at the code " }, { do: "stream", ms: STALL }, { do: "end" }, { do: "wait", ms: 20_000 }]
    await played(factory, steps, async (driver, file) => {
      expect(driver.acts.filter((a) => a.act === "send" || a.act === "abort")).toEqual([])
      await driver.play({ do: "pauseCommand", arg: "history" })
      const reply = [...driver.acts].reverse().find((a) => a.act === "reply")
      expect(reply && "text" in reply ? reply.text : "").toMatch(/no interventions recorded/)
      expect(lines(file)).toEqual([])
    })
  }, 30_000)

  describe("a rate-limit wait that runs out while a question is open", () => {
    const waitOut = (asks: boolean): Step[] => [
      { do: "user" },
      { do: "text", text: "Working " },
      { do: "fail", error: "rateLimit" },
      ...(asks ? [{ do: "ask", kind: "question", id: "q1" } as Step] : []),
      { do: "wait", ms: 70_000 },
    ]

    test("is one `held` rate-limit entry naming the open question; nothing goes out", async () => {
      await played(
        factory,
        waitOut(true),
        async (driver, file) => {
          expect(driver.acts.filter((a) => a.act === "send" || a.act === "abort")).toEqual([])
          expect(await until(() => lines(file).length > 0)).toBe(true)
          const entries = lines(file)
          expect(entries).toHaveLength(1)
          expect(entries[0]).toMatchObject({ sessionID: "ses_matrix_main", trigger: "rate limit", action: "continue", outcome: "held", note: "waiting for the user (question or permission open)" })
          expect(entries[0].evidence).toMatch(/^hit 1; waited 1m/)
        },
        { rateLimitCooldownsMs: [60_000] },
      )
    }, 30_000)

    test("negative control: without the question the continue goes out, and the entry is that continue's", async () => {
      await played(
        factory,
        [...waitOut(false), { do: "wait", ms: 20_000 }],
        async (driver, file) => {
          expect(driver.acts.filter((a) => a.act === "send").length).toBe(1)
          expect(await until(() => lines(file).length > 0)).toBe(true)
          expect(lines(file).map((e) => [e.trigger, e.action, e.outcome === "held"])).toEqual([["rate limit", "continue", false]])
        },
        { rateLimitCooldownsMs: [60_000] },
      )
    }, 30_000)
  })
})
