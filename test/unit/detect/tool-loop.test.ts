import { describe, expect, test } from "bun:test"
import type { TranscriptMessage, TranscriptPart } from "../../../src/core/transcript.ts"
import { fingerprintArgs, FINGERPRINT_MAX_CHARS } from "../../../src/detect/tool-fingerprint.ts"
import { detectIdleToolLoop, episodeToolCalls, IDLE_SCAN_MAX_CALLS } from "../../../src/detect/tool-loop.ts"

let seq = 0
function tool(name: string, input: unknown = { n: seq }): TranscriptPart {
  return { kind: "tool", callID: `c${seq++}`, tool: name, status: "completed", input }
}
function assistant(...parts: TranscriptPart[]): TranscriptMessage {
  return { id: `m${seq++}`, role: "assistant", parts }
}
function user(own = false): TranscriptMessage {
  return { id: `u${seq++}`, role: "user", parts: [{ kind: "text", text: "hi" }], own: own || undefined }
}
/** One assistant message per call, like OpenCode's one-step-per-message history. */
function calls(spec: string, sameArgs = true): TranscriptMessage[] {
  return spec.split(" ").map((name) => assistant(tool(name, sameArgs ? { same: name } : { n: seq })))
}

describe("idle scan: same tool in a row", () => {
  test.each([
    ["read read read", { kind: "same-tool", tools: ["read"], repeats: 3 }],
    ["bash read read read read", { kind: "same-tool", tools: ["read"], repeats: 4 }],
    ["task_complete task_complete task_complete task_complete task_complete", { kind: "same-tool", tools: ["task_complete"], repeats: 5 }],
  ])("%s -> loop", (spec, expected) => {
    expect(detectIdleToolLoop([user(), ...calls(spec)])).toEqual(expected as never)
  })

  test.each([
    ["read read"],
    ["read read bash"],
    ["read read read bash"], // the loop was broken at the tail
    ["read bash read"],
  ])("%s -> no loop (negative control)", (spec) => {
    expect(detectIdleToolLoop([user(), ...calls(spec)])).toBeUndefined()
  })

  test("different inputs to the same tool are ordinary work, not a loop", () => {
    expect(detectIdleToolLoop([user(), ...calls("read read read read", false)])).toBeUndefined()
    // ...unless names alone are compared.
    expect(detectIdleToolLoop([user(), ...calls("read read read read", false)], { compare: "name" })).toMatchObject({ kind: "same-tool", repeats: 4 })
  })

  test("parts of one message count in order", () => {
    const m = assistant(tool("grep", { q: 1 }), tool("grep", { q: 1 }), tool("grep", { q: 1 }))
    expect(detectIdleToolLoop([user(), m])).toMatchObject({ kind: "same-tool", repeats: 3 })
  })

  test("a call without input is compared by name", () => {
    const noInput = (): TranscriptMessage => assistant({ kind: "tool", callID: "x", tool: "todoread", status: "completed" })
    expect(detectIdleToolLoop([user(), noInput(), noInput(), noInput()])).toMatchObject({ kind: "same-tool" })
  })
})

describe("idle scan: cycles of 2-6 calls", () => {
  test.each([
    ["read edit read edit read edit", ["read", "edit"], 3],
    ["bash read edit bash read edit bash read edit", ["bash", "read", "edit"], 3],
    ["a b c d a b c d a b c d", ["a", "b", "c", "d"], 3],
    ["a b c d e a b c d e a b c d e", ["a", "b", "c", "d", "e"], 3],
    ["a b c d e f a b c d e f a b c d e f", ["a", "b", "c", "d", "e", "f"], 3],
    ["x read edit read edit read edit read edit", ["read", "edit"], 4],
  ])("%s -> cycle", (spec, tools, repeats) => {
    expect(detectIdleToolLoop([user(), ...calls(spec)])).toEqual({ kind: "cycle", tools, repeats })
  })

  test.each([
    ["read edit read edit"], // only twice
    ["a b c read edit read edit"], // only twice, with enough calls before it
    ["read edit read edit read bash"], // broken at the tail
    ["a b c d e f g a b c d e f g a b c d e f g"], // period 7 is out of range
    ["a b c a b c a b"], // not complete three times
  ])("%s -> no cycle (negative control)", (spec) => {
    expect(detectIdleToolLoop([user(), ...calls(spec)])).toBeUndefined()
  })
})

