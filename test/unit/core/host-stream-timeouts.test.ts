/** Which of OpenCode's provider stream timeouts a headless run hands the stall budget. */
import { describe, expect, test } from "bun:test"
import { HOST_TIMEOUT_DEFAULTS_MS, MAX_PLANNED_PROVIDERS, planHostTimeouts, type HostTimeoutOption, type HostTimeoutPlan } from "../../../src/core/host-stream-timeouts.ts"

const budget = (ms: number) => () => ms
const facts = (providerID: string, ...userSet: HostTimeoutOption[]) => ({ providerID, userSet })
const both = (providerID: string, ms: number): HostTimeoutPlan["set"] => [
  { providerID, option: "chunkTimeout", ms },
  { providerID, option: "headerTimeout", ms },
]

describe("planHostTimeouts", () => {
  test("a provider that sets neither option gets the budget for both", () => {
    expect(planHostTimeouts([facts("fake")], budget(180_000))).toEqual({ set: both("fake", 180_000), kept: [] })
  })

  test("a provider whose config sets both keeps both (negative control)", () => {
    expect(planHostTimeouts([facts("fake", "chunkTimeout", "headerTimeout")], budget(180_000))).toEqual({
      set: [],
      kept: [
        { providerID: "fake", option: "chunkTimeout" },
        { providerID: "fake", option: "headerTimeout" },
      ],
    })
  })

  test("a user-set headerTimeout is kept while chunkTimeout is still lowered", () => {
    expect(planHostTimeouts([facts("fake", "headerTimeout")], budget(2000))).toEqual({
      set: [{ providerID: "fake", option: "chunkTimeout", ms: 2000 }],
      kept: [{ providerID: "fake", option: "headerTimeout" }],
    })
  })

  test("a user-set chunkTimeout is kept while headerTimeout is still lowered", () => {
    expect(planHostTimeouts([facts("fake", "chunkTimeout")], budget(2000))).toEqual({
      set: [{ providerID: "fake", option: "headerTimeout", ms: 2000 }],
      kept: [{ providerID: "fake", option: "chunkTimeout" }],
    })
  })

  test("the budget is asked once per provider, so profiles and modelProfiles apply", () => {
    const asked: string[] = []
    const perProvider = (id: string) => {
      asked.push(id)
      return id === "anthropic" ? 90_000 : 180_000
    }
    const plan = planHostTimeouts([facts("anthropic"), facts("openai", "chunkTimeout")], perProvider)
    expect(plan.set).toEqual([...both("anthropic", 90_000), { providerID: "openai", option: "headerTimeout", ms: 180_000 }])
    expect(asked).toEqual(["anthropic", "openai"])
  })

  test("the budget is not asked for a provider whose config sets both", () => {
    const boom = () => {
      throw new Error("asked")
    }
    expect(() => planHostTimeouts([facts("fake", "chunkTimeout", "headerTimeout")], boom)).not.toThrow()
  })

  test("a budget at or above an option's host default is not written for it: it would only make the host slower", () => {
    for (const option of ["chunkTimeout", "headerTimeout"] as const) {
      const other = option === "chunkTimeout" ? "headerTimeout" : "chunkTimeout"
      const only = (ms: number) => planHostTimeouts([facts("x", other)], budget(ms)).set
      expect(only(600_000)).toEqual([])
      expect(only(HOST_TIMEOUT_DEFAULTS_MS[option])).toEqual([])
      expect(only(HOST_TIMEOUT_DEFAULTS_MS[option] - 1)).toEqual([{ providerID: "x", option, ms: HOST_TIMEOUT_DEFAULTS_MS[option] - 1 }])
    }
  })

  test("nonsense budgets are skipped", () => {
    for (const ms of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(planHostTimeouts([facts("x")], budget(ms)).set).toEqual([])
  })

  test("each provider once, the first listing deciding; empty ids ignored", () => {
    const plan = planHostTimeouts([facts("fake", "chunkTimeout"), facts("fake"), facts("")], budget(2000))
    expect(plan).toEqual({
      set: [{ providerID: "fake", option: "headerTimeout", ms: 2000 }],
      kept: [{ providerID: "fake", option: "chunkTimeout" }],
    })
  })

  test("bounded: providers past the cap are left alone", () => {
    const many = Array.from({ length: MAX_PLANNED_PROVIDERS + 10 }, (_, i) => facts(`p${i}`))
    expect(planHostTimeouts(many, budget(2000)).set).toHaveLength(MAX_PLANNED_PROVIDERS * 2)
  })
})
