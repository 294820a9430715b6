import { describe, expect, test } from "bun:test"
import type { TranscriptMessage, TranscriptToolPart } from "../../../src/core/transcript.ts"
import { normalizeV1Messages } from "../../../src/host/v1/messages.ts"
import { TOOL_IDS_CACHE_MS, UNKNOWN_TOOL_THRESHOLD } from "../../../src/options/constants.ts"
import {
  closestTool,
  countUnknownToolCalls,
  detectUnknownTool,
  ToolListCache,
  usableToolNames,
} from "../../../src/detect/unknown-tool.ts"
import { buildUnknownToolPrompt, LISTED_TOOLS_MAX } from "../../../src/paths/unknown-tools/prompt.ts"

const TOOLS = ["bash", "edit", "glob", "grep", "invalid", "question", "read", "skill", "task", "todowrite", "webfetch", "write"]

let seq = 0
function call(tool: string, status: TranscriptToolPart["status"] = "error"): TranscriptMessage {
  return { id: `m${seq++}`, role: "assistant", parts: [{ kind: "tool", callID: `c${seq}`, tool, status, error: "unavailable tool" }] }
}
function user(own = false): TranscriptMessage {
  return { id: `u${seq++}`, role: "user", parts: [{ kind: "text", text: "go" }], own: own || undefined }
}

describe("detectUnknownTool", () => {
  test("the same wrong name twice -> finding with the closest tool", () => {
    expect(UNKNOWN_TOOL_THRESHOLD).toBe(2)
    expect(detectUnknownTool([user(), call("bassh"), call("bassh")], TOOLS)).toEqual({ wrongName: "bassh", count: 2, closest: "bash" })
  })

  test("once is not enough (negative control)", () => {
    expect(detectUnknownTool([user(), call("bassh")], TOOLS)).toBeUndefined()
  })

  test("two different wrong names once each are not a finding", () => {
    expect(detectUnknownTool([user(), call("bassh"), call("reed")], TOOLS)).toBeUndefined()
  })

  test("errors of tools that exist are skipped (case-insensitively)", () => {
    expect(detectUnknownTool([user(), call("bash"), call("bash"), call("BASH")], TOOLS)).toBeUndefined()
  })

  test("completed parts are skipped, whatever their name", () => {
    expect(detectUnknownTool([user(), call("mcp_thing", "completed"), call("mcp_thing", "completed")], TOOLS)).toBeUndefined()
    // Negative control: the same name in error does count.
    expect(detectUnknownTool([user(), call("mcp_thing"), call("mcp_thing")], TOOLS)).toMatchObject({ wrongName: "mcp_thing", count: 2 })
  })

  test("no list, an empty list, or only the host's placeholder: no finding at all", () => {
    const history = [user(), call("bassh"), call("bassh")]
    expect(detectUnknownTool(history, undefined)).toBeUndefined()
    expect(detectUnknownTool(history, [])).toBeUndefined()
    expect(detectUnknownTool(history, ["invalid"])).toBeUndefined()
  })

  test("no close tool: a finding without a suggestion", () => {
    expect(detectUnknownTool([user(), call("launch_rocket"), call("launch_rocket")], TOOLS)).toEqual({ wrongName: "launch_rocket", count: 2 })
  })

  test("names group case-insensitively; the newest spelling is reported", () => {
    expect(detectUnknownTool([user(), call("Bassh"), call("bassh"), call("BASSH")], TOOLS)).toMatchObject({ wrongName: "BASSH", count: 3, closest: "bash" })
  })

  test("the most frequent wrong name wins; ties go to the newest", () => {
    const h = [user(), call("reed"), call("bassh"), call("bassh"), call("bassh"), call("reed")]
    expect(detectUnknownTool(h, TOOLS)?.wrongName).toBe("bassh")
    const tie = [user(), call("bassh"), call("reed"), call("bassh"), call("reed")]
    expect(detectUnknownTool(tie, TOOLS)?.wrongName).toBe("reed")
  })

  test("counts only the current user episode; own prompts do not end it", () => {
    expect(detectUnknownTool([call("bassh"), user(), call("bassh")], TOOLS)).toBeUndefined()
    expect(detectUnknownTool([user(), call("bassh"), user(true), call("bassh")], TOOLS)).toMatchObject({ count: 2 })
  })

  test("sinceMessageId: errors up to the last suggestion do not count again", () => {
    const a = call("bassh")
    const b = call("bassh")
    const after = call("bassh")
    expect(detectUnknownTool([user(), a, b, after], TOOLS, { sinceMessageId: b.id })).toBeUndefined()
    expect(detectUnknownTool([user(), a, b, after, call("bassh")], TOOLS, { sinceMessageId: b.id })).toMatchObject({ count: 2 })
  })

  test("a custom threshold", () => {
    expect(detectUnknownTool([user(), call("bassh")], TOOLS, { threshold: 1 })).toMatchObject({ count: 1 })
    expect(detectUnknownTool([user(), call("bassh"), call("bassh")], TOOLS, { threshold: 3 })).toBeUndefined()
  })

  test("1.18's completed `invalid` part, through the v1 normalizer, counts", () => {
    const raw = (n: number) => ({
      info: { id: `r${n}`, role: "assistant" },
      parts: [
        {
          type: "tool",
          callID: `k${n}`,
          tool: "invalid",
          state: {
            status: "completed",
            input: { tool: "bassh", error: "Model tried to call unavailable tool 'bassh'." },
            output: "Model tried to call unavailable tool 'bassh'.",
          },
        },
      ],
    })
    const history = normalizeV1Messages([{ info: { id: "u", role: "user" }, parts: [] }, raw(1), raw(2)])
    expect(detectUnknownTool(history, TOOLS)).toEqual({ wrongName: "bassh", count: 2, closest: "bash" })
  })

  test("countUnknownToolCalls keys by lower-case name", () => {
    const counts = countUnknownToolCalls([user(), call("Foo"), call("foo")], TOOLS)
    expect([...counts.keys()]).toEqual(["foo"])
    expect(counts.get("foo")?.count).toBe(2)
  })
})

