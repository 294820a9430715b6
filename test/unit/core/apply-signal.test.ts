/** How apply-signal.ts records an open tool call: which calls wait on a subagent. */
import { describe, expect, test } from "bun:test"
import { subagentCallKind } from "../../../src/core/apply-signal.ts"

describe("which open call is a wait on a subagent", () => {
  test("the host's subagent tool is a wait, unless it runs in the background; any other tool is none", () => {
    expect(subagentCallKind("subagent", { prompt: "p" }, ["subagent"])).toBe("wait")
    expect(subagentCallKind("Subagent", {}, ["subagent"])).toBe("wait")
    expect(subagentCallKind("subagent", { prompt: "p", background: true }, ["subagent"])).toBe("background")
    expect(subagentCallKind("subagent", { background: "yes" }, ["subagent"])).toBe("wait")
    expect(subagentCallKind("task", { prompt: "p" }, ["subagent"])).toBeUndefined()
    expect(subagentCallKind("task", undefined, ["task"])).toBe("wait")
    expect(subagentCallKind("bash", { background: true }, ["task"])).toBeUndefined()
  })
})
