/**
 * The capability matrix: every row of table.ts on both hosts, through the default export only.
 * A row passes when its timeline produces exactly its effect and its control (the same timeline
 * without the trigger) exactly the control's. A (row, host) marked `pending` runs as
 * test.failing: it documents the correct effect the current code does not reach yet.
 */
import { describe, expect, test } from "bun:test"
import { sameEffect } from "./steps.ts"
import { ROWS } from "./table.ts"
import { HOSTS, expectedEffect, play, show } from "./play.ts"
import { formatSummary, matrixSummary } from "./summary.ts"

describe("capability matrix, through the default export", () => {
  for (const row of ROWS) {
    for (const host of HOSTS) {
      const pending = row.pending?.[host]
      // MATRIX_PENDING=show runs pending cells as plain tests, to read why each still fails.
      const run = pending && process.env.MATRIX_PENDING !== "show" ? test.failing : test
      run(`${row.id} on ${host}${pending ? ` [pending: ${pending}]` : ""}: ${row.why}`, async () => {
        const problems: string[] = []
        for (const control of [false, true]) {
          const want = expectedEffect(row, host, control)
          const got = await play(host, row, control)
          if (!sameEffect(want, got.acts)) {
            problems.push(`${control ? "control" : "timeline"}: expected\n${show(want)}\ngot\n${show(got.acts)}\nlog:\n${got.logs.slice(-25).join("\n")}`)
          }
        }
        expect(problems.join("\n\n")).toBe("")
      }, 30_000)
    }
  }

  test("summary", () => {
    const summary = matrixSummary()
    console.log(formatSummary(summary))
    expect(summary.cells).toBe(ROWS.length * HOSTS.length)
  })
})
