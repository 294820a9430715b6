/** Telling a headless `opencode run` from a server or the TUI by process.argv. */
import { describe, expect, test } from "bun:test"
import { providerOf, readRunArgv } from "../../../src/host/v1/run-argv.ts"

/** The first two entries as measured inside the plugin on 1.18.33 (compiled binary). */
const HEAD = ["bun", "/$bunfs/root/src/index.js"]
const argv = (...rest: string[]) => [...HEAD, ...rest]

describe("readRunArgv", () => {
  test("`opencode run` as measured on 1.18.33 is headless, with the --model provider", () => {
    expect(readRunArgv(argv("run", "--print-logs", "--model", "fake/fake-model", "hello"))).toEqual({ headless: true, modelProvider: "fake" })
  })

  test("`opencode serve` as measured on 1.18.33 is not headless (negative control)", () => {
    expect(readRunArgv(argv("serve", "--hostname", "127.0.0.1", "--port", "42519", "--print-logs"))).toEqual({ headless: false })
  })

  test("the TUI (no subcommand, or a project path) is not headless", () => {
    expect(readRunArgv(argv()).headless).toBe(false)
    expect(readRunArgv(argv("/home/me/project")).headless).toBe(false)
    expect(readRunArgv(argv("--model", "a/b")).headless).toBe(false)
  })

  test("only the subcommand counts: `run` as a later word is not a headless run", () => {
    expect(readRunArgv(argv("github", "run")).headless).toBe(false)
    expect(readRunArgv(argv("serve", "--hostname", "run")).headless).toBe(false)
  })

  test("global options before the subcommand, with or without a value", () => {
    expect(readRunArgv(argv("--log-level", "DEBUG", "run", "hi")).headless).toBe(true)
    expect(readRunArgv(argv("--log-level=DEBUG", "--print-logs", "run", "hi")).headless).toBe(true)
  })

  test("the model in every spelling, before or after the message; the last one wins", () => {
    expect(readRunArgv(argv("run", "-m", "anthropic/claude-x", "hi")).modelProvider).toBe("anthropic")
    expect(readRunArgv(argv("run", "hi", "--model=openrouter/anthropic/claude")).modelProvider).toBe("openrouter")
    expect(readRunArgv(argv("run", "-m=ollama/qwen3", "hi")).modelProvider).toBe("ollama")
    expect(readRunArgv(argv("run", "-m", "a/x", "--model", "b/y", "hi")).modelProvider).toBe("b")
  })

  test("no model, or one without a provider: headless, provider unknown", () => {
    expect(readRunArgv(argv("run", "hi"))).toEqual({ headless: true, modelProvider: undefined })
    expect(readRunArgv(argv("run", "--model", "bare-model", "hi")).modelProvider).toBeUndefined()
    expect(readRunArgv(argv("run", "--model")).modelProvider).toBeUndefined()
  })

  test("after `--` everything is message text", () => {
    expect(readRunArgv(argv("run", "--", "-m", "a/b")).modelProvider).toBeUndefined()
  })

  test("anything that is not an argv array is not headless", () => {
    expect(readRunArgv(undefined).headless).toBe(false)
    expect(readRunArgv("run" as never).headless).toBe(false)
    expect(readRunArgv([...HEAD, 42, "run"] as unknown[]).headless).toBe(true)
  })
})

describe("providerOf", () => {
  test("the part before the first slash", () => {
    expect(providerOf("fake/fake-model")).toBe("fake")
    expect(providerOf("openrouter/a/b")).toBe("openrouter")
    expect(providerOf("/model")).toBeUndefined()
    expect(providerOf("model")).toBeUndefined()
    expect(providerOf(undefined)).toBeUndefined()
  })
})
