/**
 * The matrix against what it claims to cover: every recovery path, rail and control the README
 * and docs/ name has a row (or says where else it is proven), every named end-to-end test
 * exists, and every row declared inert on a host is declared by that host's startup line and by
 * the docs.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync, readdirSync } from "node:fs"
import path from "node:path"
import { INERT_OPTIONS } from "../../src/options/inert.ts"
import { HOSTS, play } from "./play.ts"
import { CLAIM_PAGES, DOC_CLAIMS, REFERENCE_PAGES, claimsOf, unmapped, type Claim } from "./readme-claims.ts"
import { ROWS } from "./table.ts"

const ROOT = path.join(import.meta.dir, "..", "..")
const read = (page: string) => readFileSync(path.join(ROOT, page), "utf8")
const README = read("README.md")
const DOC_PAGES = readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/${f.split(path.sep).join("/")}`)
  .sort()
/** The README and every page of docs/, as one text: what a user can read. */
const ALL_DOCS = [README, ...DOC_PAGES.map(read)].join("\n")
const ROW_IDS = new Set(ROWS.map((r) => r.id))

describe("the matrix covers the README and docs/", () => {
  const claims: Claim[] = ["README.md", ...CLAIM_PAGES].flatMap((page) => claimsOf(read(page)).map((claim) => ({ page, claim })))
  const readmeClaims = claims.filter((c) => c.page === "README.md")

  test("every page of docs/ is read for claims or says why it makes none", () => {
    const listed = [...CLAIM_PAGES, ...Object.keys(REFERENCE_PAGES)].sort()
    expect(new Set(listed).size).toBe(listed.length)
    expect(listed).toEqual(DOC_PAGES)
  })

  test("the pages hold claims at all (the parser still reads them)", () => {
    expect(readmeClaims.length).toBeGreaterThan(20)
    expect(claims.length - readmeClaims.length).toBeGreaterThan(30)
    // Every recovery page makes at least one claim, so a page the parser cannot read fails.
    const silent = CLAIM_PAGES.filter((page) => page !== "docs/opencode-2.md" && !claims.some((c) => c.page === page))
    expect(silent).toEqual([])
  })

  test("the README's table has one claim per recovery path, each with its option", () => {
    const section = README.slice(README.indexOf("\n## What goes wrong"), README.indexOf("\n## What it never does"))
    const rows = section.split("\n").filter((l) => l.startsWith("| ") && !/^\| (what goes wrong|---)/.test(l))
    expect(rows.length).toBeGreaterThanOrEqual(12)
    expect(rows.every((l) => l.split(/(?<!\\)\|/).length === 5)).toBe(true)
  })

  test("every recovery path, rail and control the README and docs/ name has a row", () => {
    expect(unmapped(claims)).toEqual([])
  })

  test("negative control: a claim with no row fails, in a paragraph, a list or the table", () => {
    const page = [
      "**A stream that goes silent.** known.",
      "**A recovery nobody tested.** made up.",
      "- *a nudge with no row*: made up.",
      "| what goes wrong | what the plugin does | option |",
      "| --- | --- | --- |",
      "| A failure with no row | something | `none` |",
      "```sh",
      "auto-resume-toggle <sessionID> off|on|status",
      "auto-resume-toggle sideways   # no such command",
      "```",
    ].join("\n")
    const found = claimsOf(page).map((claim) => ({ page: "made-up.md", claim }))
    expect(unmapped(found).map((c) => c.claim)).toEqual(["A recovery nobody tested.", "a nudge with no row", "A failure with no row", "auto-resume-toggle sideways"])
  })

  test("every entry of the claim map is still on some page and names existing rows", () => {
    const named = new Set(claims.map((c) => c.claim))
    expect(Object.keys(DOC_CLAIMS).filter((c) => !named.has(c))).toEqual([])
    const unknown = Object.values(DOC_CLAIMS).flatMap((p) => ("rows" in p ? p.rows.filter((id) => !ROW_IDS.has(id)) : []))
    expect(unknown).toEqual([])
  })

  test("row ids are unique", () => {
    expect(ROW_IDS.size).toBe(ROWS.length)
  })
})

describe("the end-to-end tests the rows name", () => {
  const named = ROWS.flatMap((row) => (row.e2e ?? []).map((e) => ({ row: row.id, ...e })))

  test("rows name real-host tests at all", () => {
    expect(named.length).toBeGreaterThan(5)
  })

  test("each named e2e test exists in its file", () => {
    const missing = named.filter((e) => !readFileSync(path.join(ROOT, e.file), "utf8").includes(JSON.stringify(e.test)))
    expect(missing).toEqual([])
  })
})

describe("rows declared inert", () => {
  for (const host of HOSTS) {
    test(`${host}: the rows declared inert are exactly the startup line's accepted-but-inert=`, async () => {
      const declared = [...new Set(ROWS.flatMap((r) => (r.inert?.[host] ? [r.inert[host]!] : [])))].sort()
      expect([...INERT_OPTIONS[host]].sort()).toEqual(declared)
      const { startupLine } = await play(host, { steps: [] }, false)
      const listed = /accepted-but-inert=([^;\s]*)/.exec(startupLine ?? "")?.[1]
      expect(listed?.split(",").filter(Boolean).sort()).toEqual(declared)
      // The README or docs/ mark each of them too.
      expect(declared.filter((name) => !ALL_DOCS.includes(name))).toEqual([])
    })
  }
})
