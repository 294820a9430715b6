/** What both adapters read the same way (src/host/signals.ts). */
import { describe, expect, test } from "bun:test"
import { errorSignal, runningSessions } from "../../../src/host/signals.ts"

describe("errorSignal", () => {
  const wall = Date.UTC(2026, 0, 1)
  test("caps the message and reads a Retry-After date against the wall clock", () => {
    const signal = errorSignal("s1", { name: "APIError", message: "x".repeat(5000), status: 429, headers: { "Retry-After": new Date(wall + 30_000).toUTCString() } }, () => wall)
    expect(signal).toEqual({ type: "error", sessionID: "s1", name: "APIError", message: "x".repeat(2000), status: 429, retryAfterMs: 30_000 })
  })

  test("a wait the host worked out wins over the headers; nothing known leaves both fields out", () => {
    expect(errorSignal("s1", { name: "E", message: "m", retryAfterMs: 5, headers: { "retry-after": "60" } }, () => wall).retryAfterMs).toBe(5)
    expect(Object.keys(errorSignal("s1", { name: "E", message: "m" }, () => wall)).sort()).toEqual(["message", "name", "sessionID", "type"])
  })
})

describe("runningSessions", () => {
  test("busy, running and retry run on both hosts; idle does not", () => {
    const listing = { a: { type: "busy" }, b: { type: "idle" }, c: { type: "retry" }, d: { type: "running" } }
    expect(runningSessions(listing, "v1")).toEqual(["a", "c", "d"])
    expect(runningSessions(listing, "v2")).toEqual(["a", "c", "d"])
  })

  test("an entry without a status runs on 2.x (it lists only active sessions) and is skipped on 1.x", () => {
    const listing = { a: { type: "busy" }, b: {}, c: "busy" }
    expect(runningSessions(listing, "v2")).toEqual(["a", "b", "c"])
    expect(runningSessions(listing, "v1")).toEqual(["a"])
  })

  test("no listing, or 1.x entries without one status, is unreadable rather than 'nothing runs'", () => {
    for (const host of ["v1", "v2"] as const) expect(() => runningSessions([1], host)).toThrow(/not an object/)
    expect(() => runningSessions({ a: {} }, "v1")).toThrow(/no status/)
    expect(runningSessions({}, "v1")).toEqual([])
  })
})
