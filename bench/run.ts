/**
 * All benchmarks, one command: prints a table and writes bench/RESULTS.md.
 *
 *   bun bench/run.ts [--quick]
 *
 * Each bench runs in its own process (hot-path.ts, memory.ts, latency.ts, hang-recovery.ts,
 * host-share.ts, and
 * detectors.ts when present, which is owned by the detector work); figures are medians over
 * the run counts shown. Nothing here asserts: a missed target is printed as missed, with
 * what the profile says about where the time goes.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { machine } from "./common.ts"

const here = import.meta.dir
const quick = process.argv.includes("--quick")
const bun = process.execPath

type Json = Record<string, unknown>

function runJson(script: string, args: string[]): Json {
  const proc = Bun.spawnSync([bun, join(here, script), ...args, "--json"], { cwd: join(here, ".."), stdout: "pipe", stderr: "pipe" })
  const out = proc.stdout.toString().trim().split("\n").filter((l) => l.startsWith("{"))
  if (proc.exitCode !== 0 || out.length === 0) return { error: `${script} failed (exit ${proc.exitCode}): ${proc.stderr.toString().slice(0, 500)}` }
  return JSON.parse(out[out.length - 1]!) as Json
}

/** bench/detectors.ts prints its own table; keep it whole and pick out its worst row. */
function runDetectors(): { text: string; worstMs?: number; worstRow?: string; judgementMs?: number; judgementRow?: string } | undefined {
  if (!existsSync(join(here, "detectors.ts"))) return undefined
  const proc = Bun.spawnSync([bun, join(here, "detectors.ts"), quick ? "5" : "15"], { cwd: join(here, ".."), stdout: "pipe", stderr: "pipe" })
  const text = (proc.stdout.toString() + (proc.exitCode === 0 ? "" : `\n(exit ${proc.exitCode}) ${proc.stderr.toString().slice(0, 400)}`)).trim()
  let worstMs: number | undefined
  let worstRow: string | undefined
  let judgementMs: number | undefined
  let judgementRow: string | undefined
  for (const line of text.split("\n")) {
    const m = /^(\S.*?)\s{2,}(\d+\.\d+)\s+(\d+\.\d+)/.exec(line)
    if (!m) continue
    const ms = Number(m[2])
    if (/judg/i.test(m[1]!)) {
      if (judgementMs === undefined || ms > judgementMs) {
        judgementMs = ms
        judgementRow = m[1]!.trim()
      }
    } else if (worstMs === undefined || ms > worstMs) {
      worstMs = ms
      worstRow = m[1]!.trim()
    }
  }
  return { text, worstMs, worstRow, judgementMs, judgementRow }
}

const fmt = (n: unknown, digits = 2) => (typeof n === "number" && Number.isFinite(n) ? n.toFixed(digits) : "n/a")
const kb = (bytes: unknown) => (typeof bytes === "number" ? `${(bytes / 1024).toFixed(2)} KB` : "n/a")

const m = machine()
console.log(`machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; load ${m.loadAverage}`)
console.log(`runtime: Bun ${m.bun}, JavaScriptCore ${m.jsc}, Node API ${m.nodeCompat}`)

const hot = runJson("hot-path.ts", quick ? ["--runs", "5", "--events", "50000", "--profile"] : ["--runs", "15", "--events", "100000", "--profile"])
const mem = runJson("memory.ts", quick ? ["--runs", "2"] : ["--runs", "5"])
const lat = runJson("latency.ts", quick ? ["--runs", "10"] : ["--runs", "30"])
// Starts a real opencode serve (node_modules/.bin/opencode) and a fake provider on 127.0.0.1.
const hang = runJson("hang-recovery.ts", quick ? ["--runs", "1"] : ["--runs", "3"])
// Two real opencode serve processes, with and without the plugin, runs interleaved (several minutes).
const share = runJson("host-share.ts", quick ? ["--runs", "2", "--turns", "2"] : ["--runs", "5"])
const det = runDetectors()

/** A field of a {min, median, max} figure. */
const pick = (x: unknown, key: "min" | "median" | "max" = "median") => (typeof x === "object" && x !== null ? ((x as Record<string, number>)[key] as number | undefined) : undefined)

