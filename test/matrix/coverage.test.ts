/**
 * The matrix against what it claims to cover: every README recovery path has a row (or says
 * where else it is proven), every named end-to-end test exists, and every row declared inert
 * on a host is declared by that host's startup line and by the README.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import path from "node:path"
import { INERT_OPTIONS } from "../../src/options/inert.ts"
import { HOSTS, play } from "./play.ts"
import { README_CLAIMS, readmeClaims } from "./readme-claims.ts"
import { ROWS } from "./table.ts"

const ROOT = path.join(import.meta.dir, "..", "..")
const README = readFileSync(path.join(ROOT, "README.md"), "utf8")
const ROW_IDS = new Set(ROWS.map((r) => r.id))

describe("the matrix covers the README", () => {
  const claims = readmeClaims(README)

  test("the README sections hold claims at all (the parser still reads them)", () => {
    expect(claims.length).toBeGreaterThan(20)
  })

  test("every recovery path, rail and control the README names has a row", () => {
    expect(claims.filter((c) => !(c in README_CLAIMS))).toEqual([])
  })

  test("every entry of the claim map is still in the README and names existing rows", () => {
    expect(Object.keys(README_CLAIMS).filter((c) => !claims.includes(c))).toEqual([])
    const unknown = Object.values(README_CLAIMS).flatMap((p) => ("rows" in p ? p.rows.filter((id) => !ROW_IDS.has(id)) : []))
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
      // The README marks each of them too.
      expect(declared.filter((name) => !README.includes(name))).toEqual([])
    })
  }
})
