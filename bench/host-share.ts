/**
 * The plugin's share of a real host: CPU time of a real `opencode serve` 1.18.33 per streamed
 * delta, with the plugin from this checkout loaded and without it, and the difference as a share
 * of the whole.
 *
 *   bun bench/host-share.ts [--runs 5] [--turns 6] [--deltas 4000] [--json]
 *
 * Two servers on one fake provider (127.0.0.1), each warmed up by one turn and one unmeasured
 * run: one loads the plugin (default options) through host-probe-plugin.ts, which times each of
 * its hooks from inside the host (two clock reads and a few counters a call, charged to the
 * plugin's side), the other loads none. Runs alternate between them (with, without, with,
 * ...); each run is a fresh session of `turns` turns, each turn one answer streamed as `deltas`
 * small text deltas (a few characters each, prose that never repeats a sentence, so no detector
 * acts), prompted as soon as the last turn went idle. Run i streams the same text on both
 * servers. A run's CPU is the server's utime+stime (/proc/<pid>/stat, every thread, plus any
 * live descendant and the reaped children's cutime+cstime) from just before its first prompt to
 * SETTLE_MS after its last idle, so the plugin's work after a turn (the idle judgement, three
 * seconds after idle by default) falls inside the window on both servers. Wall time is
 * printed too, but CPU time is the figure: the machine is shared, and CPU time counts only
 * what the server itself did. Still, on a loaded machine a run's CPU time moves by more than the
 * plugin costs (cache and core sharing); the pairwise spread says by how much, and the probe's
 * figure (time inside the plugin's hooks) is the direct measure beside it.
 */
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { spawnSync } from "node:child_process"
import { startFakeProvider, text, type FakeProvider } from "../test/e2e/harness/fake-provider.ts"
import { createSession, descendantPids, promptAsync, startOpencode, waitForIdle, type OpencodeHost } from "../test/e2e/harness/opencode-host.ts"
import { pluginPromptRequests, sleep, warmUp } from "../test/e2e/support.ts"
import { argNumber, machine, median, report } from "./common.ts"
import { histogramQuantile } from "./host-probe-histogram.ts"

const RUNS = argNumber("runs", 5)
const TURNS = argNumber("turns", 6)
const DELTAS = argNumber("deltas", 4000)
/** After a run's last idle: longer than the plugin's default idle-judgement delay (3 s). */
const SETTLE_MS = 3500
/** The plugin's default export with its hooks timed (host-probe-plugin.ts): the direct figure. */
const PROBE_URL = pathToFileURL(path.join(import.meta.dir, "host-probe-plugin.ts")).href
const TICK_MS = 1000 / (Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100)

/** utime+stime of a process (all its threads), plus its reaped children, in ms. */
function processCpuMs(pid: number, withReaped: boolean): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // pid (comm) state ppid ...: fields after the comm, from field 3 on; utime is field 14.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(f[11]) + Number(f[12]) + (withReaped ? Number(f[13]) + Number(f[14]) : 0)
    return ticks * TICK_MS
  } catch {
    return 0
  }
}

/** The server's CPU so far, in ms, and how many processes that counted beside the server. */
function serverCpu(pid: number): { ms: number; descendants: number } {
  const kids = descendantPids(pid)
  let ms = processCpuMs(pid, true)
  for (const kid of kids) ms += processCpuMs(kid, false)
  return { ms, descendants: kids.length }
}

function threads(pid: number): number {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)
  } catch {
    return 0
  }
}

/** Seeded prose: sentences of common words, never the same sentence twice in a row. */
function prose(seed: number, chars: number): string {
  const words = "the a model file server request answer value table line code test change reads writes keeps sends builds checks moves opens closes small large quiet new old first last every other some each through over under after before with from into about".split(" ")
  let x = seed >>> 0 || 1
  const next = () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 4294967296
  }
  let out = ""
  while (out.length < chars) {
    const n = 6 + Math.floor(next() * 12)
    const sentence: string[] = []
    for (let i = 0; i < n; i++) sentence.push(words[Math.floor(next() * words.length)]!)
    out += sentence.join(" ").replace(/^./, (c) => c.toUpperCase()) + (next() < 0.15 ? ".\n\n" : ". ")
  }
  return out.slice(0, chars)
}