type Row = { metric: string; median: string; target: string; verdict: string; runs: string }
const verdict = (ok: boolean | undefined) => (ok === undefined ? "n/a" : ok ? "met" : "MISSED")
const rows: Row[] = [
  {
    metric: "hot path: v1 event hook per streaming event (busy session)",
    median: `${fmt(hot.realHookUsPerEvent, 3)} µs (empty hook ${fmt(hot.emptyHookUsPerEvent, 3)} µs) = ${fmt(hot.ratio)}x; the floor, a hook that only stamps liveness, is ${fmt(hot.floorRatio)}x, and the real hook ${fmt(hot.ratioToFloor)}x the floor`,
    target: "<= 2x the floor (issue 17), repetition detector and progress stamp included",
    verdict: verdict(typeof hot.ratioToFloor === "number" ? hot.ratioToFloor <= 2 : undefined),
    runs: `${hot.runs ?? "?"} x ${hot.eventsPerRun ?? "?"} events`,
  },
  {
    metric: `host share: real opencode serve CPU per streamed delta, with the plugin vs without (${share.deltasPerRun ?? "?"} deltas a run)`,
    median: `${fmt(pick(share.withUsPerDelta), 1)} µs with, ${fmt(pick(share.withoutUsPerDelta), 1)} µs without: share ${fmt(100 * (share.share as number), 2)}% (pairwise ${fmt(100 * (pick(share.pairShares, "min") ?? NaN), 1)}% to ${fmt(100 * (pick(share.pairShares, "max") ?? NaN), 1)}%); inside the plugin's hooks ${fmt(100 * (pick(share.hookShare) ?? NaN), 2)}%`,
    target: "<= 1% of the host's CPU",
    verdict: verdict(typeof share.share === "number" ? share.share <= 0.01 : undefined),
    runs: `${share.runs ?? "?"} each, interleaved`,
  },
  {
    metric: `memory: heap per tracked session (${mem.sessionsFed ?? "?"} sessions fed, ${mem.tracked ?? "?"} tracked, cap ${mem.maxTracked ?? "?"})`,
    median: kb(mem.perSessionBytes),
    target: "<= 2 KB per idle session",
    verdict: verdict(typeof mem.perSessionBytes === "number" ? mem.perSessionBytes <= 2048 : undefined),
    runs: `${mem.runs ?? "?"}`,
  },
  {
    metric: `memory: heap after cleanup vs baseline (${mem.trackedAfterCleanup ?? "?"} sessions left)`,
    median: `${typeof mem.afterCleanupDeltaBytes === "number" && mem.afterCleanupDeltaBytes >= 0 ? "+" : ""}${kb(mem.afterCleanupDeltaBytes)}`,
    target: "back to baseline (within 64 KB)",
    verdict: verdict(typeof mem.afterCleanupDeltaBytes === "number" ? mem.afterCleanupDeltaBytes <= 64 * 1024 : undefined),
    runs: `${mem.runs ?? "?"}`,
  },
  {
    metric: `detection latency, real clock (budget ${lat.budgetMs ?? "?"} ms = chunk ${lat.chunkTimeoutMs ?? "?"} + grace ${lat.gracePeriodMs ?? "?"})`,
    median: `+${fmt(lat.medianOvershootMs, 1)} ms past budget (p90 +${fmt(lat.p90OvershootMs, 1)}, max +${fmt(lat.maxOvershootMs, 1)})`,
    target: "within 100 ms of the budget",
    verdict: verdict(typeof lat.medianOvershootMs === "number" ? lat.medianOvershootMs <= 100 : undefined),
    runs: `${lat.runs ?? "?"}${lat.missed ? ` (${lat.missed} missed)` : ""}`,
  },
  {
    metric: `hang recovery, real opencode serve: keep-alive-warm hang, last byte -> continue (budget ${hang.budgetMs ?? "?"} ms = chunk ${hang.chunkTimeoutMs ?? "?"} + grace ${hang.gracePeriodMs ?? "?"}; abort pause ceiling ${hang.abortPauseCeilingMs ?? "?"} ms)`,
    median: `${fmt(hang.warmRatio)}x the budget (${fmt(hang.warmMedianMs, 0)} ms; abort to continue ${fmt(hang.warmPauseMedianMs, 0)} ms; plugin messages ${JSON.stringify(hang.warmPluginMessages ?? "?")}); plain hang retried by OpenCode itself at ${fmt(hang.plainHostRetryRatio)}x, no plugin message`,
    target: "<= 1.1x the budget + 1 s, one message",
    verdict: verdict(
      typeof hang.warmRatio === "number" && typeof hang.warmTargetRatio === "number" && Number.isFinite(hang.warmRatio) && Array.isArray(hang.warmPluginMessages)
        ? hang.warmRatio <= hang.warmTargetRatio && hang.warmPluginMessages.every((n: unknown) => n === 1)
        : undefined,
    ),
    runs: `${hang.runs ?? "?"}${hang.missed ? ` (${hang.missed} missed)` : ""}`,
  },
  {
    metric: "idle judgement: full judgement (bench/detectors.ts)",
    median: det?.judgementMs !== undefined ? `${fmt(det.judgementMs, 3)} ms (${det.judgementRow})` : det ? "see detectors table" : "slot: bench/detectors.ts not present",
    target: "<= 5 ms",
    verdict: verdict(det?.judgementMs !== undefined ? det.judgementMs <= 5 : undefined),
    runs: det ? (quick ? "5" : "15") : "-",
  },
  {
    metric: "idle judgement: worst detector on 1 MB adversarial input (bench/detectors.ts)",
    median: det?.worstMs !== undefined ? `${fmt(det.worstMs, 3)} ms (${det.worstRow})` : det ? "see detectors table" : "slot: bench/detectors.ts not present",
    target: "<= 5 ms",
    verdict: verdict(det?.worstMs !== undefined ? det.worstMs <= 5 : undefined),
    runs: det ? (quick ? "5" : "15") : "-",
  },
]

