/** The rails that keep the plugin from hurting the user. Each with its negative control. */
import { describe, expect, test } from "bun:test"
import { MAX_TRACKED_SESSIONS } from "../../../src/core/engine.ts"
import { makeHarness, settle, userTurn } from "../../support/harness.ts"
import { MAX_IDLE_SESSIONS, IDLE_CLEANUP_MS } from "../../../src/options/index.ts"

const BUDGET = 183_000

describe("ESC", () => {
  test("a user abort latches the session: nothing is sent however long it stays busy", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "interrupted" }, { type: "busy" })
    await h.advance(20 * 60_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
  })

  test("negative control: without the abort the same timeline recovers", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "busy" })
    await h.advance(20 * 60_000, 5000)
    expect(h.port.calls.length).toBeGreaterThan(0)
  })

  test("ESC during the backoff wins the race against the pending continue", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(BUDGET + 100, 100) // stall found, continue scheduled 1 s later
    h.emit({ type: "interrupted" })
    await h.advance(5000)
    expect(h.port.calls).toHaveLength(0)
  })

  test("ESC between our abort and its continue is still a user stop once our abort was consumed", async () => {
    const h = makeHarness({ busyStallStrategy: "abort" })
    h.emit(...userTurn)
    await h.advance(BUDGET + 1000, 1000)
    h.emit({ type: "interrupted" }) // ours
    h.emit({ type: "interrupted" }) // the user's, a moment later
    await h.advance(5000)
    expect(h.port.actions).toEqual(["abort"])
    expect(h.engine.status("s1")?.cancelledByUser).toBe(true)
  })

  test("a genuine user message re-arms the session; the plugin's own prompt does not", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "interrupted" })
    h.emit({ type: "userMessage", genuine: false }, { type: "busy" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.calls).toHaveLength(0)
    h.emit(...userTurn)
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })
})

describe("waiting for the user", () => {
  test("an open permission or question holds stall recovery", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "awaitingUser", key: "perm1", open: true })
    await h.advance(20 * 60_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    expect(h.port.logged(/held: waiting for the user/)).toBe(true)
  })

  test("negative control: once answered, a later silence is recovered", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "awaitingUser", key: "perm1", open: true }, { type: "awaitingUser", key: "perm1", open: false })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })
})

describe("pause", () => {
  test("a paused session gets nothing; resumed, its stall is recovered within one check interval", async () => {
    const h = makeHarness()
    h.pauses.pause("s1")
    h.emit(...userTurn)
    await h.advance(10 * 60_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    h.pauses.resume("s1")
    await h.advance(5000 + 1000, 500)
    expect(h.port.sends).toHaveLength(1)
  })

  test("a pause that lands during the backoff still stops the send", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(BUDGET + 100, 100)
    h.pauses.pause("s1")
    await h.advance(5000)
    expect(h.port.calls).toHaveLength(0)
  })
})

describe("host calls", () => {
  test("a send that never settles is abandoned after sendTimeoutMs and the slot frees", async () => {
    const h = makeHarness({ sendTimeoutMs: 10_000 })
    h.port.sendBehaviour = "hang"
    h.emit(...userTurn)
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.sends).toHaveLength(1)
    await h.advance(10_000, 1000)
    expect(h.engine.status("s1")).toBeDefined()
    expect(h.port.logged(/send continue timeout/)).toBe(true)
    h.port.sendBehaviour = "ok"
    h.emit({ type: "modelOutput" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.sends).toHaveLength(2)
  })

  test("a session deleted while its send hangs and revived by a late event does not get a second call beside it", async () => {
    // A stall budget well under sendTimeoutMs, so the revived session stalls while the first send still hangs.
    const fast = { chunkTimeoutMs: 1000, gracePeriodMs: 0, baseBackoffMs: 0, checkIntervalMs: 500, sendTimeoutMs: 30_000 }
    const revived = async (deleted: boolean) => {
      const h = makeHarness(fast)
      h.port.sendBehaviour = "hang"
      h.emit(...userTurn)
      await h.advance(1500, 100)
      expect(h.port.sends).toHaveLength(1)
      if (deleted) h.emit({ type: "sessionDeleted" })
      h.emit({ type: "busy" }) // a late event for the id
      await h.advance(5000, 100)
      const during = h.port.calls.length
      const held = h.port.logged(/stall recovery held: a recovery is already under way/)
      // Once the first send is abandoned (sendTimeoutMs), the slot is free again.
      await h.advance(30_000, 100)
      return { during, held, after: h.port.calls.length }
    }
    // The revived session stalls and is held by the first call's slot, then acts once it frees.
    const afterDelete = await revived(true)
    expect(afterDelete).toMatchObject({ during: 1, held: true })
    expect(afterDelete.after).toBeGreaterThan(1)
    // Control: without the delete the same session is held the same way.
    expect(await revived(false)).toMatchObject({ during: 1, held: true })
  })

  test("a port that throws synchronously or rejects never throws out of the engine", async () => {
    for (const behaviour of ["throw", "reject"] as const) {
      const h = makeHarness({ busyStallStrategy: "abort" })
      h.port.abortBehaviour = behaviour
      h.port.sendBehaviour = behaviour
      h.emit(...userTurn)
      await h.advance(3 * BUDGET, 1000)
      expect(h.port.aborts).toBeGreaterThan(0)
      expect(h.port.logs.filter((l) => /abort failed/.test(l.message) && l.level === "warn")).toHaveLength(1)
    }
  })

  test("a malformed signal is ignored", async () => {
    const h = makeHarness()
    expect(() => h.engine.handle(undefined as never)).not.toThrow()
    expect(() => h.engine.handle({ type: "busy" } as never)).not.toThrow()
    expect(() => h.engine.handle({ type: "nonsense", sessionID: "x" } as never)).not.toThrow()
    await settle()
    expect(h.port.calls).toHaveLength(0)
  })
})

