/**
 * Hang recovery on the real host: a real `opencode serve` 1.18.33 with the plugin from this
 * checkout, a scripted provider on 127.0.0.1, and a short budget. Measured from the hung
 * stream's last data byte (as the provider wrote it) to the request that carries the plugin's
 * recovery prompt, as a ratio to chunkTimeoutMs + gracePeriodMs.
 *
 *   bun bench/hang-recovery.ts [--runs 3] [--chunk 3000] [--grace 1000] [--backoff 0] [--json]
 *
 * Two hangs, a fresh session per run:
 *  - warm: partial text, then only SSE keep-alive comments. They reset OpenCode's own
 *    chunkTimeout, so this is the plugin's to recover: it finds the stall after the budget, asks
 *    the host whether the run is live, aborts it, and prompts as soon as the host shows the run
 *    over (ABORT_CONTINUE_DELAY_MS is only the ceiling when it shows nothing). Target (issue 28):
 *    at most 1.1 x the budget + 1 s, with one message of the plugin in the session (counted
 *    once the ceiling has passed too). Split into detection (last byte to the hung request
 *    being cut by our abort) and the pause (cut to the continue's request);
 *  - plain: partial text, then nothing. The plugin handed OpenCode's chunkTimeout the budget,
 *    so OpenCode cuts and retries the request itself; figure: last byte to that retry request.
 *
 * The first retry's backoff defaults to 0 here, as in bench/latency.ts, so the figure is the
 * recovery's own delay; the shipped baseBackoffMs (1 s) adds that much, by design.
 * BENCH_DEBUG=1 prints each run's plugin log lines, stamped from the last byte, on stderr.
 */
import { ABORT_CONTINUE_DELAY_MS } from "../src/options/constants.ts"
import { hangAfter, hangWarm, startFakeProvider, text, type FakeProvider, type RecordedRequest } from "../test/e2e/harness/fake-provider.ts"
import { createSession, pluginLogs, promptAsync, startOpencode, waitForIdle, type OpencodeHost } from "../test/e2e/harness/opencode-host.ts"
import { PLUGIN_URL, eventually, pluginMessages, pluginPromptRequests, sleep, warmUp } from "../test/e2e/support.ts"
import { argNumber, median, report } from "./common.ts"

const RUNS = argNumber("runs", 3)
const CHUNK = argNumber("chunk", 3000)
const GRACE = argNumber("grace", 1000)
const backoffArg = process.argv.indexOf("--backoff")
const BACKOFF = backoffArg >= 0 && Number.isFinite(Number(process.argv[backoffArg + 1])) ? Math.max(0, Number(process.argv[backoffArg + 1])) : 0

type Sample = { totalMs: number; detectMs?: number; pauseMs?: number; messages?: number }

async function oneRun(host: OpencodeHost, provider: FakeProvider, kind: "warm" | "plain", n: number): Promise<Sample | undefined> {
  const sessionID = await createSession(host)
  const since = provider.requests.length
  provider.enqueue(kind === "warm" ? hangWarm("Let me look into", 500) : hangAfter("Let me look into"))
  provider.setFallback(text(`recovered ${kind} ${n}`))
  await promptAsync(host, sessionID, `bench ${kind} hang ${n}`)
  const budget = CHUNK + GRACE
  const seen = await eventually(() => provider.requests.length >= since + 2, 4 * budget + ABORT_CONTINUE_DELAY_MS + 10_000, 20)
  if (!seen) {
    if (process.env.BENCH_DEBUG) console.error(kind, since, JSON.stringify(provider.requests.slice(since).map((r) => [r.outcome, r.lastUserText.slice(0, 60)])))
    return undefined
  }
  await waitForIdle(host, sessionID, 20_000, 0).catch(() => undefined)
  const hung: RecordedRequest | undefined = provider.requests[since]
  const next = kind === "warm" ? pluginPromptRequests(provider, since)[0] : provider.requests[since + 1]
  if (!hung?.lastByteAt || !next) return undefined
  const sample: Sample = { totalMs: next.at - hung.lastByteAt }
  if (process.env.BENCH_DEBUG) {
    for (const l of pluginLogs(host, "auto-resume")) {
      if (!l.message.includes(sessionID)) continue
      console.error(`${Date.parse(l.fields.timestamp ?? "") - hung.lastByteAt} ms  ${l.message.slice(0, 140)}`)
    }
    console.error(`closed ${hung.closedAt! - hung.lastByteAt} ms, next request ${next.at - hung.lastByteAt} ms`)
  }
  if (kind === "warm" && hung.closedAt) {
    sample.detectMs = hung.closedAt - hung.lastByteAt
    sample.pauseMs = next.at - hung.closedAt
  }
  if (kind === "warm") {
    // Past the ceiling too: a continue that also went out at the old fixed pause would show here.
    await sleep(Math.max(0, next.at + ABORT_CONTINUE_DELAY_MS + 1000 - Date.now()))
    sample.messages = (await pluginMessages(host, sessionID)).length
  }
  return sample
}

