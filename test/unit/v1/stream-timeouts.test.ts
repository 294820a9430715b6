/** The v1 `config` hook that hands OpenCode's hung-request retry the stall budget: `opencode run`, `serve` and the TUI. */
import { afterEach, describe, expect, test } from "bun:test"
import { SimulatedTime } from "../../support/simulated-time.ts"
import { MemoryPauses } from "../../../src/core/pauses.ts"
import { startV1, type V1Plugin } from "../../../src/host/v1/adapter.ts"
import { REPLY_PROVIDER_ID } from "../../../src/host/v1/command-model.ts"
import { applyProviderStreamTimeouts, type StreamTimeoutDeps } from "../../../src/host/v1/stream-timeouts.ts"
import { freshDirectory } from "./rig.ts"

const HEAD = ["bun", "/$bunfs/root/src/index.js"]
const RUN = [...HEAD, "run", "--print-logs", "--model", "fake/fake-model", "hello"]
const SERVE = [...HEAD, "serve", "--hostname", "127.0.0.1", "--port", "4096"]

function fakeProvider(options: Record<string, unknown> = { baseURL: "http://127.0.0.1:1/v1" }) {
  return { npm: "@ai-sdk/openai-compatible", options, models: { "fake-model": {} } }
}

function apply(config: unknown, argv: readonly unknown[], extra: Partial<StreamTimeoutDeps> = {}) {
  const logs: string[] = []
  const set = applyProviderStreamTimeouts(config, { argv, budgetMs: () => 2000, log: (l, m) => logs.push(`${l} ${m}`), ...extra })
  return { set, logs, info: logs.filter((l) => l.startsWith("info ")) }
}

describe("applyProviderStreamTimeouts", () => {
  test("headless: a listed provider without either timeout gets the budget for both, with one info line", () => {
    const config = { model: "fake/fake-model", provider: { fake: fakeProvider() } }
    const { set, info } = apply(config, RUN)
    expect(set).toEqual(["fake"])
    expect(config.provider.fake.options).toEqual({ baseURL: "http://127.0.0.1:1/v1", chunkTimeout: 2000, headerTimeout: 2000 })
    expect(info).toEqual([expect.stringContaining("provider timeouts set to chunkTimeoutMs so OpenCode retries a hung request itself: fake chunkTimeout+headerTimeout=2000ms")])
  })

  test("the user's timeouts win, whatever their value (negative control)", () => {
    for (const value of [600_000, 1, false]) {
      const config = { provider: { fake: fakeProvider({ chunkTimeout: value, headerTimeout: value }) } }
      const { set, info, logs } = apply(config, RUN)
      expect(set).toEqual([])
      expect(config.provider.fake.options).toEqual({ chunkTimeout: value, headerTimeout: value })
      expect(info).toEqual([])
      expect(logs).toEqual(["debug provider timeouts left as configured: fake chunkTimeout+headerTimeout"])
    }
  })

  test("per option: a user-set headerTimeout stays while chunkTimeout is lowered, and the other way round", () => {
    for (const [mine, ours] of [
      ["headerTimeout", "chunkTimeout"],
      ["chunkTimeout", "headerTimeout"],
    ] as const) {
      for (const value of [600_000, false]) {
        const config = { provider: { fake: fakeProvider({ [mine]: value }) } }
        const { set, info } = apply(config, RUN)
        expect(set).toEqual(["fake"])
        expect(config.provider.fake.options).toEqual({ [mine]: value, [ours]: 2000 })
        expect(info).toEqual([`info provider timeouts set to chunkTimeoutMs so OpenCode retries a hung request itself: fake ${ours}=2000ms; kept as configured: fake ${mine}`])
      }
    }
  })

  test("`opencode serve`, the TUI and a process without argv get the same plan as a headless run", () => {
    for (const argv of [SERVE, HEAD, undefined]) {
      const config: Record<string, any> = { model: "anthropic/claude", provider: { fake: fakeProvider() } }
      const { set, info } = apply(config, argv as never)
      expect(set).toEqual(["fake", "anthropic"])
      expect(config.provider.fake.options).toMatchObject({ chunkTimeout: 2000, headerTimeout: 2000 })
      expect(config.provider.anthropic).toEqual({ options: { chunkTimeout: 2000, headerTimeout: 2000 } })
      expect(info).toHaveLength(1)
    }
  })

  test("negative control: under `opencode serve` and the TUI the user's timeouts win too", () => {
    for (const argv of [SERVE, HEAD]) {
      const config = { provider: { fake: fakeProvider({ chunkTimeout: 600_000 }) } }
      const { set, info } = apply(config, argv)
      expect(set).toEqual(["fake"])
      expect(config.provider.fake.options).toEqual({ chunkTimeout: 600_000, headerTimeout: 2000 })
      expect(info).toEqual(["info provider timeouts set to chunkTimeoutMs so OpenCode retries a hung request itself: fake headerTimeout=2000ms; kept as configured: fake chunkTimeout"])
    }
  })

  test("a `--model` outside a headless run is not read: only `opencode run` takes one", () => {
    const config: Record<string, any> = {}
    expect(apply(config, [...SERVE, "--model", "anthropic/claude"]).set).toEqual([])
    expect(config).toEqual({})
  })

  test("the run's model provider is covered even when the config does not list it", () => {
    const config: Record<string, any> = { provider: { fake: fakeProvider() } }
    apply(config, [...HEAD, "run", "-m", "anthropic/claude-sonnet", "hi"])
    expect(config.provider.anthropic).toEqual({ options: { chunkTimeout: 2000, headerTimeout: 2000 } })
    expect(config.provider.fake.options.chunkTimeout).toBe(2000)
  })

  test("without --model, config.model names the run's provider; no provider section is created when nothing is set", () => {
    const config: Record<string, any> = { model: "openai/gpt-x" }
    const { set, info } = apply(config, [...HEAD, "run", "hi"])
    expect(set).toEqual(["openai"])
    expect(config.provider).toEqual({ openai: { options: { chunkTimeout: 2000, headerTimeout: 2000 } } })
    expect(info).toHaveLength(1)

    const untouched: Record<string, any> = {}
    expect(apply(untouched, [...HEAD, "run", "hi"]).set).toEqual([])
    expect(untouched).toEqual({})
  })

  test("an entry without options gets an options object; other options are kept as they are", () => {
    const fetchFn = () => undefined
    const config: Record<string, any> = { provider: { a: {}, b: { options: { apiKey: "k", fetch: fetchFn } } } }
    apply(config, [...HEAD, "run", "hi"])
    expect(config.provider.a).toEqual({ options: { chunkTimeout: 2000, headerTimeout: 2000 } })
    expect(config.provider.b.options).toEqual({ apiKey: "k", fetch: fetchFn, chunkTimeout: 2000, headerTimeout: 2000 })
  })

  test("the plugin's own reply provider and malformed entries are left alone", () => {
    const config: Record<string, any> = { provider: { [REPLY_PROVIDER_ID]: { options: {} }, bad: "oops", badOptions: { options: 3 } } }
    const { set } = apply(config, [...HEAD, "run", "hi"], { ownProviders: [REPLY_PROVIDER_ID] })
    expect(set).toEqual([])
    expect(config.provider).toEqual({ [REPLY_PROVIDER_ID]: { options: {} }, bad: "oops", badOptions: { options: 3 } })
  })

  test("never throws: a failing budget or config read is logged as a warning", () => {
    const boom = () => {
      throw new Error("boom")
    }
    const { set, logs } = apply({ provider: { fake: {} } }, RUN, { budgetMs: boom })
    expect(set).toEqual([])
    expect(logs).toEqual([expect.stringContaining("warn could not set provider timeouts: boom")])
    const hostile = Object.defineProperty({}, "provider", { get: boom })
    expect(() => apply(hostile, RUN)).not.toThrow()
    expect(() => applyProviderStreamTimeouts({}, { argv: RUN, budgetMs: () => 2000, log: boom, ownProviders: [] })).not.toThrow()
  })
})

