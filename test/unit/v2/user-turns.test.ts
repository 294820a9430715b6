/** Genuine user turns on 2.x, read from inbox items and from history; the plugin's own sends never count. */
import { describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import type { Signal } from "../../../src/core/port.ts"
import { classifyHistory, classifyInboxItem, HistoryWatcher, OwnSends, SeenMessages } from "../../../src/host/v2/user-turns.ts"
import { BUDGET, flush, RECOVERED, makeV2, sends, SID } from "./harness.ts"

const user = (id: string, text = "do it", extra: Record<string, unknown> = {}) => ({ id, type: "user", text, ...extra })
const idle = (id: string, outcome = "succeeded") => ({ id, type: "idle", outcome })
const asst = (id: string) => ({ id, type: "assistant", content: [], model: { id: "m", providerID: "p" }, agent: "build" })

describe("classifyHistory", () => {
  test("only unseen user messages after the newest idle marker count, each once", () => {
    const own = new OwnSends()
    const seen = new SeenMessages()
    const history = [user("u1"), asst("a1"), idle("i1"), user("u2"), asst("a2")]
    expect(classifyHistory(own, seen, "s", history, 0)).toBe("genuine")
    expect(classifyHistory(own, seen, "s", history, 0)).toBeUndefined()
  })

  test("a user message from a finished run never counts, even unseen (it cannot lift a fresh ESC)", () => {
    const history = [user("u1"), asst("a1"), idle("i1", "interrupted")]
    expect(classifyHistory(new OwnSends(), new SeenMessages(), "s", history, 0)).toBeUndefined()
  })

  test("without idle markers (older hosts) every unseen user message counts", () => {
    expect(classifyHistory(new OwnSends(), new SeenMessages(), "s", [user("u1"), asst("a1")], 0)).toBe("genuine")
  })

  test("own: our metadata marker, an id the host returned for our send, or our exact text; synthetic is never genuine", () => {
    const own = new OwnSends()
    own.rememberID("s", "mine")
    own.rememberText("s", "continue — auto-resume", 0)
    const check = (entry: unknown) => classifyHistory(own, new SeenMessages(), "s", [entry], 1000)
    expect(check(user("x1", "go", { metadata: { autoResume: true } }))).toBe("own")
    expect(check(user("mine", "anything"))).toBe("own")
    expect(check(user("x2", "continue — auto-resume"))).toBe("own")
    expect(check({ id: "x3", type: "synthetic", text: "another plugin's nudge" })).toBe("own")
    expect(check(user("x4", "a real request"))).toBe("genuine")
  })

  test("a genuine message wins over our own in the same scan", () => {
    const own = new OwnSends()
    const history = [idle("i0"), user("o1", "c", { metadata: { autoResume: true } }), user("u1", "real")]
    expect(classifyHistory(own, new SeenMessages(), "s", history, 0)).toBe("genuine")
  })

  test("remembered texts expire; the memories are bounded", () => {
    const own = new OwnSends()
    own.rememberText("s", "continue", 0)
    expect(own.isOwn("s", undefined, "continue", 60_000)).toBe(true)
    expect(own.isOwn("s", undefined, "continue", 11 * 60_000)).toBe(false)
    for (let i = 0; i < 20; i++) own.rememberText("s", `t${i}`, 0)
    expect(own.isOwn("s", undefined, "t0", 0)).toBe(false)
    expect(own.isOwn("s", undefined, "t19", 0)).toBe(true)

    const seen = new SeenMessages()
    for (let i = 0; i < 2000; i++) seen.add(`s${i}`, "m")
    expect(seen.sessions).toBeLessThanOrEqual(500)
    for (let i = 0; i < 1000; i++) seen.add("one", `m${i}`)
    expect(seen.add("one", "m999")).toBe(false)
    expect(seen.add("one", "m0")).toBe(true) // long forgotten
  })
})

describe("classifyInboxItem", () => {
  test("a user item is genuine once; our item (metadata in payload) is own; both spellings of the envelope", () => {
    const own = new OwnSends()
    const seen = new SeenMessages()
    const item = { id: "m1", sessionID: "s", type: "user", payload: { text: "hi" }, delivery: "steer" }
    expect(classifyInboxItem(own, seen, "s", { inboxID: "m1", item }, 0)).toBe("genuine")
    expect(classifyInboxItem(own, seen, "s", { inboxID: "m1", item }, 0)).toBeUndefined()
    const ours = { id: "m2", type: "user", payload: { text: "continue", metadata: { autoResume: true } } }
    expect(classifyInboxItem(own, seen, "s", { item: ours }, 0)).toBe("own")
    expect(own.isOwn("s", "m2", "", 0)).toBe(true)
    expect(classifyInboxItem(own, seen, "s", { input: { id: "m3", type: "user", payload: { text: "older name" } } }, 0)).toBe("genuine")
    expect(classifyInboxItem(own, seen, "s", { item: { id: "m4", type: "shell" } }, 0)).toBeUndefined()
  })
})

describe("HistoryWatcher", () => {
  function watcher(read: () => Promise<unknown[]>) {
    const time = new SimulatedTime()
    const out: Signal[] = []
    const errors: unknown[] = []
    const w = new HistoryWatcher({
      own: new OwnSends(),
      seen: new SeenMessages(),
      time,
      readRaw: read,
      timeoutMs: () => 1000,
      knownSetup: () => undefined,
      emit: (s) => out.push(s),
      onReadError: (e) => errors.push(e),
    })
    return { w, out, errors, time }
  }

  test("a scan overtaken by an interruption reports nothing (ESC must win the race)", async () => {
    let release!: (v: unknown[]) => void
    const { w, out } = watcher(() => new Promise((r) => (release = r)))
    const scanning = w.scan("s")
    w.interrupted("s")
    release([user("u1")])
    await scanning
    expect(out).toEqual([])
  })

  test("negative control: the same scan without the interruption reports the genuine turn with the newest model", async () => {
    const { w, out } = watcher(async () => [asst("a0"), idle("i0"), user("u1")])
    await w.scan("s")
    expect(out).toEqual([{ type: "userMessage", sessionID: "s", genuine: true, setup: { agent: "build", model: { providerID: "p", modelID: "m" } } }])
  })

  test("one scan at a time per session; a trigger during a scan runs exactly one more", async () => {
    let reads = 0
    const { w } = watcher(async () => {
      reads++
      return []
    })
    const first = w.scan("s")
    void w.scan("s")
    void w.scan("s")
    await first
    await flush()
    expect(reads).toBe(2)
  })

  test("a read that hangs is abandoned after the timeout and reported", async () => {
    const { w, errors, time } = watcher(() => new Promise(() => {}))
    const scanning = w.scan("s")
    time.advance(1000)
    await scanning
    expect(errors).toHaveLength(1)
  })
})

describe("on the fake host", () => {
  test("ESC latches; a run the host starts by itself does not lift it; the user's next message does", async () => {
    const r = makeV2()
    r.host.userTurn(SID)
    r.host.textDelta(SID)
    await r.advance(1000)
    r.host.userEsc(SID)
    await r.advance(1000)
    expect(r.instance.engine.status(SID)?.cancelledByUser).toBe(true)
    r.host.startRun(SID)
    await r.advance(BUDGET * 3)
    expect(sends(r.host)).toBe(0)
    r.host.finishRun(SID)
    r.host.userTurn(SID, "now continue please")
    await r.advance(RECOVERED)
    expect(r.instance.engine.status(SID)?.cancelledByUser).toBe(false)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("the same holds on a release without inbox events (history only)", async () => {
    const r = makeV2({ host: { inboxEvents: false } })
    r.host.userTurn(SID)
    await r.advance(1000)
    r.host.userEsc(SID)
    r.host.startRun(SID)
    await r.advance(BUDGET * 2)
    expect(sends(r.host)).toBe(0)
    r.host.finishRun(SID)
    r.host.userTurn(SID, "go on")
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("a run that hangs before its first step: the history read at run start still lifts the latch", async () => {
    const r = makeV2({ host: { inboxEvents: false } })
    r.host.userTurn(SID)
    await r.advance(1000)
    r.host.userEsc(SID)
    await r.advance(1000)
    r.host.userTurn(SID, "try again", { firstStep: false })
    await r.advance(1000)
    expect(r.instance.engine.status(SID)?.cancelledByUser).toBe(false)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("the first turn of a session takes its model from the first step: a local model gets the slow profile's budget", async () => {
    const r = makeV2({ host: { model: { id: "qwen3", providerID: "ollama" } } })
    r.host.userTurn(SID)
    await r.advance(1000)
    expect(r.instance.engine.status(SID)?.profile).toBe("slow")
    await r.advance(BUDGET + 60_000)
    expect(sends(r.host)).toBe(0)
    await r.advance(600_000)
    expect(sends(r.host)).toBe(1)
    r.instance.stop()
  })

  test("our own continues never re-arm the budgets: a dead stream gets at most finishedTurnMaxNudges continues", async () => {
    for (const inboxEvents of [true, false]) {
      const r = makeV2({ host: { inboxEvents } })
      r.host.userTurn(SID)
      await r.advance(60 * 60_000)
      expect(sends(r.host)).toBe(3)
      expect(r.logged(/genuine user message/)).toBe(false)
      r.instance.stop()
    }
  })
})
