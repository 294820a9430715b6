/** /auto-resume: argument parsing, the status report and the runner shared by v1 and v2. */
import { describe, expect, test } from "bun:test"
import type { SessionStatus } from "../../../src/core/status.ts"
import { PAUSE_USAGE, formatStatusReport, parsePauseArguments, toggleReply } from "../../../src/pause/command.ts"
import type { PauseControl } from "../../../src/stores/file-pauses.ts"
import { runPauseCommand } from "../../../src/pause/run-command.ts"
import { FakePauses, NOW, sampleStatus } from "./helpers.ts"

describe("parsePauseArguments", () => {
  test.each([
    ["", "status"],
    ["   ", "status"],
    ["status", "status"],
    [" STATUS ", "status"],
    ["on", "on"],
    ["On", "on"],
    ["OFF\n", "off"],
  ])("%j -> %s", (raw, action) => {
    expect(parsePauseArguments(raw)).toEqual({ action: action as "on" })
  })

  test.each(["pause", "off now", "of", "--all", "on;rm -rf /"])("%j -> usage", (raw) => {
    const parsed = parsePauseArguments(raw)
    expect(parsed.action).toBe("usage")
  })

  test("non-strings read as no argument; long junk is shortened in the reason", () => {
    expect(parsePauseArguments(undefined)).toEqual({ action: "status" })
    const parsed = parsePauseArguments("x".repeat(500) + "\u001b")
    expect(parsed.action === "usage" && parsed.reason.length).toBeLessThan(80)
  })
})

describe("texts", () => {
  test("status report carries every field", () => {
    const text = formatStatusReport({ sessionID: "ses_a", paused: false, allPaused: false, status: sampleStatus(), now: NOW })
    expect(text).toContain("ses_a: active")
    expect(text).toContain("State: busy; open tools: bash (1m 5s)")
    expect(text).toContain("Waiting for the user: no; cancelled by the user: no; marked complete: no")
    expect(text).toContain("retries 1/3")
    expect(text).toContain("continues 2/5 in the loop window")
    expect(text).toContain("4/20 since the last user message")
    expect(text).toContain("Profile: fast")
    expect(text).toMatch(/Last recovery: continue, 2m 5s ago \(.+\), because no output for 3m 5s/)
  })

  test("status report says why a recovery path holds the session, and says nothing when none does", () => {
    const held = formatStatusReport({ sessionID: "ses_a", paused: false, allPaused: false, status: sampleStatus({ heldBy: "unattended for 8h 0m 0s since the user's last message" }), now: NOW })
    expect(held).toContain("Held: unattended for 8h 0m 0s since the user's last message")
    expect(formatStatusReport({ sessionID: "ses_a", paused: false, allPaused: false, status: sampleStatus(), now: NOW })).not.toContain("Held:")
  })

  test("status report when paused, all paused, idle, unknown session", () => {
    const idle = sampleStatus({ busy: false, openTools: [], lastRecovery: undefined, awaitingUser: true, cancelledByUser: true, completed: true })
    const paused = formatStatusReport({ sessionID: "ses_a", paused: true, allPaused: false, status: idle, now: NOW })
    expect(paused).toContain("paused (/auto-resume on resumes it)")
    expect(paused).toContain("State: idle; open tools: none")
    expect(paused).toContain("Waiting for the user: yes; cancelled by the user: yes; marked complete: yes")
    expect(paused).toContain("Last recovery: none")
    expect(formatStatusReport({ sessionID: "ses_a", paused: true, allPaused: true, status: idle, now: NOW })).toContain("--all on")
    expect(formatStatusReport({ sessionID: "ses_x", paused: false, allPaused: false, now: NOW })).toContain("no counters yet")
  })

  test("status report: what the user was last told at once (the toast on 1.x, the status alone on 2.x); nothing told, no line", () => {
    const message = "auto-resume gave up on session ses_a (stall: lifetime cap reached (20/20)). Nothing more is sent until you write."
    const told = formatStatusReport({ sessionID: "ses_a", paused: false, allPaused: false, status: sampleStatus({ notice: { kind: "gave up", message, at: NOW - 60_000 } }), now: NOW })
    expect(told).toMatch(new RegExp(`Told you at .+: ${message.replace(/[()]/g, "\\$&")}`))
    expect(formatStatusReport({ sessionID: "ses_a", paused: false, allPaused: false, status: sampleStatus(), now: NOW })).not.toContain("Told you")
  })

  test("toggle replies", () => {
    expect(toggleReply({ action: "off", wasPaused: false, paused: true, allPaused: false })).toContain("is paused for this session")
    expect(toggleReply({ action: "off", wasPaused: true, paused: true, allPaused: false })).toContain("already paused")
    expect(toggleReply({ action: "on", wasPaused: true, paused: false, allPaused: false })).toContain("active again")
    expect(toggleReply({ action: "on", wasPaused: false, paused: false, allPaused: false })).toContain("was not paused")
    expect(toggleReply({ action: "on", wasPaused: true, paused: true, allPaused: true })).toContain("all sessions are still paused")
    expect(toggleReply({ action: "off", wasPaused: false, paused: true, allPaused: false, memoryOnly: "EROFS" })).toContain("current run only")
    expect(toggleReply({ action: "off", wasPaused: false, paused: false, allPaused: false, error: "disk full" })).toContain("could not pause")
  })
})