const widths = {
  metric: Math.max(6, ...rows.map((r) => r.metric.length)),
  median: Math.max(6, ...rows.map((r) => r.median.length)),
  target: Math.max(6, ...rows.map((r) => r.target.length)),
}
console.log("")
console.log(`${"metric".padEnd(widths.metric)}  ${"median".padEnd(widths.median)}  ${"target".padEnd(widths.target)}  verdict  runs`)
for (const r of rows) console.log(`${r.metric.padEnd(widths.metric)}  ${r.median.padEnd(widths.median)}  ${r.target.padEnd(widths.target)}  ${r.verdict.padEnd(7)}  ${r.runs}`)

const profile = Array.isArray(hot.profile) ? (hot.profile as Array<{ fn: string; share: number }>) : []
const breakdown = (hot.breakdownUs ?? {}) as Record<string, number>
if (Object.keys(breakdown).length) {
  console.log("\nhot path, piece by piece (µs per event, medians):")
  console.log(`  empty async hook ${fmt(hot.emptyHookUsPerEvent, 3)} | floor hook ${fmt(hot.floorHookUsPerEvent, 3)} | one clock read ${fmt(breakdown.clockRead, 3)} | mapV1Event ${fmt(breakdown.mapV1Event, 3)} | engine.handle ${fmt(breakdown.engineHandle, 3)} | whole hook ${fmt(hot.realHookUsPerEvent, 3)}`)
}
if (profile.length) {
  console.log("\nhot path, where the time goes (self time of the real hook, CPU profile):")
  for (const p of profile) console.log(`  ${(p.share * 100).toFixed(1).padStart(5)}%  ${p.fn}`)
}
for (const [name, r] of [["hot-path", hot], ["memory", mem], ["latency", lat], ["hang-recovery", hang], ["host-share", share]] as const) if (r.error) console.log(`\n${name}: ${r.error}`)

// Notes kept by hand between these markers (before/after figures with their commands) survive a rewrite.
const KEPT = /<!-- kept -->[\s\S]*?<!-- \/kept -->/
const kept = existsSync(join(here, "RESULTS.md")) ? (KEPT.exec(readFileSync(join(here, "RESULTS.md"), "utf8"))?.[0] ?? "") : ""

