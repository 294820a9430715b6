import { describe, expect, test } from "bun:test"
import { hasWorkDescription } from "../../../src/detect/work-description.ts"

describe("work description", () => {
  test.each([
    ["a source file", "Updated src/core/judge.ts to add the second pass."],
    ["a file in backticks", "Changed `README.md`."],
    ["a file with a line number", "Fixed the bug at parser.py:120."],
    ["a relative path", "Output is in ./build/out now."],
    ["a home path", "Wrote ~/notes/plan."],
    ["an absolute path", "Edited /etc/hosts as asked."],
    ["an absolute path with a source file", "Wrote /Users/Me/Project/app.ts"],
    ["a shell prompt line", "I ran it:\n$ bun run build"],
    ["a backticked command", "Ran `npm test` and `git diff`."],
    ["a shell-tagged fence", "```bash\nmake\n```"],
    ["test counts", "All done: 42 passed, 0 failed."],
    ["tests pass", "The tests pass."],
    ["exit code", "Finished with exit code 0."],
    ["build succeeded", "Build succeeded."],
    ["typecheck clean", "Typecheck is clean."],
    ["a summary heading", "## Summary\nA rewrite."],
    ["a results heading", "### Results"],
    ["a label", "Changes made: the loader now retries."],
    ["a bold label", "**Files changed:** none besides the config"],
    ["a bulleted label", "- Verification: manual"],
  ])("describes the work: %s", (_name, text) => {
    expect(hasWorkDescription(text)).toBe(true)
  })

  test.each([
    ["a bare claim", "All done!"],
    ["prose only", "I took care of everything you asked for."],
    ["an abbreviation", "e.g. this and i.e. that"],
    ["a version number", "Bumped to v1.2.3"],
    ["a URL", "See https://example.com/docs for details."],
    ["a fraction", "Half of it (1/2) is left."],
    ["and/or", "Use one and/or the other."],
    ["a lone slash path", "Moved to /"],
    ["a one-segment absolute path", "Look in /tmp for it."],
    ["a base64-looking line", "/Xy8sQ2/pL0aZ9kq3Vb7/Rt5Hn1MwE6cJ4uYd"],
    ["a huge path-like token", "./" + "a/".repeat(500) + "x.ts"],
    ["digits inside a word", "abc123 passed"],
    ["an unknown extension", "Saved it as notes.zzz"],
    ["empty", ""],
  ])("no description: %s", (_name, text) => {
    expect(hasWorkDescription(text)).toBe(false)
  })
})