describe("runPauseCommand", () => {
  const deps = (pauses: FakePauses, status?: SessionStatus) => ({ pauses, status: () => status, now: () => NOW })

  test("off, status, on", async () => {
    const pauses = new FakePauses()
    expect((await runPauseCommand("ses_a", "off", deps(pauses))).text).toContain("is paused")
    expect(pauses.isPaused("ses_a")).toBe(true)
    const status = await runPauseCommand("ses_a", "", deps(pauses, sampleStatus()))
    expect(status.action).toBe("status")
    expect(status.text).toContain("ses_a: paused")
    expect((await runPauseCommand("ses_a", " ON ", deps(pauses))).text).toContain("active again")
    expect(pauses.isPaused("ses_a")).toBe(false)
  })

  test("status says who holds the pause and since when; not when the session is active", async () => {
    const pauses = new FakePauses()
    pauses.holdOf = (id: string) => (pauses.paused.has(id) ? { kind: "other", at: NOW - 90_000, lease: { id: "iB", pid: 777, since: NOW - 600_000, at: NOW, ttlMs: 20_000 } } : undefined)
    await pauses.pause("ses_a")
    const text = (await runPauseCommand("ses_a", "status", deps(pauses))).text
    expect(text).toMatch(/\nPause held by the OpenCode process pid 777 since .* \(1m 30s ago\); a restart of that process lifts the pause\n/)
    await pauses.resume("ses_a")
    expect((await runPauseCommand("ses_a", "status", deps(pauses))).text).not.toContain("Pause held")
    // The pause of all sessions, when the session has none of its own.
    pauses.all = true
    pauses.allHoldOf = () => ({ kind: "unclaimed", at: NOW - 1000, expiresAt: NOW + 86_399_000 })
    expect((await runPauseCommand("ses_a", "status", deps(pauses))).text).toMatch(/\nPause of all sessions set since .*not claimed by any running OpenCode yet/)
  })

  test("unknown argument answers with the usage line and changes nothing", async () => {
    const pauses = new FakePauses()
    const r = await runPauseCommand("ses_a", "sometimes", deps(pauses))
    expect(r.action).toBe("usage")
    expect(r.text).toContain('unknown argument "sometimes"')
    expect(r.text).toContain(PAUSE_USAGE)
    expect(pauses.paused.size).toBe(0)
  })

  test("never throws, whatever the dependencies do", async () => {
    const broken: PauseControl = {
      isPaused: () => {
        throw new Error("boom")
      },
      allPaused: () => {
        throw new Error("boom")
      },
      pause: async () => {
        throw new Error("boom")
      },
      resume: async () => ({ ok: false, error: "nope" }),
    }
    const d = {
      pauses: broken,
      status: () => {
        throw new Error("boom")
      },
      now: () => NOW,
    }
    expect((await runPauseCommand("ses_a", "off", d)).text).toContain("could not run")
    expect((await runPauseCommand("ses_a", "on", d)).text).toContain("could not resume this session: nope")
    expect((await runPauseCommand("ses_a", "status", d)).text).toContain("ses_a: active")
  })
})
