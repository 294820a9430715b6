/**
 * The options reference (docs/options.md) is generated from the schema
 * (scripts/gen-options-doc.ts); this fails as soon as the two say different things, and says
 * how to fix it.
 */
import { describe, expect, test } from "bun:test"
import fs from "node:fs"
import path from "node:path"
import { OPTION_DOCS } from "../../../src/options/index.ts"
import { END_MARKER, OPTIONS_DOC_PATH, OPTIONS_SECTION, START_MARKER, extractOptionsTable, renderOptionsTable, updateOptionsDoc } from "../../../scripts/gen-options-doc.ts"

const FIX = "run `bun run docs` to regenerate it from src/options/schema.ts"

function firstDifference(actual: string, expected: string): string {
  const a = actual.split("\n")
  const e = expected.split("\n")
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) return `first difference at table line ${i + 1}:\n  page:   ${a[i] ?? "(missing)"}\n  schema: ${e[i] ?? "(missing)"}`
  }
  return "no line differs (whitespace only?)"
}

describe("the options reference in docs/options.md", () => {
  test("matches the schema", () => {
    const page = fs.readFileSync(OPTIONS_DOC_PATH, "utf8")
    const table = extractOptionsTable(page)
    if (table === undefined) throw new Error(`docs/options.md has no ${START_MARKER} ... ${END_MARKER} block; ${FIX}`)
    const expected = renderOptionsTable()
    if (table !== expected) throw new Error(`docs/options.md options table is out of date; ${FIX}.\n${firstDifference(table, expected)}`)
  })

  test("has one row per option, in schema order", () => {
    const rows = renderOptionsTable()
      .split("\n")
      .filter((line) => /^\| `/.test(line))
      .map((line) => /^\| `([^`]+)`/.exec(line)?.[1])
    expect(rows).toEqual(OPTION_DOCS.map((doc) => doc.name))
  })

  test("a pipe inside a cell is escaped, so the row keeps five columns", () => {
    const row = renderOptionsTable().split("\n").find((line) => line.startsWith("| `busyStallStrategy`"))!
    expect(row).toContain('`"continue" \\| "abort" \\| "off"`')
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(5)
  })

  test("regenerating is a no-op on an up-to-date page and replaces only the block", () => {
    const table = renderOptionsTable()
    const page = `# x\n\n${OPTIONS_SECTION}\n\nprose\n\n${START_MARKER}\nold table\n${END_MARKER}\n\n## Next\n\ntail\n`
    const updated = updateOptionsDoc(page, table)
    expect(updated).toBe(`# x\n\n${OPTIONS_SECTION}\n\nprose\n\n${START_MARKER}\n${table}\n${END_MARKER}\n\n## Next\n\ntail\n`)
    expect(updateOptionsDoc(updated, table)).toBe(updated)
  })

  test("missing markers are added at the end of the table's section, not inside a code block", () => {
    const page = `# x\n\n${OPTIONS_SECTION}\n\nprose\n\n\`\`\`sh\n# a comment, not a heading\n\`\`\`\n\nmore prose\n\n## Next\n\ntail\n`
    const updated = updateOptionsDoc(page, "TABLE")
    expect(updated).toBe(
      `# x\n\n${OPTIONS_SECTION}\n\nprose\n\n\`\`\`sh\n# a comment, not a heading\n\`\`\`\n\nmore prose\n\n${START_MARKER}\nTABLE\n${END_MARKER}\n\n## Next\n\ntail\n`,
    )
    expect(extractOptionsTable(updated)).toBe("TABLE")
  })

  test("a page without the table's section is refused rather than guessed at", () => {
    expect(() => updateOptionsDoc("# x\n\n## Other\n", "TABLE")).toThrow(/no "## Every option" section/)
  })

  test("the generator writes into docs/, not the README", () => {
    expect(OPTIONS_DOC_PATH.endsWith(path.join("docs", "options.md"))).toBe(true)
  })
})