type Run = {
  cpuMs: number
  wallMs: number
  deltasSent: number
  deltaEvents: number
  pluginPrompts: number
  descendants: number
  /** From the probe: every hook's time, the delta events' calls under 1 ms, the longer ones, their histogram. */
  hookMs?: number
  deltaShortMs?: number
  deltaLongMs?: number
  deltaLongCalls?: number
  deltaHistogram?: number[]
}

type ProbeTotals = {
  hookMs: Record<string, number>
  calls: Record<string, number>
  eventTypes: Record<string, number>
  delta: { shortMs: number; longMs: number; longCalls: number; histogram: number[] }
}

function readProbe(file: string | undefined): ProbeTotals | undefined {
  if (!file) return undefined
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as ProbeTotals
  } catch {
    return undefined
  }
}

const sum = (r: Record<string, number> | undefined) => Object.values(r ?? {}).reduce((a, b) => a + b, 0)

async function oneRun(host: OpencodeHost, provider: FakeProvider, run: number, probeFile?: string): Promise<Run> {
  const sessionID = await createSession(host)
  const probeBefore = readProbe(probeFile)
  const requestsBefore = provider.requests.length
  const eventsBefore = host.events.mark()
  let descendants = 0
  const startCpu = serverCpu(host.pid)
  const startWall = performance.now()
  for (let t = 0; t < TURNS; t++) {
    // About five characters a delta, like a model's tokens.
    provider.setFallback(text(prose(1000 * run + t + 1, DELTAS * 5), { chunks: DELTAS }))
    await promptAsync(host, sessionID, `bench host share, run ${run}, turn ${t}: write it out`)
    await waitForIdle(host, sessionID, 120_000)
    descendants = Math.max(descendants, descendantPids(host.pid).length)
  }
  await sleep(SETTLE_MS)
  const endCpu = serverCpu(host.pid)
  const wallMs = performance.now() - startWall
  const deltaEvents = host.events.since(eventsBefore, sessionID).filter((e) => e?.type === "message.part.delta").length
  const pluginPrompts = pluginPromptRequests(provider, requestsBefore).length
  const probeAfter = readProbe(probeFile)
  await host.client.session.delete({ path: { id: sessionID } })
  const result: Run = { cpuMs: endCpu.ms - startCpu.ms, wallMs, deltasSent: TURNS * DELTAS, deltaEvents, pluginPrompts, descendants: Math.max(descendants, endCpu.descendants) }
  if (probeAfter) {
    result.hookMs = sum(probeAfter.hookMs) - sum(probeBefore?.hookMs)
    result.deltaShortMs = probeAfter.delta.shortMs - (probeBefore?.delta.shortMs ?? 0)
    result.deltaLongMs = probeAfter.delta.longMs - (probeBefore?.delta.longMs ?? 0)
    result.deltaLongCalls = probeAfter.delta.longCalls - (probeBefore?.delta.longCalls ?? 0)
    result.deltaHistogram = probeAfter.delta.histogram.map((n, i) => n - (probeBefore?.delta.histogram[i] ?? 0))
  }
  return result
}

const spread = (xs: number[]) => ({ min: Math.min(...xs), median: median(xs), max: Math.max(...xs) })

