/** Session discovery: sessions running without our having seen their events are picked up. */
import { describe, expect, test } from "bun:test"
import { makeHarness, userTurn } from "../../support/harness.ts"

describe("session discovery", () => {
  test("a running session missed by events is found after discoveryDelayMs and recovered when it stalls", async () => {
    const h = makeHarness({ discoveryDelayMs: 5000 })
    h.port.busySessions = ["ghost"]
    await h.advance(5000)
    expect(h.engine.status("ghost")?.busy).toBe(true)
    await h.advance(190_000, 1000)
    expect(h.port.sends.map((s) => s.sessionID)).toContain("ghost")
  })

  test("negative control: an empty listing finds nothing and sends nothing", async () => {
    const h = makeHarness({ discoveryDelayMs: 5000 })
    h.port.busySessions = []
    await h.advance(200_000, 1000)
    expect(h.engine.trackedSessions).toBe(0)
    expect(h.port.calls).toHaveLength(0)
  })

  test("a session we think busy but the host no longer runs is marked idle, not continued", async () => {
    const h = makeHarness({ discoveryDelayMs: 5000 })
    h.port.busySessions = []
    h.emit(...userTurn)
    await h.advance(190_000, 1000)
    expect(h.engine.status("s1")?.busy).toBe(false)
    expect(h.port.sends).toHaveLength(0)
  })

  test("discovery repeats every minute, and a failing listing is one warning, not one per run", async () => {
    const h = makeHarness({ discoveryDelayMs: 1000 })
    await h.advance(5 * 60_000, 5000)
    expect(h.port.logs.filter((l) => l.level === "warn" && /discovery failed/.test(l.message))).toHaveLength(1)
    h.port.busySessions = ["late"]
    await h.advance(60_000, 5000)
    expect(h.engine.status("late")?.busy).toBe(true)
  })
})
