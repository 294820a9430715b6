/** Local/online detection and the five-layer option stack applied per provider. */
import { describe, expect, test } from "bun:test"
import {
  PROFILE_DEFAULTS,
  effectiveOptions,
  isLocalProvider,
  profileOf,
  resolveOptions,
} from "../../../src/options/index.ts"
import { NO_ENV } from "./helpers.ts"

describe("isLocalProvider / profileOf", () => {
  const LOCAL = [
    "llama-server",
    "LLAMA-SERVER",
    "llama_server",
    "llamacpp",
    "llama.cpp",
    "llama-cpp",
    "Llama CPP",
    "ollama",
    "Ollama",
    " ollama ",
    "vllm",
    "vLLM",
    "lmstudio",
    "lm-studio",
    "LM Studio",
    "koboldcpp",
    "kobold",
    "exllama",
    "exllamav2",
    "text-generation-inference",
    "tgi",
    "ollama/qwen3:32b",
  ]
  const ONLINE = [
    "openai",
    "anthropic",
    "opencode",
    "opencode/claude-sonnet",
    "google",
    "openrouter",
    "ollama-cloud",
    "my-ollama",
    "ollamax",
    "vllm2",
    "",
    undefined,
  ]

  test.each(LOCAL)("%p is local (slow)", (provider) => {
    expect(isLocalProvider(provider)).toBe(true)
    expect(profileOf(provider)).toBe("slow")
  })

  test.each(ONLINE)("%p is online (fast)", (provider) => {
    expect(isLocalProvider(provider)).toBe(false)
    expect(profileOf(provider)).toBe("fast")
  })

  test("non-string input is online, not a crash", () => {
    expect(isLocalProvider(42 as unknown as string)).toBe(false)
  })
})

/** The four budgets the old maxRetries set at once, all at one value. */
function budgets(count: number) {
  return { stallEpisodeMaxContinues: count, streamingFailureMaxPrompts: count, finishedTurnMaxNudges: count, taskCompleteMaxRefusals: count }
}

describe("profile defaults", () => {
  test("match the documented fast/slow table", () => {
    expect(PROFILE_DEFAULTS).toEqual({
      fast: { chunkTimeoutMs: 180_000, gracePeriodMs: 3_000, lifetimeMaxContinues: 9, ...budgets(3) },
      slow: { chunkTimeoutMs: 600_000, gracePeriodMs: 60_000, lifetimeMaxContinues: 20, ...budgets(5) },
    })
  })
})