describe("idle scan: arguments compared with their whitespace collapsed", () => {
  test("calls that differ only in spaces and line breaks are the same call", () => {
    const spaced = ["ls -la", "ls  -la", " ls -la\n"].map((command) => assistant(tool("bash", { command })))
    expect(detectIdleToolLoop([user(), ...spaced])).toEqual({ kind: "same-tool", tools: ["bash"], repeats: 3 })
  })

  test("negative control: calls that differ in words are not", () => {
    const different = ["ls -la", "ls -l", "ls -la src"].map((command) => assistant(tool("bash", { command })))
    expect(detectIdleToolLoop([user(), ...different])).toBeUndefined()
  })
})

describe("idle scan: episode and bounds", () => {
  test("a genuine user message ends the episode; the plugin's own prompts do not", () => {
    const history = [...calls("read"), user(), ...calls("read read")]
    expect(detectIdleToolLoop(history)).toBeUndefined()
    const acrossOwnPrompt = [user(), ...calls("read"), user(true), ...calls("read read")]
    expect(detectIdleToolLoop(acrossOwnPrompt)).toMatchObject({ kind: "same-tool", repeats: 3 })
  })

  test("inspects at most the last 60 calls", () => {
    const many = calls(Array.from({ length: 200 }, (_, i) => `t${i}`).join(" "))
    expect(episodeToolCalls([user(), ...many])).toHaveLength(IDLE_SCAN_MAX_CALLS)
    expect(episodeToolCalls([user(), ...many]).at(-1)?.tool).toBe("t199")
    // A long same-tool run reports at most the window.
    const run = calls(Array.from({ length: 100 }, () => "read").join(" "))
    expect(detectIdleToolLoop([user(), ...run])?.repeats).toBe(IDLE_SCAN_MAX_CALLS)
  })

  test("user and text-only messages are skipped; an empty history is no loop", () => {
    expect(detectIdleToolLoop([])).toBeUndefined()
    expect(detectIdleToolLoop([user(), assistant({ kind: "text", text: "hello" })])).toBeUndefined()
  })
})

describe("fingerprints", () => {
  test("object keys are sorted at every level", () => {
    expect(fingerprintArgs({ b: 1, a: { y: 2, x: [1, { d: 1, c: 2 }] } }).exact).toBe(
      fingerprintArgs({ a: { x: [1, { c: 2, d: 1 }], y: 2 }, b: 1 }).exact,
    )
    // Negative control: different values, different fingerprints.
    expect(fingerprintArgs({ a: 1 }).exact).not.toBe(fingerprintArgs({ a: 2 }).exact)
    expect(fingerprintArgs([1, 2]).exact).not.toBe(fingerprintArgs([2, 1]).exact)
    expect(fingerprintArgs({ a: "1" }).exact).not.toBe(fingerprintArgs({ a: 1 }).exact)
  })

  test("never throws: cycles, bigint, symbols, functions, throwing getters, proxies", () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const getter = Object.defineProperty({}, "boom", {
      enumerable: true,
      get() {
        throw new Error("no")
      },
    })
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("trap")
        },
      },
    )
    for (const value of [cyclic, 10n, Symbol("s"), () => 1, getter, proxy, undefined, null, NaN, [undefined]]) {
      expect(() => fingerprintArgs(value)).not.toThrow()
    }
    expect(fingerprintArgs(cyclic).exact).toContain("[circular]")
    expect(fingerprintArgs(10n).exact).toContain("10n")
    expect(fingerprintArgs(proxy).exact).toBe("[unserializable]")
    // A shared (non-cyclic) reference is printed twice, not called circular.
    const shared = { z: 1 }
    expect(fingerprintArgs({ a: shared, b: shared }).exact).not.toContain("[circular]")
  })

  test("length is capped, but a difference past the cap still separates two calls", () => {
    const big = "x".repeat(FINGERPRINT_MAX_CHARS * 3)
    const fp = fingerprintArgs({ content: big })
    expect(fp.exact.length).toBeLessThan(700)
    const a = fingerprintArgs({ content: "y".repeat(10_000) + "A" })
    const b = fingerprintArgs({ content: "y".repeat(10_000) + "B" })
    expect(a.exact).not.toBe(b.exact)
  })

  test("deep nesting is cut", () => {
    let deep: unknown = 1
    for (let i = 0; i < 1000; i++) deep = { d: deep }
    expect(fingerprintArgs(deep).exact).toContain("[deep]")
  })
})
