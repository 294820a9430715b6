/**
 * A full context on 2.x, through the default export's v2 adapter on the fake host: a build
 * that has `session.compact` gets it once and one continue after the host reports the
 * compaction ended; a build without it (2.0.16) stands down once; the host's own compaction
 * ending releases the latch.
 */
import { describe, expect, test } from "bun:test"
import { makeV2, SID } from "./harness.ts"

const OVERFLOW = { type: "provider.context-overflow", message: "prompt is too long: 210000 tokens > 200000 maximum", status: 400 }
const STREAM = { type: "provider.transport", message: "the response stream ended before the answer was complete" }

const sends = (r: ReturnType<typeof makeV2>) => [...r.host.callsTo("session.prompt"), ...r.host.callsTo("session.synthetic")].map((c) => String((c.args[0] as { text?: unknown }).text ?? ""))

describe("a full context on 2.x", () => {
  test("the host does not compact: session.compact once, then one continue once it ended", async () => {
    const r = makeV2({ host: { version: "2.0.22" } })
    r.host.userTurn(SID)
    r.host.textDelta(SID, "Reading the files ")
    r.host.failRun(SID, OVERFLOW)
    await r.advance(10_000)
    expect(r.host.callsTo("session.compact")).toHaveLength(1)
    expect(sends(r)).toHaveLength(0) // nothing before the compaction ended
    r.host.emit("session.compaction.started", { sessionID: SID })
    r.host.emit("session.compaction.ended", { sessionID: SID })
    await r.advance(10_000)
    expect(sends(r).filter((t) => /compacted into a summary/.test(t))).toHaveLength(1)
    expect(r.host.callsTo("session.compact")).toHaveLength(1)
    r.instance.stop()
  })

  test("negative control: the same run failing on a dropped stream gets no compaction", async () => {
    const r = makeV2({ host: { version: "2.0.22" } })
    r.host.userTurn(SID)
    r.host.textDelta(SID, "Reading the files ")
    r.host.failRun(SID, STREAM)
    await r.advance(10_000)
    expect(r.host.callsTo("session.compact")).toHaveLength(0)
    expect(sends(r).some((t) => /compacted/.test(t))).toBe(false)
    r.instance.stop()
  })

  test("a build without session.compact (2.0.16): one stand-down line, nothing sent", async () => {
    const r = makeV2({ host: { version: "2.0.16" } })
    r.host.userTurn(SID)
    r.host.failRun(SID, OVERFLOW)
    await r.advance(60_000)
    expect(sends(r)).toHaveLength(0)
    expect(r.logs.filter((l) => /context recovery stands down/.test(l.message))).toHaveLength(1)
    r.instance.stop()
  })

  test("the host's own compaction ends the latch: the next turn's printed tool call is corrected", async () => {
    const r = makeV2({ host: { version: "2.0.22" }, options: { toolTextCheckDelayMs: 300 } })
    r.host.userTurn(SID)
    r.host.failRun(SID, OVERFLOW)
    // The host compacts as the run ends, before our look.
    r.host.emit("session.compaction.started", { sessionID: SID })
    await r.advance(10_000)
    expect(r.host.callsTo("session.compact")).toHaveLength(0)
    r.host.emit("session.compaction.ended", { sessionID: SID })
    // Its continue (no user turn of the plugin's own), answered with a printed call.
    r.host.startRun(SID)
    r.host.textDelta(SID, '<function=bash>{"command": "ls"}</function>')
    r.host.finishRun(SID)
    await r.advance(10_000)
    expect(sends(r).filter((t) => /wrote a tool call out as text/.test(t))).toHaveLength(1)
    r.instance.stop()
  })

  test("control: while the host's compaction has not ended, the printed call gets nothing", async () => {
    const r = makeV2({ host: { version: "2.0.22" }, options: { toolTextCheckDelayMs: 300 } })
    r.host.userTurn(SID)
    r.host.failRun(SID, OVERFLOW)
    r.host.emit("session.compaction.started", { sessionID: SID })
    await r.advance(10_000)
    r.host.startRun(SID)
    r.host.textDelta(SID, '<function=bash>{"command": "ls"}</function>')
    r.host.finishRun(SID)
    await r.advance(10_000)
    expect(sends(r)).toHaveLength(0)
    r.instance.stop()
  })
})