export async function hangRecovery(runs = RUNS, chunkTimeoutMs = CHUNK, gracePeriodMs = GRACE, baseBackoffMs = BACKOFF) {
  const budgetMs = chunkTimeoutMs + gracePeriodMs
  const options = { chunkTimeoutMs, gracePeriodMs, baseBackoffMs, checkIntervalMs: 500, debug: true }
  const provider = await startFakeProvider()
  let host: OpencodeHost | undefined
  try {
    // No provider timeouts in the user's config: the plugin hands OpenCode its budget.
    host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, options]], chunkTimeoutMs: null, headerTimeoutMs: null })
    await warmUp(host, provider)
    const warm: Sample[] = []
    const plain: Sample[] = []
    let missed = 0
    for (let r = 0; r < runs; r++) {
      for (const kind of ["warm", "plain"] as const) {
        const s = await oneRun(host, provider, kind, r)
        if (s) (kind === "warm" ? warm : plain).push(s)
        else missed++
      }
    }
    const med = (xs: Array<number | undefined>) => {
      const ok = xs.filter((x): x is number => typeof x === "number")
      return ok.length ? median(ok) : Number.NaN
    }
    const warmTotal = med(warm.map((s) => s.totalMs))
    return {
      bench: "hang-recovery",
      host: "opencode serve 1.18.33",
      runs,
      missed,
      chunkTimeoutMs,
      gracePeriodMs,
      baseBackoffMs,
      budgetMs,
      abortPauseCeilingMs: ABORT_CONTINUE_DELAY_MS,
      warmMedianMs: warmTotal,
      warmRatio: warmTotal / budgetMs,
      warmTargetRatio: 1.1 + 1000 / budgetMs,
      warmPluginMessages: warm.map((s) => s.messages),
      warmDetectMedianMs: med(warm.map((s) => s.detectMs)),
      warmPauseMedianMs: med(warm.map((s) => s.pauseMs)),
      warmSamplesMs: warm.map((s) => s.totalMs),
      plainHostRetryMedianMs: med(plain.map((s) => s.totalMs)),
      plainHostRetryRatio: med(plain.map((s) => s.totalMs)) / budgetMs,
      plainSamplesMs: plain.map((s) => s.totalMs),
    }
  } finally {
    await host?.stop().catch(() => undefined)
    await provider.stop()
  }
}

if (import.meta.main) {
  const r = await hangRecovery()
  report(r)
  if (!process.argv.includes("--json")) {
    const f = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "n/a")
    console.log(
      `\nkeep-alive-warm hang -> plugin's continue: ${Math.round(r.warmMedianMs)} ms = ${f(r.warmRatio)} x (chunkTimeoutMs + gracePeriodMs); ` +
        `target <= ${f(r.warmTargetRatio)} (1.1 x the budget + 1 s); abort to continue ${Math.round(r.warmPauseMedianMs)} ms; ` +
        `plugin messages per session ${JSON.stringify(r.warmPluginMessages)} (target 1 each)`,
    )
    console.log(`plain hang -> OpenCode's own retry request: ${Math.round(r.plainHostRetryMedianMs)} ms = ${f(r.plainHostRetryRatio)} x the budget (no plugin message)`)
  }
}