describe("closestTool", () => {
  test.each([
    ["bassh", "bash"], // distance 1 <= 2.5
    ["Bash_", "bash"], // case-insensitive
    ["READ", "read"],
    ["edti", "edit"], // transposition costs 2, and 2 <= 4/2 (the `<=` decision)
    ["todo_write", "todowrite"],
    ["web_fetch", "webfetch"],
    ["gerp", "grep"],
  ])("%s -> %s", (wrong, expected) => {
    expect(closestTool(wrong, TOOLS)).toBe(expected)
  })

  test.each([
    ["launch_rocket"],
    ["rm"], // distance to every tool is over 1
    ["xyz"],
    [""],
    ["inval"], // the host placeholder is never suggested
  ])("%s -> no suggestion (negative control)", (wrong) => {
    expect(closestTool(wrong, TOOLS)).toBeUndefined()
  })

  test("exactly at half the length qualifies, one more does not", () => {
    // "abcd" vs "abxy": distance 2 = 4/2 -> suggested; "abcd" vs "axyz": 3 -> not.
    expect(closestTool("abcd", ["abxy"])).toBe("abxy")
    expect(closestTool("abcd", ["axyz"])).toBeUndefined()
  })

  test("the nearest wins; ties go to the tool listed first", () => {
    expect(closestTool("reat", ["write", "read"])).toBe("read")
    expect(closestTool("cat", ["bat", "car"])).toBe("bat")
    expect(closestTool("cat", ["car", "bat"])).toBe("car")
  })
})

describe("usableToolNames", () => {
  test("de-duplicates, trims, drops `invalid` and non-strings", () => {
    expect(usableToolNames([" bash", "Bash", "invalid", "", 3 as unknown as string, "read"])).toEqual(["bash", "read"])
    expect(usableToolNames(undefined)).toEqual([])
  })
})

describe("unknown-tool prompt", () => {
  test("names the wrong tool, says it does not exist, suggests, lists the first 20", () => {
    const available = Array.from({ length: 25 }, (_, i) => `tool${i}`)
    const text = buildUnknownToolPrompt({ wrongName: "bassh", count: 2, closest: "bash", available })
    expect(text).toContain("no tool called `bassh`")
    expect(text).toContain("Did you mean `bash`?")
    expect(text).toContain("tool19")
    expect(text).not.toContain("tool20,")
    expect(text).toContain("and 5 more")
    expect(LISTED_TOOLS_MAX).toBe(20)
  })
  test("without a close match there is no suggestion line", () => {
    const text = buildUnknownToolPrompt({ wrongName: "launch_rocket", count: 2, available: ["bash"] })
    expect(text).not.toContain("Did you mean")
    expect(text).toContain("Tools you can call: bash.")
  })
})

describe("ToolListCache", () => {
  test("fresh for TOOL_IDS_CACHE_MS after set, then stale", () => {
    const cache = new ToolListCache()
    expect(cache.isFresh(0)).toBe(false)
    expect(cache.get(0)).toBeUndefined()
    cache.set(["bash"], 1_000)
    expect(cache.isFresh(1_000)).toBe(true)
    expect(cache.get(1_000 + TOOL_IDS_CACHE_MS - 1)).toEqual(["bash"])
    expect(cache.isFresh(1_000 + TOOL_IDS_CACHE_MS)).toBe(false)
    expect(cache.get(1_000 + TOOL_IDS_CACHE_MS)).toBeUndefined()
  })
  test("a clock that went backwards makes it stale; clear() forgets; the stored list is a copy", () => {
    const cache = new ToolListCache(100)
    const list = ["a"]
    cache.set(list, 500)
    list.push("b")
    expect(cache.get(550)).toEqual(["a"])
    expect(cache.isFresh(400)).toBe(false)
    cache.clear()
    expect(cache.isFresh(550)).toBe(false)
  })
  test("an empty list is cached as a real answer", () => {
    const cache = new ToolListCache()
    cache.set([], 0)
    expect(cache.isFresh(1)).toBe(true)
    expect(cache.get(1)).toEqual([])
  })
})

describe("other agents' tool names map to ours (issue 18)", () => {
  const tools = ["bash", "read", "write", "edit", "list", "glob", "grep", "patch", "webfetch", "invalid"]

  test.each([
    ["read_file", "read"],
    ["str_replace_editor", "edit"],
    ["run_terminal_cmd", "bash"],
    ["apply_patch", "patch"],
    ["shell", "bash"],
    ["ls", "list"],
  ])("%s -> %s", (name, expected) => {
    expect(closestTool(name, tools)).toBe(expected)
  })

  test("the counterpart must exist on the host: apply_patch falls back to edit, ls to glob", () => {
    expect(closestTool("apply_patch", ["bash", "edit"])).toBe("edit")
    expect(closestTool("ls", ["bash", "glob"])).toBe("glob")
  })

  test("negative control: names with no counterpart still get no suggestion", () => {
    expect(closestTool("deploy_to_production", tools)).toBeUndefined()
    expect(closestTool("mcp__github__create_issue", tools)).toBeUndefined()
  })
})
