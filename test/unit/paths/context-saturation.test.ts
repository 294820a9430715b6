/** The context path's saturation decision (paths/context/saturation.ts): at the end of a turn, whether and how to reclaim the window. */
import { describe, expect, test } from "bun:test"
import { decideSaturation, type SaturationInput } from "../../../src/paths/context/saturation.ts"

const base: SaturationInput = {
  ratio: 0.9,
  threshold: 0.85,
  isSubagent: false,
  magicContextLoaded: true,
  subagentNativeCompactionEnabled: false,
  alreadyIntervenedThisBusyCycle: false,
  cancelled: false,
  completed: false,
  limitsKnown: true,
}

describe("decideSaturation", () => {
  test.each<[string, Partial<SaturationInput>, string]>([
    ["saturated parent with magic-context -> ctx-wrapup", {}, "ctx-wrapup"],
    ["exactly at the threshold counts", { ratio: 0.85 }, "ctx-wrapup"],
    ["just under the threshold", { ratio: 0.8499 }, "none"],
    ["parent without magic-context: native compaction (then one continue, the path's episode)", { magicContextLoaded: false }, "compact"],
    ["subagent with native compaction on", { isSubagent: true, subagentNativeCompactionEnabled: true }, "compact"],
    ["subagent with native compaction off", { isSubagent: true }, "none"],
    ["subagent: magic-context is not needed", { isSubagent: true, subagentNativeCompactionEnabled: true, magicContextLoaded: false }, "compact"],
    ["subagent never gets ctx-wrapup", { isSubagent: true, magicContextLoaded: true }, "none"],
    ["parent with magic-context never gets native compaction", { subagentNativeCompactionEnabled: true, magicContextLoaded: true }, "ctx-wrapup"],
    ["limits unknown", { limitsKnown: false }, "none"],
    ["no ratio", { ratio: undefined }, "none"],
    ["NaN ratio", { ratio: Number.NaN }, "none"],
    ["cancelled by the user", { cancelled: true }, "none"],
    ["completed", { completed: true }, "none"],
    ["already intervened this busy cycle", { alreadyIntervenedThisBusyCycle: true }, "none"],
    ["subagent already compacted this cycle", { isSubagent: true, subagentNativeCompactionEnabled: true, alreadyIntervenedThisBusyCycle: true }, "none"],
  ])("%s", (_name, patch, expected) => {
    const effect = decideSaturation({ ...base, ...patch })
    expect(effect.kind === "command" ? effect.name : effect.kind).toBe(expected as never)
  })

  test("every decision carries a reason", () => {
    expect(decideSaturation(base).reason).toContain("90%")
    expect(decideSaturation({ ...base, limitsKnown: false }).reason).toContain("unknown")
    expect(decideSaturation({ ...base, magicContextLoaded: false }).reason).toContain("magic-context")
  })
})