export async function hostShare(runs = RUNS) {
  const provider = await startFakeProvider()
  const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), "host-share-"))
  const probeFile = path.join(probeDir, "probe.json")
  let withPlugin: OpencodeHost | undefined
  let without: OpencodeHost | undefined
  try {
    withPlugin = await startOpencode({ providerUrl: provider.url, plugins: [[PROBE_URL, {}]], env: { AUTO_RESUME_PROBE_OUT: probeFile } })
    without = await startOpencode({ providerUrl: provider.url, plugins: [] })
    await warmUp(withPlugin, provider)
    await warmUp(without, provider)
    // One unmeasured run each: the host's own code paths for a long stream get compiled first.
    await oneRun(withPlugin, provider, 0, probeFile)
    await oneRun(without, provider, 0)
    const on: Run[] = []
    const off: Run[] = []
    for (let r = 1; r <= runs; r++) {
      on.push(await oneRun(withPlugin, provider, r, probeFile))
      off.push(await oneRun(without, provider, r))
    }
    const perDelta = (xs: Run[]) => xs.map((x) => (x.cpuMs * 1000) / x.deltasSent)
    const onUs = perDelta(on)
    const offUs = perDelta(off)
    const withMedian = median(onUs)
    const withoutMedian = median(offUs)
    // The share from each interleaved pair too: how much the figure moves between neighbours.
    const pairShares = onUs.map((w, i) => (w - offUs[i]!) / w)
    return {
      bench: "host-share",
      host: "opencode serve 1.18.33",
      runs,
      turnsPerRun: TURNS,
      deltasPerTurn: DELTAS,
      deltasPerRun: TURNS * DELTAS,
      settleMs: SETTLE_MS,
      clockTickMs: TICK_MS,
      withUsPerDelta: spread(onUs),
      withoutUsPerDelta: spread(offUs),
      share: (withMedian - withoutMedian) / withMedian,
      pairShares: spread(pairShares),
      deltaEventsPerRun: { with: median(on.map((x) => x.deltaEvents)), without: median(off.map((x) => x.deltaEvents)) },
      // Time inside the plugin's hooks, measured in the host (host-probe-plugin.ts). All of it
      // per delta (every hook, every event); the delta events' own calls, those under 1 ms (the
      // hook's work) and the longer ones (preemption or a collection) apart; their median call.
      hookUsPerDelta: spread(on.map((x) => ((x.hookMs ?? NaN) * 1000) / x.deltasSent)),
      hookShare: spread(on.map((x) => (x.hookMs ?? NaN) / x.cpuMs)),
      deltaCallsUnder1msUsPerDelta: spread(on.map((x) => ((x.deltaShortMs ?? NaN) * 1000) / Math.max(1, x.deltaEvents))),
      deltaCallsUnder1msShare: spread(on.map((x) => (x.deltaShortMs ?? NaN) / x.cpuMs)),
      deltaLongCallsPerRun: median(on.map((x) => x.deltaLongCalls ?? NaN)),
      deltaLongMsPerRun: median(on.map((x) => x.deltaLongMs ?? NaN)),
      deltaCallP50Us: median(on.map((x) => histogramQuantile(x.deltaHistogram ?? [], 0.5))),
      deltaCallP90Us: median(on.map((x) => histogramQuantile(x.deltaHistogram ?? [], 0.9))),
      pluginPrompts: on.reduce((n, x) => n + x.pluginPrompts, 0),
      serverDescendants: Math.max(...on.map((x) => x.descendants), ...off.map((x) => x.descendants)),
      serverThreads: { with: threads(withPlugin.pid), without: threads(without.pid) },
      wallMsPerRun: { with: median(on.map((x) => x.wallMs)), without: median(off.map((x) => x.wallMs)) },
      machine: machine(),
      withRunsUs: onUs,
      withoutRunsUs: offUs,
    }
  } finally {
    await withPlugin?.stop()
    await without?.stop()
    await provider.stop()
    fs.rmSync(probeDir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const result = await hostShare()
  if (!process.argv.includes("--json")) {
    const f = (x: { min: number; median: number; max: number }, d = 2) => `${x.median.toFixed(d)} µs (${x.min.toFixed(d)}-${x.max.toFixed(d)})`
    console.log(`server CPU per delta, with the plugin:    ${f(result.withUsPerDelta)}`)
    console.log(`server CPU per delta, without the plugin: ${f(result.withoutUsPerDelta)}`)
    const pct = (x: { min: number; median: number; max: number }) => `${(100 * x.median).toFixed(2)}% (${(100 * x.min).toFixed(2)}-${(100 * x.max).toFixed(2)}%)`
    console.log(`inside the plugin's hooks, timed in the host: ${f(result.hookUsPerDelta, 3)} per delta = ${pct(result.hookShare)} of the server's CPU`)
    console.log(`  the delta events' calls under 1 ms: ${f(result.deltaCallsUnder1msUsPerDelta, 3)} per delta = ${pct(result.deltaCallsUnder1msShare)}; median call <= ${result.deltaCallP50Us.toFixed(2)} µs, p90 <= ${result.deltaCallP90Us.toFixed(2)} µs; ${result.deltaLongCallsPerRun} calls a run of 1 ms or more (${result.deltaLongMsPerRun.toFixed(1)} ms)`)
    console.log(`the plugin's share: ${(100 * result.share).toFixed(2)}% (pairwise ${(100 * result.pairShares.min).toFixed(2)}% to ${(100 * result.pairShares.max).toFixed(2)}%, median ${(100 * result.pairShares.median).toFixed(2)}%); ${result.runs} runs each of ${result.deltasPerRun} deltas, interleaved`)
  }
  report(result)
  process.exit(0)
}
