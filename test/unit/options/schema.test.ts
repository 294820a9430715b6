/** The declared defaults, constants and generated docs match the spec and each other. */
import { describe, expect, test } from "bun:test"
import {
  ABORT_CONTINUE_DELAY_MS,
  IDLE_CLEANUP_MS,
  MAX_IDLE_SESSIONS,
  OPTION_DEFAULTS,
  OPTION_DOCS,
  SESSION_DISCOVERY_INTERVAL_MS,
  TOOL_IDS_CACHE_MS,
  TOOL_WEDGED_CEILING_MS,
  UNKNOWN_TOOL_THRESHOLD,
  optionsJsonSchema,
  optionsSchema,
} from "../../../src/options/index.ts"

describe("defaults", () => {
  test("match the option table", () => {
    expect(OPTION_DEFAULTS).toEqual({
      chunkTimeoutMs: 180_000,
      gracePeriodMs: 3_000,
      checkIntervalMs: 5_000,
      stallEpisodeMaxContinues: 3,
      baseBackoffMs: 1_000,
      maxBackoffMs: 8_000,
      subagentWaitMs: 15_000,
      subagentDeadMs: 1_800_000,
      loopMaxContinues: 3,
      loopWindowMs: 600_000,
      lifetimeMaxContinues: 9,
      streamingFailureErrorNames: ["ProviderError", "APIError", "StreamError", "ConnectionError", "TimeoutError", "provider.transport", "provider.internal", "provider.invalid-output", "provider.unknown"],
      streamingFailureMessagePatterns: ["streaming response failed", "stream.*fail", "connection.*reset", "connection.*closed"],
      streamingFailureMaxPrompts: 3,
      streamingFailureWatchdogMs: 3_000,
      toolTextCheckDelayMs: 3_000,
      finishedTurnMaxNudges: 3,
      taskCompleteMaxRefusals: 3,
      goalMaxContinues: 25,
      goalMaxMs: 14_400_000,
      unattendedMaxMs: 0,
      minActivityGapMs: 1_000,
      warmupMs: 15_000,
      discoveryDelayMs: 5_000,
      debug: false,
      resumeOnActionIntent: true,
      silentDeadStreamMinTokens: 200,
      busyStallStrategy: "continue",
      contextSaturationThreshold: 0.85,
      activeUserWindowMs: 300_000,
      stopPatterns: [],
      subagentNativeCompactionEnabled: false,
      injectIntervalMs: 5_000,
      visibleContinue: true,
      richContinuePrompt: true,
      rateLimitCooldownsMs: [900_000, 1_800_000, 3_600_000, 7_200_000, 7_200_000, 7_200_000, 7_200_000, 7_200_000],
      fallbackModels: [],
      fallbackReturnToModel: true,
      sendTimeoutMs: 30_000,
      stuckToolAgeMs: 60_000,
      neverInterruptTools: ["compress"],
      shareWatchState: false,
      quietCorrections: true,
    })
  })

  test("optional options are absent, not undefined-valued keys", () => {
    for (const key of ["continuePrompt", "doneClaimPatterns", "registryScope", "defaultFast", "maxRetries", "maxRecoveryRetries"]) {
      expect(key in OPTION_DEFAULTS).toBe(false)
    }
  })

  test("are deeply frozen", () => {
    expect(Object.isFrozen(OPTION_DEFAULTS)).toBe(true)
    expect(Object.isFrozen(OPTION_DEFAULTS.rateLimitCooldownsMs)).toBe(true)
  })

  test("parse the zod schema to themselves", () => {
    expect(optionsSchema.parse({})).toEqual({ ...OPTION_DEFAULTS })
  })
})

describe("constants", () => {
  test("values", () => {
    expect({
      ABORT_CONTINUE_DELAY_MS,
      MAX_IDLE_SESSIONS,
      IDLE_CLEANUP_MS,
      SESSION_DISCOVERY_INTERVAL_MS,
      TOOL_WEDGED_CEILING_MS,
      UNKNOWN_TOOL_THRESHOLD,
      TOOL_IDS_CACHE_MS,
    }).toEqual({
      ABORT_CONTINUE_DELAY_MS: 5_000,
      MAX_IDLE_SESSIONS: 50,
      IDLE_CLEANUP_MS: 600_000,
      SESSION_DISCOVERY_INTERVAL_MS: 60_000,
      TOOL_WEDGED_CEILING_MS: 1_800_000,
      UNKNOWN_TOOL_THRESHOLD: 2,
      TOOL_IDS_CACHE_MS: 300_000,
    })
  })
})

describe("docs metadata", () => {
  const names = OPTION_DOCS.map((doc) => doc.name)

  test("one row per accepted name, each described", () => {
    const expected = [...Object.keys(OPTION_DEFAULTS)]
    for (const name of expected) expect(names).toContain(name)
    for (const name of ["continuePrompt", "maxRetries", "maxRecoveryRetries", "defaultFast", "defaultSlow", "modelProfiles"]) {
      expect(names).toContain(name)
    }
    expect(new Set(names).size).toBe(names.length)
    for (const doc of OPTION_DOCS) {
      expect(doc.description.length).toBeGreaterThan(10)
      expect(doc.type).not.toBe("unknown")
      expect(doc.defaultText.length).toBeGreaterThan(0)
    }
  })

  test.each([
    ["chunkTimeoutMs", "number"],
    ["maxRetries", "integer"],
    ["debug", "boolean"],
    ["continuePrompt", "string"],
    ["stopPatterns", "string[]"],
    ["rateLimitCooldownsMs", "number[]"],
    ["busyStallStrategy", '"continue" | "abort" | "off"'],
    ["modelProfiles", "object"],
  ])("%s is typed %s", (name, type) => {
    expect(OPTION_DOCS.find((doc) => doc.name === name)?.type).toBe(type)
  })

  test("the alias rows point at their targets; toolTextCheckDelayMs names what it also sets", () => {
    expect(OPTION_DOCS.find((doc) => doc.name === "maxRecoveryRetries")?.aliasOf).toBe("maxRetries")
    expect(OPTION_DOCS.find((doc) => doc.name === "maxRetries")?.aliasOf).toEqual([
      "stallEpisodeMaxContinues",
      "streamingFailureMaxPrompts",
      "finishedTurnMaxNudges",
      "taskCompleteMaxRefusals",
    ])
    expect(OPTION_DOCS.find((doc) => doc.name === "toolTextCheckDelayMs")?.alsoSets).toEqual(["streamingFailureWatchdogMs"])
  })

  test("JSON schema covers every row, with descriptions and defaults", () => {
    const schema = optionsJsonSchema() as { properties: Record<string, { description?: string; default?: unknown }> }
    expect(Object.keys(schema.properties).sort()).toEqual([...names].sort())
    for (const doc of OPTION_DOCS) {
      expect(schema.properties[doc.name]?.description).toBe(doc.description)
      if (doc.default !== undefined) expect(schema.properties[doc.name]?.default).toEqual(doc.default)
    }
  })

  test("override objects in the JSON schema leave out plugin-wide options and defaults", () => {
    const schema = optionsJsonSchema() as {
      properties: { defaultSlow: { properties: Record<string, { default?: unknown }> } }
    }
    const overridable = schema.properties.defaultSlow.properties
    expect(overridable.chunkTimeoutMs).toBeDefined()
    expect(overridable.chunkTimeoutMs?.default).toBeUndefined()
    expect(overridable.debug).toBeUndefined()
    expect(overridable.checkIntervalMs).toBeUndefined()
  })
})
