/** Which providers a headless run hands the stall budget as OpenCode's `chunkTimeout`. */
import { describe, expect, test } from "bun:test"
import { HOST_DEFAULT_CHUNK_TIMEOUT_MS, MAX_PLANNED_PROVIDERS, planChunkTimeouts } from "../../../src/core/host-chunk-timeout.ts"

const budget = (ms: number) => () => ms

describe("planChunkTimeouts", () => {
  test("a provider with no chunkTimeout of its own gets the budget", () => {
    expect(planChunkTimeouts([{ providerID: "fake", userValue: false }], budget(180_000))).toEqual({ set: [{ providerID: "fake", ms: 180_000 }], kept: [] })
  })

  test("a provider whose config sets chunkTimeout keeps it (negative control)", () => {
    expect(planChunkTimeouts([{ providerID: "fake", userValue: true }], budget(180_000))).toEqual({ set: [], kept: ["fake"] })
  })

  test("the budget is asked per provider, so profiles and modelProfiles apply", () => {
    const perProvider = (id: string) => (id === "anthropic" ? 90_000 : 180_000)
    const plan = planChunkTimeouts(
      [
        { providerID: "anthropic", userValue: false },
        { providerID: "openai", userValue: false },
      ],
      perProvider,
    )
    expect(plan.set).toEqual([
      { providerID: "anthropic", ms: 90_000 },
      { providerID: "openai", ms: 180_000 },
    ])
  })

  test("a budget at or above the host's own default is not written: it would only make the host slower", () => {
    expect(planChunkTimeouts([{ providerID: "ollama", userValue: false }], budget(600_000)).set).toEqual([])
    expect(planChunkTimeouts([{ providerID: "x", userValue: false }], budget(HOST_DEFAULT_CHUNK_TIMEOUT_MS)).set).toEqual([])
    expect(planChunkTimeouts([{ providerID: "x", userValue: false }], budget(HOST_DEFAULT_CHUNK_TIMEOUT_MS - 1)).set).toHaveLength(1)
  })

  test("nonsense budgets are skipped", () => {
    for (const ms of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(planChunkTimeouts([{ providerID: "x", userValue: false }], budget(ms)).set).toEqual([])
  })

  test("each provider once, the first listing deciding; empty ids ignored", () => {
    const plan = planChunkTimeouts(
      [
        { providerID: "fake", userValue: true },
        { providerID: "fake", userValue: false },
        { providerID: "", userValue: false },
      ],
      budget(2000),
    )
    expect(plan).toEqual({ set: [], kept: ["fake"] })
  })

  test("bounded: providers past the cap are left alone", () => {
    const many = Array.from({ length: MAX_PLANNED_PROVIDERS + 10 }, (_, i) => ({ providerID: `p${i}`, userValue: false }))
    expect(planChunkTimeouts(many, budget(2000)).set).toHaveLength(MAX_PLANNED_PROVIDERS)
  })
})
