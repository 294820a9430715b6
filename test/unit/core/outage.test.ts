/** Outage texts as providers send them, in the shapes both hosts report (src/paths/provider-failures/outage.ts). */
import { describe, expect, test } from "bun:test"
import { classifyOutage, outageLabel, type OutageKind } from "../../../src/paths/provider-failures/outage.ts"

describe("classifyOutage", () => {
  const cases: [string, Parameters<typeof classifyOutage>[0], OutageKind | undefined][] = [
    // 1.x: name APIError, data.statusCode, data.message
    ["1.x 429 without Retry-After", { name: "APIError", status: 429, message: "Rate limit exceeded" }, "rate-limit"],
    ["1.x 429 with insufficient_quota", { name: "APIError", status: 429, message: "You exceeded your current quota (insufficient_quota)" }, "quota"],
    ["1.x quota text without a status", { name: "APIError", message: "Quota exceeded for this project" }, "quota"],
    ["1.x rate limit text", { name: "UnknownError", message: "rate_limit_error: slow down" }, "rate-limit"],
    ["1.x 529 overloaded", { name: "APIError", status: 529, message: "Overloaded" }, "overloaded"],
    ["1.x 503 queue full", { name: "APIError", status: 503, message: "Queue full, try again later" }, "overloaded"],
    ["1.x overloaded_error in a retry status", { message: "overloaded_error: Overloaded" }, "overloaded"],
    ["1.x plain 503", { name: "APIError", status: 503, message: "Service Unavailable" }, "overloaded"],
    // 2.x: type, status, message
    ["2.x provider.rate-limit", { name: "provider.rate-limit", status: 429, message: "429" }, "rate-limit"],
    ["2.x provider.quota", { name: "provider.quota", message: "out of credits" }, "quota"],
    ["2.x 429 with only a status", { name: "provider.transport", status: 429, message: "" }, "rate-limit"],
    ["2.x queue full as transport", { name: "provider.transport", status: 503, message: "upstream queue is full" }, "overloaded"],
    // negative controls
    ["a broken stream", { name: "APIError", message: "Streaming response failed: connection reset" }, undefined],
    ["a content filter", { name: "provider.content-filter", message: "Provider blocked the response" }, undefined],
    ["a bad request", { name: "APIError", status: 400, message: "invalid schema" }, undefined],
    ["a 500", { name: "APIError", status: 500, message: "Internal server error" }, undefined],
    ["nothing at all", {}, undefined],
  ]
  for (const [label, input, kind] of cases) {
    test(`${label}: ${kind ?? "not an outage"}`, () => {
      expect(classifyOutage(input)?.kind).toBe(kind)
    })
  }

  test("only the capped head of a huge message is read (linear, bounded)", () => {
    expect(classifyOutage({ message: `${"x".repeat(100_000)} rate limit` })).toBeUndefined()
    expect(classifyOutage({ message: `rate limit ${"x".repeat(100_000)}` })?.kind).toBe("rate-limit")
  })

  test("the reason quotes the provider's words, never a pattern's source (it reaches the model in the continue)", () => {
    const label = (input: Parameters<typeof classifyOutage>[0]) => outageLabel(classifyOutage(input), "none")
    expect(label({ status: 429, message: "You exceeded your current quota (insufficient_quota)" })).toBe('quota exhausted: "insufficient_quota"')
    expect(label({ message: "rate_limit_error: slow down" })).toBe('rate limited: "rate_limit"')
    expect(label({ status: 503, message: "upstream queue is full" })).toBe('provider overloaded: HTTP 503, "queue is full"')
    expect(label({ status: 429, message: "429" })).toBe("rate limited: HTTP 429")
    // negative control: nothing recognised keeps the caller's wording
    expect(label({ message: "connection reset" })).toBe("none")
  })
})