const md = [
  "# Benchmark results",
  "",
  `Written by \`bun bench/run.ts${quick ? " --quick" : ""}\` on ${new Date().toISOString().slice(0, 10)}. Medians; nothing here is asserted.`,
  "",
  `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; load average at start ${m.loadAverage}`,
  `- Runtime: Bun ${m.bun}, JavaScriptCore ${m.jsc}, Node API ${m.nodeCompat}`,
  "",
  "| metric | median | target | verdict | runs |",
  "| --- | --- | --- | --- | --- |",
  ...rows.map((r) => `| ${r.metric} | ${r.median} | ${r.target} | ${r.verdict} | ${r.runs} |`),
  "",
  "## How each figure is taken",
  "",
  "- Hot path (`bench/hot-path.ts`): the real v1 hooks (startV1, real clock, in-memory pauses), issue 28's mix (80% text deltas of about 20 characters, 20% updates of the part's growing text; `--mix old` for one-word deltas alternating with updates) at one busy session (the figures here) and at 20 (the bench's `busy` line); every hook call awaited as the host does; interleaved with an empty async event hook and with the floor hook (clock read and liveness stamps only) in the same process; per-run µs/event, median over the runs.",
  "- Memory (`bench/memory.ts`): 10,000 sessions through the v1 hooks on simulated time, each one turn (user message, busy, usage, text part, tool start/end, idle, idle judgement); the engine keeps at most MAX_TRACKED_SESSIONS; heap growth over the plugin's own baseline divided by the sessions tracked; then past IDLE_CLEANUP_MS the sweep drops them and the heap is compared with the baseline. `Bun.gc(true)` before each reading; heapUsed from `process.memoryUsage()` (bun:jsc heapStats agrees).",
  "- Detection latency (`bench/latency.ts`): real timers; the last event of a busy session, then the time until the prompt reaches the SDK client; first-retry backoff 0 so the figure is the detector's own delay.",
  "- Hang recovery (`bench/hang-recovery.ts`): a real `opencode serve` 1.18.33 with the plugin and a scripted provider on 127.0.0.1, chunkTimeoutMs 3000, gracePeriodMs 1000, first backoff 0; from the hung stream's last data byte to the provider request carrying the plugin's continue (a hang kept warm by keep-alive comments, which OpenCode's own chunkTimeout cannot see), and for a plain hang to OpenCode's own retry request.",
  "- Host share (`bench/host-share.ts`): two real `opencode serve` 1.18.33 on one fake provider, one with the plugin (through bench/host-probe-plugin.ts, which times its hooks inside the host), one without; runs alternate (with, without, ...), each a fresh session of several turns of many small text deltas; the server's utime+stime (/proc, children included) per delta sent, from the first prompt to 3.5 s after the last idle.",
  "- Idle judgement: `bench/detectors.ts` (the detector work), run as is; its table follows when present.",
  "",
  ...(kept ? [kept, ""] : []),
  ...(Object.keys(breakdown).length
    ? [
        "## Hot path, piece by piece",
        "",
        "| piece | µs per event |",
        "| --- | --- |",
        `| empty async event hook (the baseline) | ${fmt(hot.emptyHookUsPerEvent, 3)} |`,
        `| the floor: a hook that only reads the clock and stamps the session (bench/hot-path.ts floorHook) | ${fmt(hot.floorHookUsPerEvent, 3)} |`,
        `| one read of the production clock alone (the liveness stamp each event needs) | ${fmt(breakdown.clockRead, 3)} |`,
        `| mapV1Event alone (event -> signals) | ${fmt(breakdown.mapV1Event, 3)} |`,
        `| engine.handle alone (signals -> state, modules) | ${fmt(breakdown.engineHandle, 3)} |`,
        `| the real hook, whole | ${fmt(hot.realHookUsPerEvent, 3)} |`,
        "",
      ]
    : []),
  ...(profile.length
    ? ["## Hot path: where the time goes", "", "Self time of the real hook from a CPU profile (300,000 events):", "", "| share | function |", "| --- | --- |", ...profile.map((p) => `| ${(p.share * 100).toFixed(1)}% | \`${p.fn}\` |`), ""]
    : []),
  ...(det ? ["## bench/detectors.ts output", "", "```", det.text, "```", ""] : []),
  "## Raw figures",
  "",
  "```json",
  JSON.stringify({ hot: { ...hot, profile: undefined }, mem, lat, hang, share }, null, 2),
  "```",
  "",
]
writeFileSync(join(here, "RESULTS.md"), md.join("\n"))
console.log(`\nwritten: ${join("bench", "RESULTS.md")}`)
