/**
 * Fault injection, simulated clock only. Every host method the plugin calls is made to
 * reject, throw synchronously, never settle, answer with junk, or answer after sendTimeoutMs,
 * one method at a time, under a workload that reaches every recovery path (workload.ts).
 * For each fault the plugin must:
 *  - keep every invariant of the property suite (state stays consistent, nothing thrown);
 *  - stay responsive: a stalled session's slot frees within sendTimeoutMs, and once the host
 *    heals a brand-new stall is recovered within sendTimeoutMs + the stall budget + backoff;
 *  - log each kind of fault once (a warning), not once per failing call.
 * Through the core seam (a faulty HostPort) and through the v1 adapter (a faulty SDK client).
 */
import { describe, expect, test } from "bun:test"
import type { PortMethod } from "../property/host.ts"
import type { CallScript } from "../property/model.ts"
import { runScenario, showViolation, type DriverKind, type RunResult } from "../property/runner.ts"
import { FAULT_OPTIONS, faultWorkload } from "./workload.ts"

const ADAPTERS: DriverKind[] = ["core", "v1"]
const KINDS: CallScript["outcome"][] = ["reject", "throw", "hang", "junk", "overdue"]

/** Methods the workload must reach (asserted by the baseline); compact/command only when a rule asks. */
const REACHED: PortMethod[] = ["send", "abort", "readMessages", "readTodos", "listBusySessions", "toolNames", "pluginNames", "modelLimits", "log"]

/** The fault kind a warning announces ("further <kind> faults are logged at debug level"). */
function faultKind(message: string): string | undefined {
  return /\(further (.+) faults are logged at debug level\)$/.exec(message)?.[1]
}

function warnings(r: RunResult) {
  return r.logs.filter((l) => l.level === "warn" || l.level === "error")
}

function explain(r: RunResult): string {
  return [...r.violations.map(showViolation), ...warnings(r).map((l) => `  ${l.level}: ${l.message}`)].join("\n")
}

describe("fault injection", () => {
  for (const adapter of ADAPTERS) {
    describe(adapter, () => {
      test("baseline: with a healthy host the workload reaches every host method, cleanly", async () => {
        const r = await runScenario(faultWorkload(), adapter, { stopAtFirst: false, healCheck: true })
        expect(REACHED.filter((m) => (r.callCounts.get(m) ?? 0) === 0)).toEqual([])
        expect(r.violations).toEqual([])
        expect(r.healed?.recovered).toBe(true)
      })

      for (const method of REACHED) {
        test(`${method}: reject, throw, hang, junk and overdue answers`, async () => {
          for (const kind of KINDS) {
            const r = await runScenario(faultWorkload(), adapter, { stopAtFirst: false, faults: { [method]: kind }, healCheck: true })
            const context = `${adapter} ${method} ${kind}:\n${explain(r)}`
            // Consistent: every invariant held, nothing reached the caller.
            expect({ context, violations: r.violations.length }).toEqual({ context, violations: 0 })
            // The fault really happened, and more often than it may be logged.
            const calls = r.callCounts.get(method) ?? 0
            expect(calls).toBeGreaterThan(0)
            // Responsive: after the host heals, a new stall is recovered within its bound.
            expect({ context, healed: r.healed?.recovered }).toEqual({ context, healed: true })
            // One warning per fault kind, never one per failing call.
            const warned = warnings(r)
            const kinds = warned.map((l) => faultKind(l.message) ?? `unkeyed: ${l.message}`)
            expect({ context, repeats: kinds.length - new Set(kinds).size }).toEqual({ context, repeats: 0 })
            expect(kinds.filter((k) => k.startsWith("unkeyed")).filter((k) => !/SendRefusedError/.test(k))).toEqual([])
            expect(warned.length).toBeLessThanOrEqual(12)
          }
        })
      }

      test("the one-call slot of a session frees within sendTimeoutMs of a call that never settles", async () => {
        const o = FAULT_OPTIONS
        const r = await runScenario(
          {
            options: o,
            calls: [{ outcome: "hang", lateMs: 0, echoDelayMs: 0, idleAfterAbort: true }, { outcome: "ok", lateMs: 0, echoDelayMs: 0, idleAfterAbort: true }],
            steps: [{ k: "ev", ev: { t: "user", s: 0, provider: "cloud" }, how: "once" }, { k: "ev", ev: { t: "busy", s: 0 }, how: "once" }, { k: "wait", ms: 20_000 }],
          },
          adapter,
          // No listing answers: the stall's first action is the plain continue (a live run's would
          // be an abort, and a hung abort holds the next one for the late-landing hold instead).
          { stopAtFirst: false, faults: { listBusySessions: "reject" } },
        )
        expect(r.violations).toEqual([])
        // The hung call, then the next recovery of the same session, no later than the slot's
        // release (sendTimeoutMs) plus one stall budget, the longest backoff and one check, plus
        // one bounded look before its abort (the script hangs every other read, that one too).
        const [hung, next] = r.calls.filter((c) => c.sessionID === "ses_0")
        expect(hung?.outcome).toBe("hang")
        expect(next).toBeDefined()
        const bound = 2 * o.sendTimeoutMs + o.chunkTimeoutMs + o.gracePeriodMs + o.maxBackoffMs + o.checkIntervalMs
        expect(next!.at - hung!.at).toBeLessThanOrEqual(bound)
      })

      test("a burst of failing sends over many sessions logs one warning per kind", async () => {
        const r = await runScenario(faultWorkload(40), adapter, { stopAtFirst: false, faults: { send: "reject", abort: "reject" } })
        expect(r.violations).toEqual([])
        const failing = (r.callCounts.get("send") ?? 0) + (r.callCounts.get("abort") ?? 0)
        const warned = warnings(r).filter((l) => /send|abort/.test(l.message) && !/SendRefusedError/.test(l.message))
        // Kinds are per recovery feature and outcome (send continue:failed, abort:failed, ...): a
        // handful, however many sessions and calls fail.
        expect(new Set(warned.map((l) => faultKind(l.message))).size).toBe(warned.length)
        expect(warned.length).toBeLessThanOrEqual(12)
        expect(failing).toBeGreaterThan(3 * warned.length)
      })
    })
  }
})

describe("fault injection: fixed bugs stay fixed", () => {
  // K11 (test/property/known-bugs.ts, FIXED_BUGS): one malformed or empty session listing was
  // believed: every quiet busy session was marked idle, its open tools and questions wiped, and
  // the next good listing adopted it as busy with no tool, so the stall ladder continued and
  // aborted a session whose tool was still running. On v1 every malformed status answer became
  // "nothing is running" (port.ts listBusySessions).
  for (const adapter of ADAPTERS) {
    test(`K11-discovery-trusts-one-listing (malformed listing) [${adapter}]`, async () => {
      const r = await runScenario(
        {
          options: FAULT_OPTIONS,
          calls: [],
          steps: [
            { k: "ev", ev: { t: "user", s: 0, provider: "cloud" }, how: "once" },
            { k: "ev", ev: { t: "busy", s: 0 }, how: "once" },
            { k: "ev", ev: { t: "toolStart", s: 0, call: 0, tool: "bash" }, how: "once" },
            { k: "wait", ms: 70_000 },
            { k: "heal" },
            { k: "wait", ms: 70_000 },
          ],
        },
        adapter,
        { stopAtFirst: false, faults: { listBusySessions: "junk" } },
      )
      expect(r.violations.map((v) => `${v.invariant}: ${v.detail}`)).toEqual([])
    })
  }
})
