/** /auto-resume on v2: registered through ctx.command.transform, immediate, no model turn. */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { registerV2PauseCommand, type V2CommandInfo } from "../../../src/host/v2/command.ts"
import { FakePauses, NOW, sampleStatus } from "../pause/helpers.ts"

function fakeCtx(opts: { synthetic?: boolean; transformFails?: boolean } = {}) {
  const added: V2CommandInfo[] = []
  const synthetic: unknown[] = []
  let disposed = 0
  const ctx = {
    command: {
      transform: async (cb: (editor: { add(info: V2CommandInfo): void }) => void) => {
        if (opts.transformFails) throw new Error("editor closed")
        cb({ add: (info) => added.push(info) })
        return { dispose: () => disposed++ }
      },
    },
    session: opts.synthetic === false ? {} : { synthetic: async (input: unknown) => void synthetic.push(input) },
  }
  return { ctx, added, synthetic, disposed: () => disposed }
}

const deps = (pauses = new FakePauses(), logs: string[] = []) => ({
  engine: { status: () => sampleStatus({ busy: true }) },
  pauses,
  log: (level: string, message: string) => void logs.push(`${level} ${message}`),
  now: () => NOW,
})

describe("registerV2PauseCommand", () => {
  test("adds /auto-resume; execute pauses, replies without waking the session, returns nothing", async () => {
    const { ctx, added, synthetic, disposed } = fakeCtx()
    const pauses = new FakePauses()
    const registration = await registerV2PauseCommand(ctx, deps(pauses))
    expect(added).toHaveLength(1)
    expect(added[0]!.name).toBe("auto-resume")
    expect(added[0]!.description).toContain("off pauses")

    const result = await added[0]!.execute({ sessionID: "ses_a", prompt: { text: " OFF " }, delivery: "steer", messageID: "msg_1" })
    expect(result).toBeUndefined() // immediate: no model turn
    expect(pauses.isPaused("ses_a")).toBe(true)
    expect(synthetic).toEqual([
      { sessionID: "ses_a", text: expect.stringContaining("is paused"), description: "auto-resume", metadata: { autoResume: true, kind: "pause-command" }, resume: false },
    ])

    await added[0]!.execute({ sessionID: "ses_a", prompt: { text: "" } })
    expect((synthetic[1] as { text: string }).text).toContain("Budgets spent")
    await added[0]!.execute({ sessionID: "ses_a", prompt: { text: "on" } })
    expect(pauses.isPaused("ses_a")).toBe(false)
    await added[0]!.execute({ sessionID: "ses_a", prompt: { text: "loudly" } })
    expect((synthetic[3] as { text: string }).text).toContain("Usage: /auto-resume")

    registration!.dispose()
    expect(disposed()).toBe(1)
  })

  test("a custom reply channel is used when given; a failing one is only logged", async () => {
    const { ctx, added, synthetic } = fakeCtx()
    const logs: string[] = []
    const replies: string[] = []
    await registerV2PauseCommand(ctx, { ...deps(new FakePauses(), logs), reply: (_id, text) => void replies.push(text) })
    await added[0]!.execute({ sessionID: "ses_a", prompt: { text: "status" } })
    expect(replies[0]).toContain("ses_a")
    expect(synthetic).toHaveLength(0)

    const second = fakeCtx()
    await registerV2PauseCommand(second.ctx, {
      ...deps(new FakePauses(), logs),
      reply: () => {
        throw new Error("no ui")
      },
    })
    expect(await second.added[0]!.execute({ sessionID: "ses_a", prompt: { text: "off" } })).toBeUndefined()
    expect(logs.some((l) => l.startsWith("warn /auto-resume failed: no ui"))).toBe(true)
  })

  test("no synthetic on the host: still works, silently", async () => {
    const { ctx, added } = fakeCtx({ synthetic: false })
    const pauses = new FakePauses()
    await registerV2PauseCommand(ctx, deps(pauses))
    expect(await added[0]!.execute({ sessionID: "ses_a", prompt: { text: "off" } })).toBeUndefined()
    expect(pauses.isPaused("ses_a")).toBe(true)
  })

  test("a host without command.transform, or one that fails, gets undefined and a log line", async () => {
    const logs: string[] = []
    expect(await registerV2PauseCommand({}, deps(new FakePauses(), logs))).toBeUndefined()
    expect(await registerV2PauseCommand(fakeCtx({ transformFails: true }).ctx, deps(new FakePauses(), logs))).toBeUndefined()
    expect(logs).toHaveLength(2)
    expect(logs[1]).toContain("editor closed")
  })

  test("an invocation without a session does nothing", async () => {
    const { ctx, added, synthetic } = fakeCtx()
    await registerV2PauseCommand(ctx, deps())
    expect(await added[0]!.execute({ prompt: { text: "off" } })).toBeUndefined()
    expect(synthetic).toHaveLength(0)
  })

  test("a reply that never settles is given up after the bound; the pause still holds", async () => {
    const { ctx, added } = fakeCtx()
    const time = new SimulatedTime()
    const logs: string[] = []
    const pauses = new FakePauses()
    await registerV2PauseCommand(ctx, { ...deps(pauses, logs), reply: () => new Promise<void>(() => {}), time, timeoutMs: () => 1000 })
    let done = false
    const running = added[0]!.execute({ sessionID: "ses_a", prompt: { text: "off" } }).then(() => (done = true))
    for (let i = 0; i < 5; i++) await Promise.resolve()
    expect(pauses.isPaused("ses_a")).toBe(true)
    expect(done).toBe(false)
    time.advance(1000)
    await running
    expect(logs.some((l) => /\/auto-resume failed: .*did not settle within 1000ms/.test(l))).toBe(true)
  })

  test("a session whose provider refused a synthetic message gets no synthetic reply, only the log line", async () => {
    const { ctx, added, synthetic } = fakeCtx()
    const logs: string[] = []
    const pauses = new FakePauses()
    await registerV2PauseCommand(ctx, { ...deps(pauses, logs), syntheticRefused: new Set(["ses_a"]) })
    await added[0]!.execute({ sessionID: "ses_a", prompt: { text: "off" } })
    expect(pauses.isPaused("ses_a")).toBe(true)
    expect(synthetic).toHaveLength(0)
    expect(logs.some((l) => l.includes("session ses_a: /auto-resume off"))).toBe(true)
    // Negative control: another session still gets its reply.
    await added[0]!.execute({ sessionID: "ses_b", prompt: { text: "off" } })
    expect(synthetic).toHaveLength(1)
  })
})
