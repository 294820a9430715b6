/**
 * What the user is told at once (core/notices.ts), heard from the history as the journal book
 * makes it: a give-up, a fallback taking over, a recovery held while the session waits on the
 * user. Once per session and event, never for an ordinary entry, bounded in time, never
 * throwing; a host without a toast API (2.x) is not asked, and its status still says it.
 */
import { describe, expect, test } from "bun:test"
import { JournalBook } from "../../../src/core/journal-book.ts"
import { Notices } from "../../../src/core/notices.ts"
import type { HostPort, Toast } from "../../../src/core/port.ts"
import { AWAITING_USER } from "../../../src/runtime/may-act.ts"
import { bareContext } from "../../support/bare-context.ts"
import { RecordingPort } from "../../support/recording-port.ts"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { RecoveryEngine } from "../../../src/core/engine.ts"
import { recoveryPaths } from "../../../src/paths/index.ts"
import { resolveOptions } from "../../../src/options/index.ts"
import type { Signal } from "../../../src/core/port.ts"

type ToastBehaviour = "ok" | "reject" | "hang" | "throw"

function rig(withToast = true) {
  const base = bareContext()
  const toasts: Toast[] = []
  let behaviour: ToastBehaviour = "ok"
  if (withToast) {
    const toast = (t: Toast): Promise<void> => {
      toasts.push(t)
      if (behaviour === "throw") throw new Error("no tui")
      if (behaviour === "reject") return Promise.reject(new Error("no tui"))
      if (behaviour === "hang") return new Promise<void>(() => {})
      return Promise.resolve()
    }
    Object.assign(base.port, { toast })
  }
  const notices = new Notices(() => base.ctx)
  const book = new JournalBook(() => base.ctx, (state, entry, outcome) => notices.heard(state, entry, outcome))
  const ctx = Object.assign(base.ctx, { journal: book })
  return { ...base, ctx, book, notices, toasts, behave: (b: ToastBehaviour) => void (behaviour = b) }
}

const STALL = { trigger: "stall", evidence: "silent for 3m 4s" }
const FALLBACK = { trigger: "fallback", evidence: "rate limited: HTTP 429" }

describe("the events the user is told of", () => {
  test("a give-up: one warning toast naming the session, why, and what the user can do", () => {
    const r = rig()
    r.book.refused(r.state, STALL, "continue", "gave up", "lifetime cap reached (9/9); waiting for the user")
    expect(r.toasts).toEqual([
      {
        title: "auto-resume",
        variant: "warning",
        durationMs: 10_000,
        message: "auto-resume gave up on session s1 (stall: lifetime cap reached (9/9); waiting for the user). Nothing more is sent until you write.",
      },
    ])
    expect(r.notices.last(r.state)?.kind).toBe("gave up")
  })

  test("a fallback model taking over: told when the switch is made, not when its outcome settles", () => {
    const r = rig()
    r.book.acted(r.state, { ...FALLBACK, action: "model switch to anthropic/claude-y + continue" }, "continue")
    expect(r.toasts.map((t) => t.message)).toEqual([
      "auto-resume switched session s1 to anthropic/claude-y (rate limited: HTTP 429). It goes back to your own model once that model's wait is over, or as soon as you write.",
    ])
  })

  test("with fallbackReturnToModel off, the toast says only the user's message takes the session back", () => {
    const r = rig()
    const options = { ...r.ctx.effective(r.state), fallbackReturnToModel: false }
    r.ctx.effective = () => options
    r.book.acted(r.state, { ...FALLBACK, action: "model switch to anthropic/claude-y + continue" }, "continue")
    expect(r.toasts.map((t) => t.message)).toEqual(["auto-resume switched session s1 to anthropic/claude-y (rate limited: HTTP 429). Your next message goes back to your own model."])
  })

  test("a recovery held because the session waits on the user's answer", () => {
    const r = rig()
    r.book.refused(r.state, STALL, "continue", "held", AWAITING_USER)
    expect(r.toasts.map((t) => t.message)).toEqual(["Session s1 waits for your answer (a question or permission is open): auto-resume holds its continue until you answer."])
  })

  test("negative controls: an ordinary recovery, and a hold of another reason, tell nothing", () => {
    const r = rig()
    r.book.acted(r.state, STALL, "abort + continue")
    r.book.refused(r.state, STALL, "continue", "held", "paused")
    r.book.refused(r.state, STALL, "continue", "held", "cancelled by the user (ESC)")
    r.book.refused(r.state, { trigger: "tool-text", evidence: "x" }, "prompt", "no effect", "the host refused the call")
    expect(r.toasts).toEqual([])
    expect(r.notices.last(r.state)).toBeUndefined()
  })
})

