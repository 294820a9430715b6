/**
 * The judge path (paths/judge/) as the runtime hands its rules to the finished-turn passes
 * (runtime/paths.ts turnRules): one rule per pass at JUDGE_PRIORITY, weighing the hand-off
 * itself, and reading the host's tool names only when the runtime has them at hand. The
 * judgement itself is pinned in test/unit/judge/.
 */
import { describe, expect, test } from "bun:test"
import type { TranscriptMessage } from "../../../src/core/transcript.ts"
import { JUDGE_PRIORITY, judgePath } from "../../../src/paths/judge/path.ts"
import type { TurnFacts } from "../../../src/runtime/path.ts"
import { PathRuntime } from "../../../src/runtime/paths.ts"
import { bareContext } from "../../support/bare-context.ts"

/** The judge's rules through a runtime whose tool-name cache holds `cached`; `fetches` counts asks of the host. */
function judgeRules(cached: readonly string[] | undefined) {
  const { ctx, state } = bareContext()
  let fetches = 0
  const runtime = new PathRuntime(ctx, [judgePath], { get: async () => (fetches++, ["deploy"]), peek: () => cached })
  const messages: TranscriptMessage[] = [
    { id: "u1", role: "user", parts: [{ kind: "text", text: "ship it" }] },
    { id: "a1", role: "assistant", parts: [{ kind: "text", text: "<deploy>prod</deploy>" }], finish: "stop" },
  ]
  const options = ctx.effective(state)
  // The ending is read as nothing in particular: what the classifier makes of the markup is pinned in test/unit/judge/.
  const facts = (pass: TurnFacts["pass"]): TurnFacts => ({ state, options, now: 0, pass, messages, todos: "none", ending: {} })
  return { rules: runtime.turnRules(), facts, fetches: () => fetches }
}

describe("the judge path", () => {
  test("is one rule per pass, at JUDGE_PRIORITY, each weighing the hand-off itself", () => {
    expect(judgeRules(undefined).rules.map((r) => [r.name, r.pass, r.priority, r.weighsHandOff])).toEqual([
      ["judge-first", "first", JUDGE_PRIORITY, true],
      ["judge-second", "second", JUDGE_PRIORITY, true],
    ])
  })

  test("a bare tag of a host tool the runtime has cached is a printed call; control: with nothing cached it is not, and the host is never asked", async () => {
    const known = judgeRules(["deploy"])
    const found = await known.rules[1]!.decide(known.facts("second"))
    expect(found?.kind === "nudge" && found.feature).toBe("tool-text")
    const unknown = judgeRules(undefined)
    expect((await unknown.rules[1]!.decide(unknown.facts("second")))?.kind).toBe("none")
    expect(known.fetches() + unknown.fetches()).toBe(0)
  })
})