describe("the v1 adapter's config hook", () => {
  const started: V1Plugin[] = []
  afterEach(() => {
    for (const p of started.splice(0)) p.stop()
  })

  function start(argv: readonly unknown[], options: Record<string, unknown> = {}) {
    const logs: string[] = []
    const client = { app: { log: async (o: { body: { level: string; message: string } }) => logs.push(`${o.body.level} ${o.body.message}`) } }
    const plugin = startV1({ client, directory: freshDirectory() }, options, {}, { time: new SimulatedTime(), pauses: new MemoryPauses(), argv })
    started.push(plugin)
    return { plugin, logs }
  }

  test("under `opencode run` it writes each provider's effective chunkTimeoutMs (profiles and modelProfiles included)", async () => {
    const { plugin } = start([...HEAD, "run", "-m", "ollama/qwen3", "hi"], { modelProfiles: { anthropic: { chunkTimeoutMs: 45_000 } } })
    const config: Record<string, any> = { provider: { fake: fakeProvider(), anthropic: {}, ollama: {} } }
    await plugin.hooks.config!(config as never)
    expect(config.provider.fake.options).toMatchObject({ chunkTimeout: 180_000, headerTimeout: 180_000 }) // fast profile default
    expect(config.provider.anthropic.options).toEqual({ chunkTimeout: 45_000, headerTimeout: 45_000 })
    // The slow profile's 600 s is longer than the host's own 300 s: left to the host.
    expect(config.provider.ollama).toEqual({})
  })

  test("an explicit top-level chunkTimeoutMs is what the host gets", async () => {
    const { plugin } = start(RUN, { chunkTimeoutMs: 2000, gracePeriodMs: 500 })
    const config: Record<string, any> = { provider: { fake: fakeProvider() } }
    await plugin.hooks.config!(config as never)
    expect(config.provider.fake.options).toMatchObject({ chunkTimeout: 2000, headerTimeout: 2000 })
  })

  test("under `opencode serve` and the TUI the hook writes the budget too", async () => {
    for (const argv of [SERVE, HEAD]) {
      const { plugin } = start(argv, { chunkTimeoutMs: 2000 })
      const config: Record<string, any> = { model: "fake/fake-model", provider: { fake: fakeProvider() } }
      await plugin.hooks.config!(config as never)
      expect(config.provider.fake.options).toMatchObject({ chunkTimeout: 2000, headerTimeout: 2000 })
    }
  })

  test("negative control: a budget of OpenCode's 300 s or more is never written, under serve either", async () => {
    const { plugin } = start(SERVE, { chunkTimeoutMs: 300_000 })
    const config: Record<string, any> = { model: "fake/fake-model", provider: { fake: fakeProvider() } }
    const before = JSON.stringify(config)
    await plugin.hooks.config!(config as never)
    expect(JSON.stringify(config)).toBe(before)
  })
})