describe("profiles", () => {
  test("a local provider gets the slow profile: no stall at the fast budget", async () => {
    const h = makeHarness()
    h.emit({ type: "userMessage", genuine: true, setup: { model: { providerID: "ollama", modelID: "qwen" } } }, { type: "busy" })
    await h.advance(BUDGET + 30_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    await h.advance(660_000 - BUDGET, 5000)
    expect(h.port.sends).toHaveLength(1)
  })

  test("a mid-session switch to an online model is honoured at detection time", async () => {
    const h = makeHarness()
    h.emit({ type: "userMessage", genuine: true, setup: { model: { providerID: "ollama", modelID: "qwen" } } }, { type: "idle" })
    h.emit({ type: "userMessage", genuine: true, setup: { model: { providerID: "anthropic", modelID: "c" } } }, { type: "busy" })
    await h.advance(BUDGET + 2000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })

  test("modelProfiles overrides apply per provider", async () => {
    const h = makeHarness({ modelProfiles: { anthropic: { chunkTimeoutMs: 10_000 } } })
    h.emit({ type: "userMessage", genuine: true, setup: { model: { providerID: "anthropic", modelID: "c" } } }, { type: "busy" })
    await h.advance(15_000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })
})

describe("bounded state", () => {
  test("the session map never exceeds its ceiling, and idle sessions are swept", async () => {
    const h = makeHarness()
    for (let i = 0; i < MAX_TRACKED_SESSIONS + 500; i++) h.engine.handle({ type: "activity", sessionID: `x${i}` })
    expect(h.engine.trackedSessions).toBeLessThanOrEqual(MAX_TRACKED_SESSIONS)
    await h.advance(60_000, 60_000)
    expect(h.engine.trackedSessions).toBeLessThanOrEqual(MAX_IDLE_SESSIONS)
    await h.advance(IDLE_CLEANUP_MS + 60_000, 60_000)
    expect(h.engine.trackedSessions).toBe(0)
  })

  test("negative control: a busy session is not swept", async () => {
    const h = makeHarness({ busyStallStrategy: "off" })
    h.emit(...userTurn)
    await h.advance(IDLE_CLEANUP_MS + 120_000, 60_000)
    expect(h.engine.status("s1")?.busy).toBe(true)
  })

  test("deleted sessions are forgotten at once", () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "sessionDeleted" })
    expect(h.engine.status("s1")).toBeUndefined()
  })
})

describe("sweeping keeps what protects the user", () => {
  const rateLimit = { type: "error", name: "APIError", message: "Rate limit exceeded", status: 429 } as const

  test("a rate-limit wait longer than the idle sweep (the default first rung, 15 min) still sends its continue", async () => {
    const h = makeHarness()
    h.emit(...userTurn, rateLimit, { type: "idle" })
    await h.advance(14 * 60_000, 60_000)
    expect(h.port.sends).toHaveLength(0)
    expect(h.engine.status("s1")).toBeDefined()
    await h.advance(2 * 60_000, 10_000)
    expect(h.port.sends).toHaveLength(1)
  })

  test("negative control: the same idle session without a wait is swept, and nothing is sent", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "idle" })
    await h.advance(16 * 60_000, 60_000)
    expect(h.engine.status("s1")).toBeUndefined()
    expect(h.port.sends).toHaveLength(0)
  })

  test("a swept idle session that runs again without a user message keeps its ESC latch", async () => {
    const h = makeHarness()
    h.emit(...userTurn, { type: "interrupted" }, { type: "idle" })
    await h.advance(IDLE_CLEANUP_MS + 120_000, 60_000)
    expect(h.engine.status("s1")).toBeUndefined()
    h.emit({ type: "busy" })
    await h.advance(5 * 60_000, 5000)
    expect(h.port.calls).toHaveLength(0)
    // Negative control: a genuine user message re-arms it as always.
    h.emit(...userTurn)
    await h.advance(190_000, 1000)
    expect(h.port.sends).toHaveLength(1)
  })

  test("a tool that starts while a continue waits out its backoff blocks that continue", async () => {
    const h = makeHarness()
    h.emit(...userTurn)
    await h.advance(BUDGET + 100, 100) // stall found; continue due 1 s later
    h.time.jump(0)
    h.engine.handle({ type: "toolStart", sessionID: "s1", callID: "late", tool: "bash" })
    await h.advance(5000)
    expect(h.port.calls).toHaveLength(0)
  })
})