describe("at most once per session and event", () => {
  test("a give-up journaled again (another path, another run) is not told again until the user writes", () => {
    const r = rig()
    r.book.refused(r.state, STALL, "continue", "gave up", "retries exhausted (3/3)")
    r.state.runEpoch++
    r.book.refused(r.state, { trigger: "provider failure", evidence: "x" }, "continue", "gave up", "failure loop")
    expect(r.toasts).toHaveLength(1)
    // The user's next message is a new turn: a give-up in it is a new event.
    r.state.lastGenuineUserAt = r.time.now() + 1
    r.book.refused(r.state, STALL, "continue", "gave up", "retries exhausted (3/3)")
    expect(r.toasts).toHaveLength(2)
  })

  test("the wait on the user is told once per run, a fallback once per model", () => {
    const r = rig()
    for (let i = 0; i < 3; i++) r.book.refused(r.state, { ...STALL, evidence: `silent ${i}` }, "continue", "held", AWAITING_USER)
    r.state.runEpoch++
    r.book.refused(r.state, STALL, "continue", "held", AWAITING_USER)
    for (const model of ["a/one", "a/one", "b/two"]) r.book.acted(r.state, { ...FALLBACK, action: `model switch to ${model} + continue` }, "continue")
    expect(r.toasts.map((t) => t.message.slice(0, 40))).toEqual([
      "Session s1 waits for your answer (a ques",
      "Session s1 waits for your answer (a ques",
      "auto-resume switched session s1 to a/one",
      "auto-resume switched session s1 to b/two",
    ])
  })

  test("what is kept per session is bounded, and forgotten with the session", () => {
    const r = rig()
    for (let i = 0; i < 40; i++) r.book.acted(r.state, { ...FALLBACK, action: `model switch to p/m${i} + continue` }, "continue")
    expect(r.toasts).toHaveLength(16)
    r.notices.forget(r.state)
    expect(r.notices.last(r.state)).toBeUndefined()
  })
})

describe("carried out through the port, bounded, never throwing", () => {
  for (const behaviour of ["reject", "throw", "hang"] as const) {
    test(`a toast call that ${behaviour}s is caught and changes nothing else`, async () => {
      const r = rig()
      r.behave(behaviour)
      expect(() => r.book.refused(r.state, STALL, "continue", "gave up", "spent")).not.toThrow()
      r.time.advance(10_000)
      await new Promise<void>((resolve) => setImmediate(resolve))
      expect(r.toasts).toHaveLength(1)
      expect(r.notices.last(r.state)?.kind).toBe("gave up")
    })
  }

  test("a host without a toast API (2.x) is not asked; the notice is still kept for the status", () => {
    const r = rig(false)
    r.book.refused(r.state, STALL, "continue", "gave up", "spent")
    expect((r.port as HostPort).toast).toBeUndefined()
    expect(r.notices.last(r.state)?.message).toMatch(/^auto-resume gave up on session s1/)
  })
})

describe("through the engine, on a host without toasts (2.x): the status says it", () => {
  for (const asked of [true, false]) {
    test(asked ? "a stall held by an open question: the status carries the notice" : "control: the same stall with no question is recovered, and the status carries none", async () => {
      const time = new SimulatedTime()
      const port = new RecordingPort(() => time.now())
      const engine = new RecoveryEngine({ paths: recoveryPaths, port, time, options: resolveOptions({}, {}) })
      const emit = (signal: Partial<Signal> & { type: Signal["type"] }) => engine.handle({ sessionID: "s1", ...signal } as Signal)
      emit({ type: "userMessage", genuine: true })
      emit({ type: "busy" })
      emit({ type: "modelOutput" })
      if (asked) emit({ type: "awaitingUser", key: "que_1", open: true })
      for (let i = 0; i < 250; i++) {
        time.advance(1000)
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      expect(engine.status("s1")?.notice?.kind).toBe(asked ? "waits on the user" : undefined)
      expect(port.calls.length > 0).toBe(!asked)
      engine.dispose()
    })
  }
})