describe("layering: defaults < profile < explicit < defaultFast/defaultSlow < modelProfiles", () => {
  test("profile defaults beat schema defaults", () => {
    const resolved = resolveOptions({}, NO_ENV)
    const slow = effectiveOptions(resolved, "ollama")
    expect(slow.chunkTimeoutMs).toBe(600_000)
    expect(slow.gracePeriodMs).toBe(60_000)
    expect(slow.stallEpisodeMaxContinues).toBe(5)
    expect(slow.lifetimeMaxContinues).toBe(20)
    // Keys without a profile value keep the schema default.
    expect(slow.sendTimeoutMs).toBe(30_000)
    expect(effectiveOptions(resolved, "openai").chunkTimeoutMs).toBe(180_000)
    expect(effectiveOptions(resolved).chunkTimeoutMs).toBe(180_000)
  })

  test("explicit top-level options beat profile defaults, even when equal to the schema default", () => {
    const resolved = resolveOptions({ chunkTimeoutMs: 1_000, stallEpisodeMaxContinues: 3 }, NO_ENV)
    const slow = effectiveOptions(resolved, "ollama")
    expect(slow.chunkTimeoutMs).toBe(1_000)
    expect(slow.stallEpisodeMaxContinues).toBe(3)
    expect(slow.gracePeriodMs).toBe(60_000) // not given: profile still applies
  })

  test("an alias counts as explicit for layering", () => {
    const resolved = resolveOptions({ maxRecoveryRetries: 2 }, NO_ENV)
    expect(effectiveOptions(resolved, "ollama")).toMatchObject(budgets(2))
  })

  test("an invalid top-level value does not block the profile default", () => {
    const resolved = resolveOptions({ chunkTimeoutMs: "abc" }, NO_ENV)
    expect(effectiveOptions(resolved, "ollama").chunkTimeoutMs).toBe(600_000)
  })

  test("the matching profile section beats explicit options; the other section is ignored", () => {
    const resolved = resolveOptions(
      { chunkTimeoutMs: 1_000, defaultSlow: { chunkTimeoutMs: 2_000 }, defaultFast: { chunkTimeoutMs: 500 } },
      NO_ENV,
    )
    expect(effectiveOptions(resolved, "ollama").chunkTimeoutMs).toBe(2_000)
    expect(effectiveOptions(resolved, "openai").chunkTimeoutMs).toBe(500)
  })

  test("modelProfiles beats the profile section, only for its provider", () => {
    const resolved = resolveOptions(
      {
        chunkTimeoutMs: 1_000,
        defaultSlow: { chunkTimeoutMs: 2_000 },
        modelProfiles: { OLLAMA: { chunkTimeoutMs: 3_000 }, openai: { stallEpisodeMaxContinues: 1 } },
      },
      NO_ENV,
    )
    expect(effectiveOptions(resolved, "ollama").chunkTimeoutMs).toBe(3_000)
    expect(effectiveOptions(resolved, "Ollama").chunkTimeoutMs).toBe(3_000)
    // Same profile, different provider: the section applies, the provider entry does not.
    expect(effectiveOptions(resolved, "vllm").chunkTimeoutMs).toBe(2_000)
    // Exact names only: ollama-cloud is neither local nor the "ollama" entry.
    expect(effectiveOptions(resolved, "ollama-cloud").chunkTimeoutMs).toBe(1_000)
    expect(effectiveOptions(resolved, "openai").stallEpisodeMaxContinues).toBe(1)
    expect(effectiveOptions(resolved, "anthropic").stallEpisodeMaxContinues).toBe(3)
  })

  test("switching provider mid-session changes the result", () => {
    const resolved = resolveOptions({ modelProfiles: { "llama-server": { lifetimeMaxContinues: 30 } } }, NO_ENV)
    expect(effectiveOptions(resolved, "anthropic").lifetimeMaxContinues).toBe(9)
    expect(effectiveOptions(resolved, "llama-server").lifetimeMaxContinues).toBe(30)
    expect(effectiveOptions(resolved, "anthropic").lifetimeMaxContinues).toBe(9)
  })

  test("environment-set values survive layering", () => {
    const resolved = resolveOptions({}, { AUTO_RESUME_VISIBLE_CONTINUE: "0" })
    expect(effectiveOptions(resolved, "ollama").visibleContinue).toBe(false)
  })
})

describe("effectiveOptions is pure and memoised", () => {
  test("same inputs, same frozen object; inputs untouched", () => {
    const resolved = resolveOptions({ defaultSlow: { stallEpisodeMaxContinues: 9 } }, NO_ENV)
    const before = JSON.stringify(resolved.options)
    const first = effectiveOptions(resolved, "ollama")
    expect(effectiveOptions(resolved, "ollama")).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    expect(JSON.stringify(resolved.options)).toBe(before)
  })

  test("two resolved objects never share results", () => {
    const a = resolveOptions({ chunkTimeoutMs: 1_000 }, NO_ENV)
    const b = resolveOptions({ chunkTimeoutMs: 2_000 }, NO_ENV)
    expect(effectiveOptions(a, "openai").chunkTimeoutMs).toBe(1_000)
    expect(effectiveOptions(b, "openai").chunkTimeoutMs).toBe(2_000)
  })

  test("many providers stay correct past the cache bound", () => {
    const resolved = resolveOptions({ modelProfiles: { p7: { stallEpisodeMaxContinues: 7 } } }, NO_ENV)
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 200; i++) {
        expect(effectiveOptions(resolved, `p${i}`).stallEpisodeMaxContinues).toBe(i === 7 ? 7 : 3)
      }
    }
  })
})
