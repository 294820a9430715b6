/**
 * One timeline of bench/trace-files.ts, run under `bun test --coverage` (one process per run,
 * so the line counts of the lcov file belong to that run alone). Not a test of behaviour: it
 * plays one capability-matrix row (test/matrix/table.ts) on one host through the plugin's
 * default export, exactly as the matrix does (same drivers, bun's fake timers, a sandbox), and
 * stops at a chosen point:
 *
 * - TRACE_PART=setup: the steps before the row's first `trigger`, then the start-up settles;
 * - TRACE_PART=recovery: the same, then the trigger and the steps after it, waits cut into
 *   one-second steps, until the plugin's first send (the recovery's send);
 * - TRACE_PART=control: the same setup, then the row's control (the trigger left out or
 *   replaced by its `instead`, as the matrix's control plays it) for TRACE_SPAN_MS of fake
 *   time: what the plugin runs anyway over the span the recovery took.
 *
 * Neither part stops the plugin (its teardown would differ between the two and be counted), and
 * the sandbox folder is left for the caller, which owns TMPDIR, to remove once the process
 * exits (removing it here could make pending plugin file writes fail inside the window).
 *
 * TRACE_ROW (a row id), TRACE_HOST (v1 | v2), TRACE_PART (setup | recovery).
 * TRACE_RESULT: a file this writes `{ acts, windowMs }` to (the acts and the fake time from
 * trigger to stop), so the caller can check the run.
 */
import { expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { flush, Sandbox, type MatrixHost } from "../../test/matrix/host-common.ts"
import type { Step, TimelineStep } from "../../test/matrix/steps.ts"
import { ROWS } from "../../test/matrix/table.ts"
import { startV1Host } from "../../test/matrix/v1-host.ts"
import { startV2Host } from "../../test/matrix/v2-host.ts"

const rowId = process.env.TRACE_ROW ?? ""
const host = process.env.TRACE_HOST ?? ""
const part = process.env.TRACE_PART ?? ""

/** The steps before the first trigger, and the trigger with everything after it (triggers flattened). */
export function splitAtTrigger(steps: readonly TimelineStep[], control = false): { setup: Step[]; rest: Step[] } {
  const at = steps.findIndex((s) => "trigger" in s)
  if (at < 0) throw new Error("row has no trigger step")
  const plain = (s: TimelineStep): Step[] => ("trigger" in s ? (control ? (s.instead ?? []) : s.trigger) : [s])
  return { setup: steps.slice(0, at).flatMap(plain), rest: steps.slice(at).flatMap(plain) }
}

/** Waits become one-second waits and streams one piece per output, so a run can stop close to a point in time. */
function fine(steps: readonly Step[]): Step[] {
  return steps.flatMap((s): Step[] => {
    if (s.do !== "wait" && s.do !== "stream") return [s]
    const piece = s.do === "wait" ? 1000 : (s.every ?? 10_000)
    const out: Step[] = []
    for (let left = s.ms; left > 0; left -= piece) out.push({ ...s, ms: Math.min(piece, left) })
    return out
  })
}

test.skipIf(!rowId)(`trace cell ${rowId} on ${host} (${part})`, async () => {
  const row = ROWS.find((r) => r.id === rowId)
  if (!row) throw new Error(`no matrix row ${rowId}`)
  if (host !== "v1" && host !== "v2") throw new Error(`TRACE_HOST ${host}: expected v1 or v2`)
  if (part !== "setup" && part !== "recovery" && part !== "control") throw new Error(`TRACE_PART ${part}: expected setup, recovery or control`)
  // Never closed: see the header (the caller removes TMPDIR; the fake timers die with the process).
  new Sandbox()
  const driver: MatrixHost = await (host === "v1" ? startV1Host : startV2Host)(row.options ?? {})
  const { setup, rest } = splitAtTrigger(row.steps, part === "control")
  for (const step of setup) await driver.play(step)
  // Let the start-up finish (the 2.x log's first lines, config reads) before the window opens.
  await driver.startupLine()
  await flush(20)
  const windowOpened = Date.now()
  if (part === "recovery") {
    for (const step of fine(rest)) {
      await driver.play(step)
      if (driver.acts.some((a) => a.act === "send")) break
    }
  } else if (part === "control") {
    const span = Number(process.env.TRACE_SPAN_MS ?? "0")
    const steps = fine(rest)
    // The control's own steps, then silence, until the span the recovery took has passed.
    while (Date.now() - windowOpened < span) await driver.play(steps.shift() ?? { do: "wait", ms: 1000 })
  }
  const result = { acts: driver.acts, windowMs: Date.now() - windowOpened }
  if (process.env.TRACE_RESULT) writeFileSync(process.env.TRACE_RESULT, JSON.stringify(result))
  expect(part !== "recovery" || driver.acts.some((a) => a.act === "send")).toBe(true)
}, 60_000)
