/** Tool misuse through the whole engine: unknown tools, idle loops, live loops. */
import { describe, expect, test } from "bun:test"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { ABORT_CONTINUE_DELAY_MS } from "../../../src/options/constants.ts"
import { makeHarness, userTurn } from "../../support/harness.ts"

const bash = (id: string, command: string): TranscriptMessage => ({
  id,
  role: "assistant",
  parts: [{ kind: "tool", callID: `c-${id}`, tool: "bash", status: "completed", input: { command } }],
  finish: "tool-calls",
})
const wrong = (id: string): TranscriptMessage => ({
  id,
  role: "assistant",
  parts: [{ kind: "tool", callID: `c-${id}`, tool: "bassh", status: "error", error: "unavailable tool" }],
})
const said = (id: string, text: string): TranscriptMessage => ({ id, role: "assistant", parts: [{ kind: "text", text }], finish: "stop" })
const user = (id: string, own = false): TranscriptMessage => ({ id, role: "user", parts: [{ kind: "text", text: "go" }], own })

describe("unknown tools", () => {
  test("a wrong tool name seen twice gets one suggestion naming the closest tool, even right after the user's message", async () => {
    const h = makeHarness({ toolTextCheckDelayMs: 500 })
    h.port.tools = ["bash", "read", "edit"]
    h.port.history.set("s1", [user("u1"), wrong("a1"), wrong("a2"), said("a3", "That tool did not work.")])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(3000)
    expect(h.port.sends).toHaveLength(1)
    expect(h.port.sends[0]!.text).toContain("bash")
    expect(h.port.sends[0]!.kind).toBe("correction")
  })

  test("negative controls: one wrong call, or no tool list, suggests nothing", async () => {
    const once = makeHarness({ toolTextCheckDelayMs: 500 })
    once.port.tools = ["bash"]
    once.port.history.set("s1", [user("u1"), wrong("a1"), said("a3", "That tool did not work.")])
    once.emit(...userTurn, { type: "idle" })
    await once.advance(3000)
    expect(once.port.sends).toHaveLength(0)

    const blind = makeHarness({ toolTextCheckDelayMs: 500 })
    blind.port.tools = []
    blind.port.history.set("s1", [user("u1"), wrong("a1"), wrong("a2"), said("a3", "That tool did not work.")])
    blind.emit(...userTurn, { type: "idle" })
    await blind.advance(3000)
    expect(blind.port.sends).toHaveLength(0)
  })

  test("wrong calls a suggestion covered are not answered again at the next turn; after the user writes, new ones are", async () => {
    const h = makeHarness({ toolTextCheckDelayMs: 500 })
    h.port.tools = ["bash", "read", "edit"]
    const turn = [user("u1"), wrong("a1"), wrong("a2"), said("a3", "That tool did not work.")]
    h.port.history.set("s1", turn)
    h.emit(...userTurn, { type: "idle" })
    await h.advance(3000)
    expect(h.port.sends).toHaveLength(1)
    // Our prompt ran a turn that ended with no new wrong call: the same two calls are covered.
    h.port.history.set("s1", [...turn, user("u2", true), said("a4", "Trying again.")])
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" }, { type: "idle" })
    await h.advance(3000)
    expect(h.port.sends).toHaveLength(1)
    // Control: the user wrote, and the model tried the wrong name twice again.
    h.port.history.set("s1", [user("u3"), wrong("a5"), wrong("a6"), said("a7", "That tool did not work either.")])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(3000)
    expect(h.port.sends).toHaveLength(2)
  })
})

describe("idle tool loops", () => {
  const loop = [user("u1"), bash("a1", "ls"), bash("a2", "ls"), bash("a3", "ls"), said("a4", "Still looking.")]

  test("the same call three times in a row gets the loop prompt", async () => {
    const h = makeHarness({ toolTextCheckDelayMs: 500 })
    h.port.history.set("s1", loop)
    h.emit(...userTurn, { type: "idle" })
    await h.advance(3000)
    expect(h.port.sends.map((s) => s.kind)).toEqual(["correction"])
  })

  test("a loop already answered by a plugin prompt is not answered again until it forms again", async () => {
    const h = makeHarness({ toolTextCheckDelayMs: 500 })
    h.port.history.set("s1", [...loop, user("p1", true), said("a5", "Understood.")])
    h.emit(...userTurn, { type: "idle" })
    await h.advance(3000)
    expect(h.port.sends).toHaveLength(0)
  })
})

describe("live tool loops", () => {
  test("six identical calls abort the run before the next one and send the loop prompt", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    for (let i = 0; i < 6; i++) h.emit({ type: "toolStart", callID: `c${i}`, tool: "read", args: { path: "a.ts", offset: 0 } }, { type: "toolEnd", callID: `c${i}` })
    await h.advance(100)
    expect(h.port.actions).toEqual(["abort"])
    h.emit({ type: "interrupted" }, { type: "idle" })
    await h.advance(ABORT_CONTINUE_DELAY_MS + 500)
    expect(h.port.actions).toEqual(["abort", "send"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(false)
  })

  test("a loop seen again while the first loop's abort is still out is left alone: one recovery at a time", async () => {
    const h = makeHarness()
    h.port.abortBehaviour = "hang"
    h.emit(...userTurn)
    const loop = (from: number) => {
      for (let i = from; i < from + 6; i++) h.emit({ type: "toolStart", callID: `c${i}`, tool: "read", args: { path: "a.ts", offset: 0 } }, { type: "toolEnd", callID: `c${i}` })
    }
    loop(0)
    await h.advance(100)
    expect(h.port.actions).toEqual(["abort"])
    loop(6)
    await h.advance(100)
    expect(h.port.logged(/live tool loop .* left alone: a recovery is already under way/)).toBe(true)
    expect(h.engine.status("s1")?.lifetimeContinues).toBe(1)
  })

  test("a provider that numbers calls per turn (call_0, call_1...): the next turn's calls are new calls", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    for (let i = 0; i < 3; i++) h.emit({ type: "toolStart", callID: `call_${i}`, tool: "read", args: { path: "a.ts" } }, { type: "toolEnd", callID: `call_${i}` })
    h.emit({ type: "idle" }, { type: "userMessage", genuine: false }, { type: "busy" })
    for (let i = 0; i < 3; i++) h.emit({ type: "toolStart", callID: `call_${i}`, tool: "read", args: { path: "a.ts" } }, { type: "toolEnd", callID: `call_${i}` })
    await h.advance(100)
    expect(h.port.actions).toEqual(["abort"])
  })

  test("negative controls: paging through a file is not a loop; re-announced calls are not new calls; ESC wins", async () => {
    const paging = makeHarness()
    paging.emit(...userTurn)
    for (let i = 0; i < 8; i++) paging.emit({ type: "toolStart", callID: `c${i}`, tool: "read", args: { path: "a.ts", offset: i * 100 } })
    await paging.advance(3000)
    expect(paging.port.calls).toHaveLength(0)

    const repeated = makeHarness()
    repeated.emit(...userTurn)
    for (let i = 0; i < 8; i++) repeated.emit({ type: "toolStart", callID: "same", tool: "read", args: { path: "a.ts" } })
    await repeated.advance(3000)
    expect(repeated.port.calls).toHaveLength(0)

    const esc = makeHarness()
    esc.emit(...userTurn, { type: "interrupted" }, { type: "busy" })
    for (let i = 0; i < 6; i++) esc.emit({ type: "toolStart", callID: `c${i}`, tool: "read", args: { path: "a.ts" } })
    await esc.advance(3000)
    expect(esc.port.calls).toHaveLength(0)
  })
})
